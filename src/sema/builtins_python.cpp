// Python builtins visible inside kernels: min/max (Python on constexprs, tl.minimum/maximum on
// runtime values), float/int/bool/abs/len on constexprs, hasattr and isinstance (constexpr
// answers), tuple/tl.tuple, NamedTuple classes (calling one makes its tuple), and range/print, which are rejected with a hint when called as plain functions.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "sema/ops_common.h"

namespace kiln::sema {

using K = SValue::Kind;

namespace {

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

SValue pyMinMax(CallArgs& a, bool isMax) {
  const char* name = isMax ? "max" : "min";
  if (a.rest.empty()) a.fail(std::string(name) + "() expected at least 1 argument, got 0");
  if (a.raw.size() == 1 && a.raw[0].kind != K::Tuple)
    a.fail(std::string(name) + "() of a single value: pass two or more values, or a tuple");
  bool runtime = false;
  for (const SValue& v : a.rest) runtime = runtime || v.isIR();
  if (!runtime) {  // Python: the first extreme element
    SValue best = a.rest[0];
    for (size_t i = 1; i < a.rest.size(); ++i) {
      SValue better = constexprCompare(isMax ? ast::CmpOp::Gt : ast::CmpOp::Lt, a.rest[i], best, a.loc);
      if (better.i) best = a.rest[i];
    }
    return best;
  }
  SValue acc = a.rest[0];
  for (size_t i = 1; i < a.rest.size(); ++i) acc = elementwiseMinMax(*a.cx, isMax, acc, a.rest[i], false, a.loc);
  return acc;
}
SValue pyMin(CallArgs& a) { return pyMinMax(a, false); }
SValue pyMax(CallArgs& a) { return pyMinMax(a, true); }

void needConstexpr(const CallArgs& a, const SValue& v, const std::string& hint) {
  if (v.isIR()) a.fail(a.display + "() needs a compile-time value, got " + v.describe() + "; " + hint);
}

SValue pyFloat(CallArgs& a) {
  if (!a.has(0)) return SValue::real(0.0);
  const SValue& v = a.at(0);
  needConstexpr(a, v, "use x.to(tl.float32)");
  if (v.kind == K::Float) return v;
  if (v.kind == K::Int || v.kind == K::Bool) return SValue::real(double(v.i));
  if (v.kind == K::Str) {
    std::string s = trimmed(v.str);
    char* end = nullptr;
    double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    bool hex = s.find_first_of("xX") != std::string::npos;
    if (s.empty() || hex || end != s.c_str() + s.size())
      a.fail("could not convert string to float: " + pyRepr(v));
    return SValue::real(d);
  }
  a.fail("float() argument must be a string or a number, not '" + std::string(pyTypeName(v)) + "'");
}

SValue pyInt(CallArgs& a) {
  if (!a.has(0)) return SValue::integer(0);
  const SValue& v = a.at(0);
  needConstexpr(a, v, "use x.to(tl.int32)");
  if (v.kind == K::Int || v.kind == K::Bool) return SValue::integer(v.i);
  if (v.kind == K::Float) {
    if (std::isnan(v.f)) a.fail("cannot convert float NaN to integer");
    if (std::isinf(v.f)) a.fail("cannot convert float infinity to integer");
    double t = std::trunc(v.f);
    if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) a.fail("integer overflow in constant expression");
    return SValue::integer(int64_t(t));
  }
  if (v.kind == K::Str) {
    std::string s = trimmed(v.str);
    char* end = nullptr;
    errno = 0;
    long long n = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size()) a.fail("invalid literal for int() with base 10: " + pyRepr(v));
    if (errno == ERANGE) a.fail("integer overflow in constant expression");
    return SValue::integer(n);
  }
  a.fail("int() argument must be a string or a number, not '" + std::string(pyTypeName(v)) + "'");
}

SValue pyBool(CallArgs& a) {
  if (!a.has(0)) return SValue::boolean(false);
  needConstexpr(a, a.at(0), "compare explicitly, e.g. x != 0");
  return SValue::boolean(pyTruth(a.at(0)));
}

SValue pyAbs(CallArgs& a) {
  const SValue& v = a.at(0);
  if (v.isIR()) return invokeBuiltin(*a.cx, *findBuiltin("abs", kTl), "abs", {v}, {}, a.loc);
  if (v.kind == K::Float) return SValue::real(std::fabs(v.f));
  if (v.kind == K::Int || v.kind == K::Bool) {
    if (v.i == std::numeric_limits<int64_t>::min()) a.fail("integer overflow in constant expression");
    return SValue::integer(v.i < 0 ? -v.i : v.i);
  }
  a.fail("bad operand type for abs(): '" + std::string(pyTypeName(v)) + "'");
}

SValue pyLen(CallArgs& a) {
  const SValue& v = a.at(0);
  if (v.kind == K::Tuple) return SValue::integer(int64_t(v.elts.size()));
  if (v.kind == K::Str) return SValue::integer(int64_t(characters(v.str).size()));  // characters, not bytes
  if (v.isIR()) a.fail("len() of a tensor is not supported; use x.shape[0] or x.numel");
  a.fail("object of type '" + std::string(pyTypeName(v)) + "' has no len()");
}

// tl.tuple(values) / tuple(values): Triton's tuple of a tuple or list (a list is a tuple in kiln's sema);
// no argument: the empty tuple. A NamedTuple's fields do not carry over, as Python's tuple() drops them.
SValue pyTuple(CallArgs& a) {
  if (!a.has(0) && !(a.vals.at(0) && a.vals[0]->kind == K::None)) return SValue::tuple({});
  const SValue& v = a.at(0);
  if (v.kind != K::Tuple) a.fail("expected a tuple or a list of values, got " + v.describe());
  return SValue::tuple(v.elts);
}

// A constexpr bool, so `if hasattr(x, "dtype") and ...` folds like Triton's.
SValue pyHasattr(CallArgs& a) {
  const SValue& name = a.at(1);
  if (name.kind != K::Str)
    a.fail("hasattr(): attribute name must be string, not '" + std::string(pyTypeName(name)) + "'");
  return SValue::boolean(hasAttribute(a.at(0), name.str));
}

SValue pyRange(CallArgs& a) { a.fail("range() can only be used as the iterable of a for loop"); }
// isinstance as Triton answers it (constexprs unwrapped to Python values first): tl.tensor holds
// the runtime values, tl.dtype every dtype, tl.pointer_type the pointer dtypes, tl.tensor_descriptor
// the tensor descriptors, int/float/bool
// the constexprs of those Python types (a bool is an int); `cls` may be a tuple of classes.
bool isInstance(const CallArgs& a, const SValue& obj, const SValue& cls) {
  if (cls.kind == K::Tuple) {
    for (const SValue& c : cls.elts)
      if (isInstance(a, obj, c)) return true;
    return false;
  }
  if (cls.kind == K::TupleClass) return obj.kind == K::Tuple && obj.str == cls.str && obj.fields == cls.fields;
  if (cls.kind == K::Builtin) {
    const std::string& c = cls.str;
    if (c == "triton.language.tensor") return obj.isIR();
    if (c == "triton.language.dtype") return obj.kind == K::Dtype;
    if (c == "triton.language.tensor_descriptor") return obj.kind == K::Block && obj.block->descriptor;
    if (c == "triton.language.pointer_type") return obj.kind == K::Dtype && obj.type.isPtr() && !obj.type.isTensor();
    if (c == "int") return obj.kind == K::Int || obj.kind == K::Bool;
    if (c == "float") return obj.kind == K::Float;
    if (c == "bool") return obj.kind == K::Bool;
  }
  a.fail("isinstance(): kiln knows the classes tl.tensor, tl.dtype, tl.pointer_type, tl.tensor_descriptor, int, "
         "float, bool and the NamedTuple classes of the kernel's module, not " +
         cls.describe());
}
SValue pyIsinstance(CallArgs& a) { return SValue::boolean(isInstance(a, a.at(0), a.at(1))); }

// triton.language._namedtuple_class(name, fields, defaults): how a kernel sees a NamedTuple class of the
// Python module (python/kiln/_resolve.py spells it so); `defaults` are those of the last fields.
SValue namedTupleClass(CallArgs& a) {
  const SValue& name = a.at(0);
  const SValue& fields = a.at(1);
  const SValue& defaults = a.at(2);
  if (name.kind != K::Str || fields.kind != K::Tuple || defaults.kind != K::Tuple ||
      defaults.elts.size() > fields.elts.size())
    a.fail("expected a class name, its field names and the defaults of its last fields");
  std::vector<std::string> names;
  for (const SValue& f : fields.elts) {
    if (f.kind != K::Str) a.fail("a field name must be a str, got " + f.describe());
    names.push_back(f.str);
  }
  return SValue::tupleClass(name.str, std::move(names), defaults.elts);
}

constexpr BuiltinDef kPython[] = {
    {"min", kPy, "*args", pyMin},
    {"max", kPy, "*args", pyMax},
    {"float", kPy, "x?", pyFloat},
    {"int", kPy, "x?", pyInt},
    {"bool", kPy, "x?", pyBool},
    {"abs", kPy, "x", pyAbs},
    {"len", kPy, "obj", pyLen},
    {"hasattr", kPy, "obj name", pyHasattr},
    {"range", kPy, nullptr, pyRange},
    {"isinstance", kPy, "obj classinfo", pyIsinstance},
    {"tuple", kPy | kTl, "iterable?", pyTuple},
    {"_namedtuple_class", kTl, "name fields defaults", namedTupleClass},
};

}  // namespace

std::span<const BuiltinDef> pythonBuiltins() { return kPython; }

SValue newNamedTuple(const SValue& cls, std::vector<SValue> args, const Kwargs& kwargs, const SourceLoc& loc) {
  const std::vector<std::string>& fields = cls.fields;
  const std::string who = cls.str + "()";
  if (args.size() > fields.size())
    fail(loc, who + " takes " + std::to_string(fields.size()) + " positional argument" +
                  (fields.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) + " were given");
  std::vector<std::optional<SValue>> vals(fields.size());
  for (size_t i = 0; i < args.size(); ++i) vals[i] = std::move(args[i]);
  for (const auto& [name, v] : kwargs) {
    auto it = std::find(fields.begin(), fields.end(), name);
    if (it == fields.end()) fail(loc, who + " got an unexpected keyword argument '" + name + "'");
    std::optional<SValue>& slot = vals[size_t(it - fields.begin())];
    if (slot) fail(loc, who + " got multiple values for argument '" + name + "'");
    slot = v;
  }
  const size_t firstDefault = fields.size() - cls.elts.size();
  SValue t = SValue::tuple({});
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!vals[i] && i < firstDefault) fail(loc, who + " missing required argument '" + fields[i] + "'");
    t.elts.push_back(vals[i] ? std::move(*vals[i]) : cls.elts[i - firstDefault]);
  }
  t.str = cls.str;
  t.fields = fields;
  return t;
}

}  // namespace kiln::sema
