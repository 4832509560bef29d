// Calls: builtins and methods go to callBuiltin(); calls of @jit helpers are inlined: arguments
// bound to parameters (positional, keyword, defaults), the body lowered in a fresh scope, the
// returned value handed back. Recursion is an error; errors inside a helper note the call site.
#include "sema/lower.h"

namespace kiln::sema {

namespace {

constexpr size_t kMaxInlineDepth = 64;

std::string plural(size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

}  // namespace

SValue Lowerer::call(const ast::Expr& e) {
  SValue callee = expr(*e.elts[0]);
  if (isIterationBuiltin(callee))
    fail(e.loc, "'" + callee.str + "' can only be used as the iterable of a for loop");
  std::vector<SValue> args;
  for (size_t i = 1; i < e.elts.size(); ++i) {
    const ast::Expr& a = *e.elts[i];
    if (a.kind != ast::ExprKind::Starred) {
      args.push_back(expr(a));
      continue;
    }
    SValue t = expr(*a.elts[0]);  // f(x, *t): t's elements, in order
    if (t.kind != SValue::Kind::Tuple)
      fail(a.loc, "argument after * must be a tuple, got " + typeDescription(t));
    for (SValue& x : t.elts) args.push_back(std::move(x));
  }
  Kwargs kwargs;
  for (const auto& kw : e.keywords) kwargs.push_back({kw.name, expr(*kw.value)});
  switch (callee.kind) {
    case SValue::Kind::Function: return callFunction(*callee.fn, std::move(args), std::move(kwargs), e.loc);
    case SValue::Kind::TupleClass: return newNamedTuple(callee, std::move(args), kwargs, e.loc);
    case SValue::Kind::Builtin:
    case SValue::Kind::Method: {
      SValue hinted = args.empty() ? SValue::none() : args[0];
      SValue result = callBuiltin(cx_, callee, std::move(args), std::move(kwargs), e.loc);
      attachHint(hinted, result);
      return result;
    }
    case SValue::Kind::IR:
    case SValue::Kind::Int:
    case SValue::Kind::Float:
    case SValue::Kind::Bool:
    case SValue::Kind::Str:
    case SValue::Kind::None:
    case SValue::Kind::Dtype:
    case SValue::Kind::Tuple:
    case SValue::Kind::Namespace:
    case SValue::Kind::Slice:
    case SValue::Kind::Block: break;
  }
  fail(e.elts[0]->loc, typeDescription(callee) + " is not callable");
}

// `tl.multiple_of(x, ...)` and `tl.max_contiguous(x, ...)` promise something about the value x itself:
// Triton attaches the hint to x, so a call whose result is dropped (`tl.multiple_of(ptrs, [16, 16])`
// as a statement, as Triton's tutorials write it) still holds for every later use of x. Here every
// name of this function bound to x is rebound to the hint's result. The rebinding lives in the current
// scope, so it follows the function's control flow: inside a loop body or a branch it lasts to the
// end of that region unless the name is carried out of it, which keeps every use dominated.
void Lowerer::attachHint(const SValue& input, const SValue& result) {
  if (!input.isIR() || !result.isIR() || input.ir == result.ir || !result.ir->def) return;
  const ir::Op& def = *result.ir->def;
  if (def.opcode != ir::Opcode::MultipleOf && def.opcode != ir::Opcode::MaxContiguous) return;
  if (def.numOperands() != 1 || def.operand(0) != input.ir) return;
  std::vector<std::string> names;
  for (const auto& [name, v] : scope().vars())
    if (v.isIR() && v.ir == input.ir) names.push_back(name);
  for (const auto& name : names) scope().set(name, result);
}

SValue Lowerer::callFunction(const ast::FunctionDef& fn, std::vector<SValue> args, Kwargs kwargs,
                             const SourceLoc& loc) {
  // Recursion: the helpers being inlined form the chain kernel -> ... -> caller.
  std::vector<const ast::FunctionDef*> chain;
  for (const auto& f : frames_)
    if (f->fn) chain.push_back(f->fn);
  for (size_t i = 0; i < chain.size(); ++i) {
    if (chain[i] != &fn) continue;
    std::string path;
    for (size_t j = i; j < chain.size(); ++j) path += chain[j]->name + " -> ";
    CompileError err(loc, "recursive call to '" + fn.name + "' is not supported (" + path + fn.name + ")");
    err.diag().notes.push_back(Diagnostic{Diagnostic::Kind::Note, fn.loc, "'" + fn.name + "' is defined here", {}});
    throw err;
  }
  if (chain.size() > kMaxInlineDepth)
    fail(loc, "helpers are inlined more than " + std::to_string(kMaxInlineDepth) + " levels deep");
  countWork(loc);

  // Bind the arguments like Python does.
  const size_t n = fn.params.size();
  const std::string who = "helper '" + fn.name + "'";
  if (args.size() > n)
    fail(loc, who + " takes " + plural(n, "argument") + " but " + std::to_string(args.size()) +
                  (args.size() == 1 ? " was" : " were") + " given");
  std::vector<std::optional<SValue>> bound(n);
  for (size_t i = 0; i < args.size(); ++i) bound[i] = std::move(args[i]);
  for (auto& [name, v] : kwargs) {
    size_t i = 0;
    while (i < n && fn.params[i].name != name) ++i;
    if (i == n) fail(loc, who + " has no parameter named '" + name + "'");
    if (bound[i]) fail(loc, who + " got multiple values for argument '" + name + "'");
    bound[i] = std::move(v);
  }
  for (size_t i = 0; i < n; ++i) {
    const ast::Param& p = fn.params[i];
    if (!bound[i]) {
      if (!p.defaultValue) fail(loc, who + " is missing the argument '" + p.name + "'");
      bound[i] = evalInModuleScope(*p.defaultValue);
    }
    // A `tl.constexpr` annotation on a helper's parameter does not require a constexpr: as in Triton, a
    // helper is specialized on what it is called with (a kernel's own constexprs come from its signature).
  }

  FrameGuard frame(*this, &fn);
  for (size_t i = 0; i < n; ++i) scope().set(fn.params[i].name, std::move(*bound[i]));
  try {
    Flow f = stmts(fn.body, 0, nullptr, /*tail=*/true);
    return f.returned ? f.value : SValue::none();
  } catch (CompileError& err) {
    err.diag().notes.push_back(
        Diagnostic{Diagnostic::Kind::Note, loc, "in '" + fn.name + "' called from here", {}});
    throw;
  }
}

}  // namespace kiln::sema
