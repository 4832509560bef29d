// `if` statements and conditional expressions: a constexpr condition folds to the taken branch;
// otherwise an `if` op whose results are the variables (or return values) that the two branches
// leave different, with one type per result. An `if` also takes a one-element tile, as in Triton.
#include "sema/lower.h"

namespace kiln::sema {

namespace {

bool isLeaf(const SValue& v) { return v.isIR() || v.isNumber(); }

// The type two constexpr numbers share once materialized: float wins, then the wider integer.
ir::Type numberType(const SValue& a, const SValue& b) {
  if (a.kind == SValue::Kind::Float || b.kind == SValue::Kind::Float) return ir::Type::scalar(ir::Scalar::F32);
  ir::Type ta = typeOf(a), tb = typeOf(b);
  if (ta == tb) return ta;
  if (ta.isBool()) return tb;
  if (tb.isBool()) return ta;
  return ir::bitWidth(ta.elem) >= ir::bitWidth(tb.elem) ? ta : tb;
}

}  // namespace

void Lowerer::collectMerge(const SValue& a, const SValue& b, Merge& m, const std::string& what,
                           const SourceLoc& loc) {
  if (sameValue(a, b)) return;
  auto mismatch = [&]() {
    if (a.isIR() && b.isIR())
      fail(loc, what + " has type " + a.ir->type.str() + " in the then-branch and " + b.ir->type.str() +
                    " in the else-branch");
    fail(loc, what + " is " + a.describe() + " in the then-branch but " + b.describe() + " in the else-branch");
  };
  if (a.isAggregate() && a.kind == b.kind) {
    if (a.elts.size() != b.elts.size() || (a.block && *a.block != *b.block)) mismatch();
    for (size_t i = 0; i < a.elts.size(); ++i)
      collectMerge(a.elts[i], b.elts[i], m, what + " (element " + std::to_string(i) + ")", loc);
    return;
  }
  if (!isLeaf(a) || !isLeaf(b)) mismatch();
  ir::Type t;
  if (a.isIR() && b.isIR()) {
    if (a.ir->type != b.ir->type) mismatch();
    t = a.ir->type;
  } else if (a.isIR() || b.isIR()) {  // a constexpr number takes the type of the other side
    t = a.isIR() ? a.ir->type : b.ir->type;
    if (t.isPtr()) mismatch();
  } else {
    t = numberType(a, b);
  }
  m.thenLeaves.push_back(a);
  m.elseLeaves.push_back(b);
  m.types.push_back(t);
}

SValue rebuildMerged(const SValue& a, const SValue& b, const std::vector<ir::Value*>& results, size_t& idx) {
  if (sameValue(a, b)) return a;
  if (a.isAggregate() && a.kind == b.kind) {  // a NamedTuple keeps its fields, a block its facts
    SValue out = a;
    for (size_t i = 0; i < a.elts.size(); ++i) out.elts[i] = rebuildMerged(a.elts[i], b.elts[i], results, idx);
    return out;
  }
  return SValue::irValue(results.at(idx++));
}

void Lowerer::yieldLeaves(ir::Block& block, const std::vector<SValue>& leaves, const std::vector<ir::Type>& types,
                          const SourceLoc& loc) {
  InsertionGuard guard(cx_.b);
  cx_.b.setInsertionPointToEnd(block);
  std::vector<ir::Value*> vals;
  for (size_t i = 0; i < leaves.size(); ++i) {
    ir::Value* v = leaves[i].isIR() ? leaves[i].ir : materialize(cx_, leaves[i], loc);
    if (v->type != types[i]) v = castTo(cx_, v, types[i], loc);
    vals.push_back(v);
  }
  cx_.b.create(ir::Opcode::Yield, vals, {}, {}, loc);
}

std::optional<Flow> Lowerer::ifStmt(const ast::Stmt& s, const Continuation* rest) {
  SValue cond = expr(*s.value);
  if (!cond.isIR()) {
    const ast::Body& taken = constexprTruth(cond, s.value->loc, "if condition") ? s.body : s.orelse;
    if (rest) return stmts(taken, 0, rest, true);
    stmts(taken, 0, nullptr, false);
    return std::nullopt;
  }
  // As in Triton, an `if` (not a while or a conditional expression) takes a one-element tile,
  // which it unsplats; a larger tile is ambiguous.
  if (cond.ir->type.isTensor()) {
    if (cond.ir->type.numel() != 1)
      fail(s.value->loc, "Boolean value of Tensor with more than one value is ambiguous: the if condition is " +
                             cond.describe() + " (use tl.where to select element-wise, or reduce the tensor first)");
    cond = SValue::irValue(unsplat(cx_, cond.ir, s.value->loc));
  }
  ir::Value* c = scalarCondition(cond, s.value->loc, "if condition");
  ir::Op* op = cx_.b.create(ir::Opcode::If, {c}, {}, {}, s.loc);
  Scope before = scope();
  const ast::Body* branches[2] = {&s.body, &s.orelse};
  Scope ends[2];

  bool returning = rest && (containsReturn(s.body) || containsReturn(s.orelse));
  if (returning) {
    // A return in a branch ends the function: the rest of the function moves into each branch
    // that can fall through, and the `if` yields the returned values.
    SValue values[2];
    for (int i = 0; i < 2; ++i) {
      InsertionGuard guard(cx_.b);
      cx_.b.setInsertionPointToEnd(op->region(i));
      scope() = before;
      Flow f = stmts(*branches[i], 0, definitelyReturns(*branches[i]) ? nullptr : rest, true);
      values[i] = f.returned ? f.value : SValue::none();
    }
    scope() = before;
    Merge m;
    collectMerge(values[0], values[1], m, "the return value", s.loc);
    yieldLeaves(op->region(0), m.thenLeaves, m.types, s.loc);
    yieldLeaves(op->region(1), m.elseLeaves, m.types, s.loc);
    std::vector<ir::Value*> results;
    for (const auto& t : m.types) results.push_back(op->addResult(t));
    size_t idx = 0;
    return Flow{true, rebuildMerged(values[0], values[1], results, idx)};
  }

  for (int i = 0; i < 2; ++i) {
    InsertionGuard guard(cx_.b);
    cx_.b.setInsertionPointToEnd(op->region(i));
    scope() = before;
    stmts(*branches[i], 0, nullptr, false);
    ends[i] = std::move(scope());
  }
  mergeBranches(op, before, ends, s.loc);
  return std::nullopt;
}

// Variables that differ at the end of the branches become results of `op`; those defined in one
// branch only go out of view.
void Lowerer::mergeBranches(ir::Op* op, const Scope& before, Scope (&ends)[2], const SourceLoc& loc) {
  Scope after = before;
  Merge m;
  std::vector<std::string> merged;
  std::set<std::string> names;
  for (const auto& e : ends)
    for (const auto& [n, v] : e.vars()) names.insert(n);
  for (const auto& n : names) {
    const SValue* t = ends[0].find(n);
    const SValue* e = ends[1].find(n);
    if (!t || !e) {
      const Diagnostic* why = ends[t ? 1 : 0].whyHidden(n);
      if (why) after.hide(n, why->loc, why->message);
      else after.hide(n, loc, "'" + n + "' is assigned in only one branch of this if, so it is not defined after it");
      continue;
    }
    const SValue* b = before.find(n);
    if (b && sameValue(*b, *t) && sameValue(*b, *e)) continue;
    collectMerge(*t, *e, m, "variable '" + n + "'", loc);
    merged.push_back(n);
  }
  // Names hidden in a branch (e.g. a loop variable) and bound in neither stay hidden after the if.
  for (const auto& e : ends)
    for (const auto& [n, why] : e.hidden())
      if (!ends[0].find(n) && !ends[1].find(n)) after.hide(n, why.loc, why.message);

  yieldLeaves(op->region(0), m.thenLeaves, m.types, loc);
  yieldLeaves(op->region(1), m.elseLeaves, m.types, loc);
  std::vector<ir::Value*> results;
  for (const auto& t : m.types) results.push_back(op->addResult(t));
  size_t idx = 0;
  for (const auto& n : merged) after.set(n, rebuildMerged(*ends[0].find(n), *ends[1].find(n), results, idx));
  scope() = std::move(after);
}

SValue Lowerer::ifExp(const ast::Expr& e) {
  SValue cond = expr(*e.elts[0]);
  if (!cond.isIR())
    return expr(constexprTruth(cond, e.elts[0]->loc, "condition") ? *e.elts[1] : *e.elts[2]);
  ir::Value* c = scalarCondition(cond, e.elts[0]->loc, "the condition of a conditional expression");
  ir::Op* op = cx_.b.create(ir::Opcode::If, {c}, {}, {}, e.loc);
  SValue values[2];
  for (int i = 0; i < 2; ++i) {
    InsertionGuard guard(cx_.b);
    cx_.b.setInsertionPointToEnd(op->region(i));
    values[i] = expr(*e.elts[1 + i]);
  }
  Merge m;
  collectMerge(values[0], values[1], m, "the conditional expression", e.loc);
  yieldLeaves(op->region(0), m.thenLeaves, m.types, e.loc);
  yieldLeaves(op->region(1), m.elseLeaves, m.types, e.loc);
  std::vector<ir::Value*> results;
  for (const auto& t : m.types) results.push_back(op->addResult(t));
  size_t idx = 0;
  return rebuildMerged(values[0], values[1], results, idx);
}

}  // namespace kiln::sema
