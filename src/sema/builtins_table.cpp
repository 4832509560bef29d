// The table of builtin functions (gathered from the family files), binding of call arguments to a
// builtin's parameters, and callBuiltin: calls of builtins and of methods of tensors and dtypes.
#include "sema/ops_common.h"

namespace kiln::sema {

using K = SValue::Kind;

namespace {

std::span<const BuiltinDef> family(size_t i) {
  switch (i) {
    case 0: return coreBuiltins();
    case 1: return memoryBuiltins();
    case 2: return mathBuiltins();
    case 3: return reduceBuiltins();
    case 4: return shapeBuiltins();
    case 5: return dotBuiltins();
    case 6: return pythonBuiltins();
    case 7: return libdeviceBuiltins();
    case 8: return combineBuiltins();
    case 9: return atomicBuiltins();
    case 10: return randomBuiltins();
    case 11: return joinBuiltins();
    case 12: return exchangeBuiltins();
    case 13: return sortBuiltins();
    case 14: return blockPointerBuiltins();
    case 15: return descriptorBuiltins();
    case 16: return debugBuiltins();
    case 17: return libdeviceIntBuiltins();
    case 18: return libdeviceRoundingBuiltins();
    default: return {};
  }
}
constexpr size_t kFamilies = 19;

struct Param {
  std::string name;
  bool optional = false;
  bool variadic = false;
};

std::vector<Param> parseParams(std::string_view spec) {
  std::vector<Param> out;
  while (!spec.empty()) {
    size_t sp = spec.find(' ');
    std::string_view w = spec.substr(0, sp);
    spec = sp == std::string_view::npos ? std::string_view() : spec.substr(sp + 1);
    if (w.empty()) continue;
    Param p;
    if (w.front() == '*') p.variadic = true, w.remove_prefix(1);
    if (w.back() == '?') p.optional = true, w.remove_suffix(1);
    p.name = std::string(w);
    out.push_back(std::move(p));
  }
  return out;
}

unsigned whereOfNamespace(std::string_view ns) {
  if (ns.empty()) return kPy;
  if (ns == "triton.language") return kTl;
  if (ns == "triton.language.math") return kMath;
  if (ns == "triton.language.random") return kRandom;
  if (ns == "triton") return kTriton;
  if (ns == "triton.language.extra.libdevice" || ns == "triton.language.extra.cuda.libdevice") return kLibdevice;
  if (ns == "triton.language.extra.cuda") return kCuda;
  return 0;
}

std::string displayName(std::string_view name, unsigned where) {
  switch (where) {
    case kTl: return "tl." + std::string(name);
    case kMath: return "tl.math." + std::string(name);
    case kRandom: return "tl.random." + std::string(name);
    case kTriton: return "triton." + std::string(name);
    case kLibdevice: return "libdevice." + std::string(name);
    case kCuda: return "tl.extra.cuda." + std::string(name);
    case kMember: return "tensor." + std::string(name);
    case kDescriptorMember: return "tensor_descriptor." + std::string(name);
    case kBlockPtrMember: return "block_ptr." + std::string(name);
    default: return std::string(name);
  }
}

}  // namespace

const BuiltinDef* findBuiltin(std::string_view name, unsigned where) {
  for (size_t f = 0; f < kFamilies; ++f)
    for (const BuiltinDef& d : family(f))
      if ((d.where & where) && name == d.name) return &d;
  return nullptr;
}

std::vector<std::string> builtinNames(unsigned where) {
  std::vector<std::string> out;
  for (size_t f = 0; f < kFamilies; ++f)
    for (const BuiltinDef& d : family(f))
      if (d.where & where) out.push_back(d.name);
  return out;
}

SValue invokeBuiltin(Context& cx, const BuiltinDef& def, const std::string& display, std::vector<SValue> args,
                     Kwargs kwargs, const SourceLoc& loc) {
  CallArgs a;
  a.cx = &cx;
  a.display = display;
  a.loc = loc;
  a.raw = args;
  a.rawKw = kwargs;
  if (!def.params) return def.fn(a);
  std::vector<Param> params = parseParams(def.params);
  std::vector<size_t> slot(params.size(), SIZE_MAX);  // index into a.vals per non-variadic param
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i].variadic) {
      slot[i] = a.names.size();
      a.names.push_back(params[i].name);
    }
  a.vals.resize(a.names.size());
  size_t pi = 0;
  for (SValue& v : args) {
    if (pi < params.size() && params[pi].variadic) {
      a.rest.push_back(std::move(v));
      continue;
    }
    if (pi >= params.size())
      fail(loc, display + "() takes " + std::to_string(a.names.size()) + " positional argument(s) but " +
                    std::to_string(args.size()) + " were given");
    a.vals[slot[pi++]] = std::move(v);
  }
  for (auto& [name, v] : kwargs) {
    size_t i = 0;
    while (i < params.size() && (params[i].variadic || params[i].name != name)) ++i;
    if (i == params.size()) fail(loc, display + "() got an unexpected keyword argument '" + name + "'");
    if (a.vals[slot[i]]) fail(loc, display + "() got multiple values for argument '" + name + "'");
    a.vals[slot[i]] = std::move(v);
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i].variadic && !params[i].optional && !a.vals[slot[i]])
      fail(loc, display + "() missing required argument '" + params[i].name + "'");
  if (a.rest.size() == 1 && a.rest[0].kind == K::Tuple) {  // f(x, (a, b)) is f(x, a, b)
    std::vector<SValue> elts = a.rest[0].elts;
    a.rest = std::move(elts);
  }
  return def.fn(a);
}

SValue callBuiltin(Context& cx, const SValue& callee, std::vector<SValue> args, Kwargs kwargs,
                   const SourceLoc& loc) {
  if (callee.kind == K::Builtin) {
    size_t dot = callee.str.rfind('.');
    std::string ns = dot == std::string::npos ? "" : callee.str.substr(0, dot);
    std::string name = dot == std::string::npos ? callee.str : callee.str.substr(dot + 1);
    unsigned where = whereOfNamespace(ns);
    const BuiltinDef* def = where ? findBuiltin(name, where) : nullptr;
    if (!def) fail(loc, "unknown builtin '" + callee.str + "'");
    return invokeBuiltin(cx, *def, displayName(name, where), std::move(args), std::move(kwargs), loc);
  }
  if (callee.kind == K::Method && !callee.elts.empty()) {
    const SValue& self = callee.elts[0];
    if (self.kind == K::Dtype) {
      if (!kwargs.empty()) fail(loc, "dtype." + callee.str + "() takes no keyword arguments");
      return callDtypeMethod(self, callee.str, args, loc);
    }
    if (self.isIR()) {
      const BuiltinDef* def = findBuiltin(callee.str, kMember);
      if (!def) fail(loc, self.describe() + " has no method '" + callee.str + "'");
      args.insert(args.begin(), self);
      return invokeBuiltin(cx, *def, displayName(callee.str, kMember), std::move(args), std::move(kwargs), loc);
    }
    if (self.kind == K::Block) {
      const unsigned where = self.block->descriptor ? kDescriptorMember : kBlockPtrMember;
      const BuiltinDef* def = findBuiltin(callee.str, where);
      if (!def) fail(loc, self.describe() + " has no method '" + callee.str + "'");
      args.insert(args.begin(), self);
      return invokeBuiltin(cx, *def, displayName(callee.str, where), std::move(args), std::move(kwargs), loc);
    }
  }
  fail(loc, callee.describe() + " is not callable");
}

SValue unsupportedBuiltin(CallArgs& a) {
  fail(a.loc, a.display + " is not supported by kiln (docs/language.md lists the supported builtins)");
}

// ---- CallArgs

const SValue& CallArgs::at(size_t i) const {
  if (!vals.at(i)) throw InternalError(loc, display + ": parameter '" + names.at(i) + "' is not bound");
  return *vals[i];
}

void CallArgs::fail(const std::string& msg) const { kiln::fail(loc, msg); }

int64_t CallArgs::intArg(size_t i) const {
  const SValue& v = at(i);
  if (v.kind != K::Int && v.kind != K::Bool)
    fail(display + "(): '" + names[i] + "' must be a constexpr int, got " + v.describe());
  return v.i;
}

bool CallArgs::boolArg(size_t i, bool dflt) const {
  if (!has(i)) return dflt;
  const SValue& v = *vals[i];
  if (v.isIR() || !v.isConstexpr())
    fail(display + "(): '" + names[i] + "' must be a constexpr, got " + v.describe());
  return pyTruth(v);
}

std::string CallArgs::strArg(size_t i, const std::string& dflt) const {
  if (!has(i)) return dflt;
  const SValue& v = *vals[i];
  if (v.kind != K::Str) fail(display + "(): '" + names[i] + "' must be a constexpr string, got " + v.describe());
  return v.str;
}

ir::Type CallArgs::dtypeArg(size_t i) const {
  const SValue& v = at(i);
  if (v.kind != K::Dtype || v.type.isTensor())
    fail(display + "(): '" + names[i] + "' must be a dtype such as tl.float32, got " + v.describe());
  return v.type;
}

Shape CallArgs::shapeArg(const SValue& v, std::string_view what) const {
  if (v.kind != K::Tuple)
    fail(display + "(): " + std::string(what) + " must be a tuple of constexpr ints such as (BLOCK_M, BLOCK_N), got " +
         v.describe());
  Shape s;
  for (size_t i = 0; i < v.elts.size(); ++i) {
    const SValue& e = v.elts[i];
    if (e.kind != K::Int)
      fail(display + "(): element " + std::to_string(i) + " of " + std::string(what) + " must be a constexpr int, got " +
           e.describe());
    s.push_back(e.i);
  }
  return s;
}

std::vector<int64_t> CallArgs::intList(const SValue& v, std::string_view what) const {
  if (v.kind == K::Int || v.kind == K::Bool) return {v.i};
  if (v.kind == K::Tuple) return shapeArg(v, what);
  fail(display + "(): " + std::string(what) + " must be a constexpr int or a tuple of them, got " + v.describe());
}

}  // namespace kiln::sema
