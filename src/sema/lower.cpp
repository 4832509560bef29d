// lowerKernel: finds the kernel, binds its parameters from the signature, lowers its body and
// checks the result with the IR verifier. Also name lookup (locals, module globals evaluated
// lazily as constexprs, jit functions, import aliases, Python builtins).
#include <algorithm>
#include <functional>

#include "ir/text.h"
#include "sema/lower.h"

namespace kiln::sema {

namespace {

constexpr long kMaxWork = 200000;  // statements lowered, counting every inlined and unrolled copy
constexpr size_t kMaxGlobalChain = 256;

// The dotted path an annotation names, with its first name resolved through the import aliases:
// `tl.constexpr` -> "triton.language.constexpr". Empty when it is not a dotted name.
std::string dottedPath(const ast::Module& m, const ast::Expr& e) {
  if (e.kind == ast::ExprKind::Name) {
    auto it = m.aliases.find(e.name);
    return it == m.aliases.end() ? e.name : it->second;
  }
  if (e.kind == ast::ExprKind::Attribute && !e.elts.empty() && e.elts[0]) {
    std::string base = dottedPath(m, *e.elts[0]);
    return base.empty() ? "" : base + "." + e.name;
  }
  return "";
}

SValue literalValue(const SigEntry& e) {
  switch (e.litKind) {
    case SigEntry::LitKind::Int: return SValue::integer(e.intValue);
    case SigEntry::LitKind::Float: return SValue::real(e.floatValue);
    case SigEntry::LitKind::Bool: return SValue::boolean(e.intValue != 0);
    case SigEntry::LitKind::None: return SValue::none();
    case SigEntry::LitKind::Str: return SValue::string(e.strValue);
    case SigEntry::LitKind::DType: return SValue::dtype(ir::Type::scalar(e.type));
    case SigEntry::LitKind::Function: break;  // resolved in the module by bindParameters
  }
  return SValue::none();
}

}  // namespace

Lowerer::Lowerer(const ast::Module& m, std::string_view kernel) : cx_{m, std::string(kernel), ir::Builder{}, {}} {
  cx_.callJit = [this](const ast::FunctionDef& fn, std::vector<SValue> args, const SourceLoc& loc) {
    return callFunction(fn, std::move(args), {}, loc);
  };
}

bool Lowerer::isConstexprAnnotation(const ast::Expr* a) const {
  if (!a) return false;
  std::string path = a->kind == ast::ExprKind::Str ? a->str : dottedPath(cx_.module, *a);
  if (a->kind == ast::ExprKind::Str) {  // a string annotation: "tl.constexpr"
    size_t dot = path.find('.');
    std::string head = path.substr(0, dot);
    auto it = cx_.module.aliases.find(head);
    if (it != cx_.module.aliases.end()) path = it->second + (dot == std::string::npos ? "" : path.substr(dot));
  }
  return path == "triton.language.constexpr" || path == "triton.language.core.constexpr" ||
         path == "kiln.language.constexpr" || path == "kiln.language.core.constexpr" || path == "constexpr";
}

void Lowerer::countWork(const SourceLoc& loc) {
  if (++work_ > kMaxWork)
    fail(loc, "the kernel is too large after inlining helpers and unrolling loops (more than " +
                  std::to_string(kMaxWork) + " statements lowered)");
}

std::unique_ptr<ir::Module> Lowerer::run(const Signature& sig) {
  const ast::Module& m = cx_.module;
  const ast::FunctionDef* fn = nullptr;
  for (const auto& f : m.functions)
    if (f->name == cx_.kernelName) fn = f.get();
  std::string fileName = m.file ? m.file->name : "<module>";
  if (!fn) {
    std::string msg = "no @jit function named '" + cx_.kernelName + "' in " + fileName;
    if (m.functions.empty()) {
      msg += " (it has no @jit functions)";
    } else {
      msg += " (its @jit functions: ";
      for (size_t i = 0; i < m.functions.size(); ++i) msg += (i ? ", " : "") + m.functions[i]->name;
      msg += ")";
    }
    throw CompileError(SourceLoc{m.file, 0, 0}, msg);
  }

  auto out = std::make_unique<ir::Module>();
  ir::Function& f = out->addFunction(fn->name, fn->loc);
  cx_.b.setInsertionPointToEnd(f.body);
  FrameGuard frame(*this, fn);
  frames_.back()->isKernel = true;
  bindParameters(*fn, sig, f);
  stmts(fn->body, 0, nullptr, /*tail=*/true);

  cx_.b.setInsertionPointToEnd(f.body);
  SourceLoc endLoc = fn->body.empty() ? fn->loc : fn->body.back()->loc;
  cx_.b.create(ir::Opcode::Return, {}, {}, {}, endLoc);
  if (auto d = ir::verify(f))
    throw InternalError(d->loc, "sema produced invalid IR: " + d->message + "\n" + ir::print(f));
  return out;
}

void Lowerer::bindParameters(const ast::FunctionDef& fn, const Signature& sig, ir::Function& f) {
  size_t n = fn.params.size(), given = sig.entries.size();
  // Trailing constexpr parameters with defaults may be left out of the signature.
  size_t required = n;
  while (required > 0 && fn.params[required - 1].defaultValue &&
         isConstexprAnnotation(fn.params[required - 1].annotation.get()))
    --required;
  if (given > n || given < required) {
    std::string want = required == n ? std::to_string(n) : std::to_string(required) + " to " + std::to_string(n);
    fail(fn.loc, "kernel '" + fn.name + "' has " + std::to_string(n) + " parameter" + (n == 1 ? "" : "s") +
                     " but the signature '" + sig.text + "' has " + std::to_string(given) + " entr" +
                     (given == 1 ? "y" : "ies") + " (expected " + want + ")");
  }
  struct Hinted {
    const ast::Param* p;
    ir::Value* arg;
    int64_t by;
  };
  std::vector<Hinted> hinted;
  // A tuple's elements, in order: a type is the next kernel argument (named "t.0.1" after its path),
  // with a ':16'/':8' hint applied at once; a literal is a constexpr of the tuple (the integer 1 also an
  // argument, as at top level); in a constexpr parameter's tuple every element must be a literal.
  // A literal entry's value; "@name" is the @jit function of that name in the kernel's module.
  auto literal = [&](const ast::Param& p, const SigEntry& e) {
    if (e.litKind != SigEntry::LitKind::Function) return literalValue(e);
    // The launcher links a function argument as the global "@name"; elsewhere (kiln compile) "@name" is
    // the module's own @jit function `name`.
    bool linked = false;
    for (const ast::GlobalAssign& g : cx_.module.globals) linked = linked || g.name == "@" + e.strValue;
    SValue fnv;
    {
      FrameGuard moduleScope(*this, nullptr);
      fnv = lookup(linked ? "@" + e.strValue : e.strValue, p.loc);
    }
    if (fnv.kind != SValue::Kind::Function)
      fail(p.loc, "parameter '" + p.name + "': the signature's '@" + e.strValue + "' names " + typeDescription(fnv) +
                      ", not a @jit function of the kernel's module");
    return fnv;
  };
  std::function<SValue(const ast::Param&, const SigEntry&, const std::string&, bool)> element =
      [&](const ast::Param& p, const SigEntry& e, const std::string& name, bool isConst) -> SValue {
    if (e.kind == SigEntry::Kind::Tuple) {
      std::vector<SValue> elts;
      for (size_t k = 0; k < e.elts.size(); ++k)
        elts.push_back(element(p, e.elts[k], name + "." + std::to_string(k), isConst));
      SValue t = SValue::tuple(std::move(elts));
      t.str = e.tupleName;
      t.fields = e.fields;
      return isHostDescriptor(t) ? hostDescriptor(cx_, t, p.loc) : t;
    }
    if (e.kind == SigEntry::Kind::Literal) {
      if (!isConst && e.litKind == SigEntry::LitKind::Int && e.intValue == 1)
        f.body.addArg(ir::Type::scalar(ir::Scalar::I32), name);
      return literal(p, e);
    }
    if (isConst)
      fail(p.loc, "parameter '" + p.name + "' is a constexpr and needs literal values in the signature, got '" +
                      e.text + "' in its tuple");
    ir::Type t = e.kind == SigEntry::Kind::Pointer ? ir::Type::ptr(e.type) : ir::Type::scalar(e.type);
    ir::Value* arg = f.body.addArg(t, name);
    if (e.divisibility <= 1) return SValue::irValue(arg);
    return SValue::irValue(cx_.b.create1(ir::Opcode::MultipleOf, {arg}, arg->type,
                                         {ir::Attr{"values", std::vector<int64_t>{e.divisibility}}}, p.loc));
  };
  for (size_t i = 0; i < n; ++i) {
    const ast::Param& p = fn.params[i];
    bool isConst = isConstexprAnnotation(p.annotation.get());
    if (i >= given) {  // an omitted trailing constexpr: its default
      scope().set(p.name, evalInModuleScope(*p.defaultValue));
      continue;
    }
    const SigEntry& e = sig.entries[i];
    if (e.kind == SigEntry::Kind::Tuple) {  // a tuple argument (Triton's tuple specialization)
      scope().set(p.name, element(p, e, p.name, isConst));
      continue;
    }
    if (isConst || (e.kind == SigEntry::Kind::Literal && e.litKind == SigEntry::LitKind::Function)) {
      // A function is a constexpr wherever it is passed, as in Triton.
      if (e.kind != SigEntry::Kind::Literal)
        fail(p.loc, "parameter '" + p.name + "' is a constexpr and needs a literal value in the signature, got '" +
                        e.text + "'");
      scope().set(p.name, literal(p, e));
      continue;
    }
    if (e.kind == SigEntry::Kind::Literal && e.litKind == SigEntry::LitKind::None) {
      // Triton's None specialization: the parameter is no kernel argument and reads as None
      // (`if bias_ptr is not None:` folds away).
      scope().set(p.name, SValue::none());
      continue;
    }
    if (e.kind == SigEntry::Kind::Literal) {
      // Triton's equal-to-1 specialization: the parameter stays, its uses see the constant 1.
      if (e.litKind != SigEntry::LitKind::Int || e.intValue != 1)
        fail(p.loc, "parameter '" + p.name + "' is not a constexpr, so the signature can only specialize it to "
                        "the integer 1 or None, got '" + e.text + "' (annotate it with tl.constexpr to pass a value)");
      f.body.addArg(ir::Type::scalar(ir::Scalar::I32), p.name);
      scope().set(p.name, SValue::integer(1));
      continue;
    }
    ir::Type t = e.kind == SigEntry::Kind::Pointer ? ir::Type::ptr(e.type) : ir::Type::scalar(e.type);
    ir::Value* arg = f.body.addArg(t, p.name);
    scope().set(p.name, SValue::irValue(arg));
    if (e.divisibility > 1) hinted.push_back({&p, arg, e.divisibility});
  }
  // ":16" / ":8": pointers are 16 (8)-byte aligned, integers divisible by 16 (8) (Triton's meaning of :16).
  for (auto& [p, arg, by] : hinted) {
    ir::Value* v = cx_.b.create1(ir::Opcode::MultipleOf, {arg}, arg->type,
                                 {ir::Attr{"values", std::vector<int64_t>{by}}}, p->loc);
    scope().set(p->name, SValue::irValue(v));
  }
}

SValue Lowerer::lookup(const std::string& name, const SourceLoc& loc) {
  const Scope& sc = scope();
  if (const SValue* v = sc.find(name)) return *v;
  if (const Diagnostic* why = sc.whyHidden(name)) {
    CompileError err(loc, "name '" + name + "' is not defined");
    err.diag().notes.push_back(*why);
    throw err;
  }
  const ast::Module& m = cx_.module;
  for (auto it = m.globals.rbegin(); it != m.globals.rend(); ++it)
    if (it->name == name) return global(*it, loc);
  for (auto it = m.functions.rbegin(); it != m.functions.rend(); ++it)
    if ((*it)->name == name) return SValue::function(it->get());
  for (auto it = m.plainFunctions.rbegin(); it != m.plainFunctions.rend(); ++it)
    if (it->name == name) {
      CompileError err(loc, "'" + name + "' is not a @jit function (decorate it with @triton.jit to call it from a "
                                         "kernel)");
      err.diag().notes.push_back(Diagnostic{Diagnostic::Kind::Note, it->loc, "'" + name + "' is defined here", {}});
      throw err;
    }
  SValue out;
  if (auto it = m.aliases.find(name); it != m.aliases.end()) {
    if (resolveImportPath(it->second, out)) return out;
    const std::string& path = it->second;
    std::string root = path.substr(0, path.find('.'));
    if (!root.empty() && root != "triton") {  // relative imports keep the generic message
      const char* allowed = " cannot be used in a kernel (kernels can use triton and triton.language)";
      if (root == path) fail(loc, "module '" + root + "'" + allowed);
      fail(loc, "'" + name + "' comes from module '" + root + "', which" + allowed);
    }
    fail(loc, "'" + name + "' refers to '" + path + "', which kiln does not know");
  }
  if (lookupPythonBuiltin(name, out)) return out;
  fail(loc, "name '" + name + "' is not defined");
}

SValue Lowerer::evalInModuleScope(const ast::Expr& e) {
  FrameGuard frame(*this, nullptr);
  return expr(e);
}

// A module-level NAME = value, evaluated on first use in the module scope. Its value must be
// known at compile time: evaluation happens in a scratch block, and any op emitted is an error.
SValue Lowerer::global(const ast::GlobalAssign& g, const SourceLoc& useLoc) {
  for (const auto& [ga, v] : globalCache_)
    if (ga == &g) return v;
  if (!g.value) {
    CompileError err(useLoc, "global '" + g.name + "' is not a compile-time constant (host code: " +
                                 g.skipReason + ")");
    err.diag().notes.push_back(Diagnostic{Diagnostic::Kind::Note, g.loc, "'" + g.name + "' is assigned here", {}});
    throw err;
  }
  if (evaluatingGlobals_.count(&g)) fail(useLoc, "global '" + g.name + "' is defined in terms of itself");
  if (evaluatingGlobals_.size() >= kMaxGlobalChain)
    fail(useLoc, "globals are defined in terms of other globals more than " + std::to_string(kMaxGlobalChain) +
                     " levels deep");
  evaluatingGlobals_.insert(&g);
  ir::Block scratch;
  SValue v;
  {
    InsertionGuard guard(cx_.b);
    cx_.b.setInsertionPointToEnd(scratch);
    try {
      v = evalInModuleScope(*g.value);
    } catch (CompileError& e) {
      evaluatingGlobals_.erase(&g);
      e.diag().notes.push_back(
          Diagnostic{Diagnostic::Kind::Note, useLoc, "while evaluating global '" + g.name + "' used here", {}});
      throw;
    }
  }
  evaluatingGlobals_.erase(&g);
  if (!scratch.ops.empty() || containsIR(v)) {
    CompileError err(useLoc, "global '" + g.name + "' is not a compile-time constant (its value is " +
                                 typeDescription(v) + ")");
    err.diag().notes.push_back(Diagnostic{Diagnostic::Kind::Note, g.loc, "'" + g.name + "' is assigned here", {}});
    throw err;
  }
  globalCache_.push_back({&g, v});
  return v;
}

// ---- helpers shared by the lower_*.cpp files

bool sameValue(const SValue& a, const SValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case SValue::Kind::IR: return a.ir == b.ir;
    case SValue::Kind::Int:
    case SValue::Kind::Bool: return a.i == b.i;
    case SValue::Kind::Float: return a.f == b.f || (a.f != a.f && b.f != b.f);
    case SValue::Kind::Str:
    case SValue::Kind::Namespace:
    case SValue::Kind::Builtin: return a.str == b.str;
    case SValue::Kind::None:
    case SValue::Kind::Slice: return true;
    case SValue::Kind::Dtype: return a.type == b.type;
    case SValue::Kind::Function: return a.fn == b.fn;
    case SValue::Kind::Block:
      if (*a.block != *b.block) return false;
      [[fallthrough]];
    case SValue::Kind::TupleClass:
      if (a.str != b.str || a.fields != b.fields) return false;
      [[fallthrough]];
    case SValue::Kind::Method:
    case SValue::Kind::Tuple:
      if (a.str != b.str || a.elts.size() != b.elts.size()) return false;
      for (size_t i = 0; i < a.elts.size(); ++i)
        if (!sameValue(a.elts[i], b.elts[i])) return false;
      return true;
  }
  return false;
}

bool containsIR(const SValue& v) {
  if (v.isIR()) return true;
  return std::any_of(v.elts.begin(), v.elts.end(), [](const SValue& e) { return containsIR(e); });
}

std::string typeDescription(const SValue& v) {
  if (v.isIR() && v.ir) return v.ir->type.str();
  return v.describe();
}

}  // namespace kiln::sema

namespace kiln::sema {

std::unique_ptr<ir::Module> lowerKernel(const ast::Module& module, std::string_view kernel,
                                        const Signature& signature, int numWarps) {
  Lowerer lowerer(module, kernel);
  lowerer.cx().numWarps = numWarps;
  return lowerer.run(signature);
}

}  // namespace kiln::sema
