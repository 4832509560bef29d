// Expressions: literals, names, tuples, and the dispatch of operators, attributes and subscripts to
// the value operations of context.h; `and`/`or` with Python's short-circuit on constexprs, and
// comparison chains.
#include <cstdint>

#include "sema/lower.h"
#include "sema/value_bounds.h"

namespace kiln::sema {

namespace {

// `a and b and c` / `a or b or c`: a constexpr left operand decides with Python semantics (the
// result is one of the operands); otherwise both sides are evaluated and combined with logical().
SValue boolOp(Lowerer& L, const ast::Expr& e) {
  SValue acc = L.expr(*e.elts[0]);
  bool isAnd = e.boolOp == ast::BoolOp::And;
  for (size_t i = 1; i < e.elts.size(); ++i) {
    if (!containsIR(acc)) {
      bool truth = constexprTruth(acc, e.elts[i - 1]->loc, isAnd ? "and" : "or");
      if (truth != isAnd) return acc;  // `False and x` -> False, `True or x` -> True
      acc = L.expr(*e.elts[i]);
      continue;
    }
    SValue rhs = L.expr(*e.elts[i]);
    acc = logical(L.cx(), e.boolOp, acc, rhs, e.loc);
  }
  return acc;
}

// `a < b <= c`: each link through compare(), the links joined by `and` (short-circuit while the
// links are constexpr); each operand is evaluated once.
SValue compareChain(Lowerer& L, const ast::Expr& e) {
  SValue left = L.expr(*e.elts[0]);
  SValue result;
  for (size_t i = 0; i < e.cmpOps.size(); ++i) {
    SValue right = L.expr(*e.elts[i + 1]);
    SValue link = compare(L.cx(), e.cmpOps[i], left, right, e.loc);
    if (i == 0) {
      result = link;
    } else if (!containsIR(result)) {
      result = link;  // the earlier links held (or we would have returned)
    } else {
      result = logical(L.cx(), ast::BoolOp::And, result, link, e.loc);
    }
    if (!containsIR(result) && i + 1 < e.cmpOps.size() && !constexprTruth(result, e.loc, "comparison"))
      return result;
    left = right;
  }
  return result;
}

SValue subscriptExpr(Lowerer& L, const ast::Expr& e) {
  SValue obj = L.expr(*e.elts[0]);
  std::vector<SValue> indices;
  for (size_t i = 1; i < e.elts.size(); ++i) {
    const ast::Expr& ix = *e.elts[i];
    if (ix.kind == ast::ExprKind::Slice) {
      // The bounds are evaluated (absent ones are None): `x[None:]` is a ':' on a tensor, and
      // tuples take constexpr bounds (`t[1:]`); subscript() judges them.
      SValue sl = SValue::slice();
      bool bounded = false;
      for (size_t p = 0; p < 3; ++p) {
        const ast::Expr* part = p < ix.elts.size() ? ix.elts[p].get() : nullptr;
        sl.elts.push_back(part ? L.expr(*part) : SValue::none());
        bounded = bounded || sl.elts.back().kind != SValue::Kind::None;
      }
      if (!bounded) sl.elts.clear();
      indices.push_back(std::move(sl));
    } else {
      indices.push_back(L.expr(ix));
    }
  }
  return subscript(L.cx(), obj, indices, e.loc);
}

}  // namespace

SValue Lowerer::expr(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::Name: return lookup(e.name, e.loc);
    case ast::ExprKind::Int: {
      SValue v = SValue::integer(int64_t(e.intValue));
      v.u64 = e.intValue > uint64_t(INT64_MAX);  // [2^63, 2^64): uint64, as Triton types it
      return v;
    }
    case ast::ExprKind::Float: return SValue::real(e.floatValue);
    case ast::ExprKind::Str: return SValue::string(e.str);
    case ast::ExprKind::Bool: return SValue::boolean(e.intValue != 0);
    case ast::ExprKind::NoneLit: return SValue::none();
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
      // Bounded element by element (value.h): `t = (t, t)` in an unrolled loop doubles t.
      std::vector<SValue> elts;
      ValueBudget budget;
      budget.take(SValue::tuple({}));
      for (const auto& x : e.elts) {
        elts.push_back(expr(*x));
        if (!budget.take(elts.back())) fail(e.loc, budget.whyNot(SValue::tuple({})));
      }
      return SValue::tuple(std::move(elts));
    }
    case ast::ExprKind::BinOp: {
      SValue a = expr(*e.elts[0]);
      SValue b = expr(*e.elts[1]);
      return binary(cx_, e.binOp, a, b, e.loc);
    }
    case ast::ExprKind::UnaryOp: return unary(cx_, e.unaryOp, expr(*e.elts[0]), e.loc);
    case ast::ExprKind::BoolOp: return boolOp(*this, e);
    case ast::ExprKind::Compare: return compareChain(*this, e);
    case ast::ExprKind::Call: return call(e);
    case ast::ExprKind::Attribute: return attribute(cx_, expr(*e.elts[0]), e.name, e.loc);
    case ast::ExprKind::Subscript: return subscriptExpr(*this, e);
    case ast::ExprKind::Slice: fail(e.loc, "a slice can only appear inside [...]");
    case ast::ExprKind::IfExp: return ifExp(e);
    case ast::ExprKind::ListComp: return listComprehension(e);
    case ast::ExprKind::Starred: fail(e.loc, "starred expressions are only supported as call arguments in kernels");
  }
  throw InternalError(e.loc, "unknown expression kind");
}

ir::Value* Lowerer::scalarCondition(const SValue& c, const SourceLoc& loc, const char* what) {
  if (!c.isIR()) throw InternalError(loc, "scalarCondition on a constexpr");
  const ir::Type& t = c.ir->type;
  if (t.isTensor())
    fail(loc, std::string(what) + " must be a scalar, got a " + t.str() +
                  " (use tl.where to select element-wise, or reduce the tensor first)");
  if (t.isBool()) return c.ir;
  SValue b = compare(cx_, ast::CmpOp::NotEq, c, SValue::integer(0), loc);
  if (!b.isIR() || !b.ir->type.isBool() || b.ir->type.isTensor())
    throw InternalError(loc, "compare() did not produce an i1 scalar for a condition");
  return b.ir;
}

// `[element for target in iterable]`, as Triton takes it: over a tuple, giving a tuple; the target is
// assigned as by a `for` and stays bound afterwards.
SValue Lowerer::listComprehension(const ast::Expr& e) {
  SValue iterable = expr(*e.elts[2]);
  if (iterable.kind != SValue::Kind::Tuple)
    fail(e.elts[2]->loc, "a list comprehension in a kernel iterates over a tuple, not " + iterable.describe());
  std::vector<SValue> out;
  for (const SValue& x : iterable.elts) {
    countWork(e.loc);
    assign(*e.elts[1], x, e.elts[1]->loc);
    out.push_back(expr(*e.elts[0]));
  }
  return SValue::tuple(std::move(out));
}

}  // namespace kiln::sema
