// Loops: `for` over range / tl.range (a `for` op), tl.static_range and tuples (unrolled in sema),
// and `while` (a `while` op). Loop-carried values are the names a body assigns that are bound
// before the loop; constexpr numbers among them are materialized, with the type the body gives
// them when a first (discarded) lowering of the body shows that it changes.
#include "sema/loop_header.h"
#include "sema/lower.h"

namespace kiln::sema {

struct Lowerer::Carried {
  std::string name;
  SourceLoc loc;                // where the body assigns it
  SValue init;                  // its value before the loop
  bool frozen = false;          // a compile-time value the body must leave unchanged
  std::vector<SValue> leaves;   // IR values and constexpr numbers of `init`, in order
  std::vector<ir::Type> types;  // the type of each leaf inside the loop
};

namespace {

constexpr int64_t kMaxStaticIterations = 4096;
constexpr int kMaxDryRunDepth = 2;  // nested loops relowered to find carried types; bounds the work

bool carriable(const SValue& v) {
  if (v.isAggregate()) {
    for (const auto& e : v.elts)
      if (!carriable(e)) return false;
    return !v.elts.empty();
  }
  return v.isIR() || v.isNumber();
}

void flatten(const SValue& v, std::vector<SValue>& out) {
  if (v.isAggregate()) {
    for (const auto& e : v.elts) flatten(e, out);
  } else {
    out.push_back(v);
  }
}

// `tmpl` with its leaves replaced, in order, by vals[idx...] (a NamedTuple keeps its fields, a block
// its facts).
SValue rebuildFrom(const SValue& tmpl, const std::vector<ir::Value*>& vals, size_t& idx) {
  if (!tmpl.isAggregate()) return SValue::irValue(vals.at(idx++));
  SValue out = tmpl;
  for (auto& e : out.elts) e = rebuildFrom(e, vals, idx);
  return out;
}

bool sameStructure(const SValue& a, const SValue& b) {
  if (a.isAggregate() != b.isAggregate()) return false;
  if (!a.isAggregate()) return true;
  if (a.kind != b.kind || a.elts.size() != b.elts.size() || (a.block && *a.block != *b.block)) return false;
  for (size_t i = 0; i < a.elts.size(); ++i)
    if (!sameStructure(a.elts[i], b.elts[i])) return false;
  return true;
}

// An unrolled loop stops unrolling once a break ran on every path.
bool brokeAlways(const std::optional<LoopExit>& exit, const Scope& scope) {
  const SValue* broke = exit && exit->hasBreak ? scope.find(exit->broke) : nullptr;
  return broke && !broke->isIR() && broke->i != 0;
}

}  // namespace

std::vector<Lowerer::Carried> Lowerer::carriedValues(const ast::Body& body, const std::set<std::string>& exclude) {
  std::vector<Assigned> names;
  assignedNames(body, names);
  std::vector<Carried> out;
  for (const auto& a : names) {
    if (exclude.count(a.name)) continue;
    const SValue* v = scope().find(a.name);
    if (!v) continue;  // first defined in the body: not visible after the loop
    Carried c;
    c.name = a.name;
    c.loc = a.loc;
    c.init = *v;
    c.frozen = !carriable(*v);
    if (!c.frozen) {
      flatten(*v, c.leaves);
      for (const auto& l : c.leaves) c.types.push_back(l.isIR() ? l.ir->type : typeOf(l));
    }
    out.push_back(std::move(c));
  }
  return out;
}

void Lowerer::bindCarried(const std::vector<Carried>& carried, ir::Block& block) {
  for (const auto& c : carried) {
    if (c.frozen) continue;
    std::vector<ir::Value*> args;
    for (const auto& t : c.types) args.push_back(block.addArg(t));
    size_t idx = 0;
    scope().set(c.name, rebuildFrom(c.init, args, idx));
  }
}

// A constexpr number carried through a loop takes the type the body gives it (`acc = 0` then
// `acc += x` with x an f32 tile carries an f32 tile), found by lowering the body once into a
// scratch block that is then thrown away.
void Lowerer::refineCarriedTypes(std::vector<Carried>& carried, const ast::Body& body, const ast::Expr* target,
                                 const ir::Type& ivType) {
  bool anyNumber = false;
  for (const auto& c : carried)
    for (const auto& l : c.leaves) anyNumber = anyNumber || l.isNumber();
  if (!anyNumber || dryRunDepth_ >= kMaxDryRunDepth) return;
  ir::Block scratch;
  Scope saved = scope();
  ++dryRunDepth_;
  try {
    InsertionGuard guard(cx_.b);
    cx_.b.setInsertionPointToEnd(scratch);
    if (target) assign(*target, SValue::irValue(scratch.addArg(ivType)), target->loc);
    bindCarried(carried, scratch);
    loopBody(body, target != nullptr, target ? target->loc : SourceLoc{});
    for (auto& c : carried) {
      const SValue* end = scope().find(c.name);
      if (c.frozen || !end || !sameStructure(c.init, *end)) continue;
      std::vector<SValue> ends;
      flatten(*end, ends);
      for (size_t i = 0; i < c.leaves.size(); ++i)
        if (c.leaves[i].isNumber() && ends[i].isIR() && !ends[i].ir->type.isPtr()) c.types[i] = ends[i].ir->type;
    }
  } catch (...) {
    --dryRunDepth_;
    scope() = std::move(saved);
    throw;
  }
  --dryRunDepth_;
  scope() = std::move(saved);
}

// A loop with a break carries its `broke` flag (lower_loop_exit.cpp): false before it, i1 inside.
void Lowerer::addBreakFlag(std::vector<Carried>& carried, const LoopExit& exit, const SourceLoc& loc) {
  if (!exit.hasBreak) return;
  Carried c;
  c.name = exit.broke;
  c.loc = loc;
  c.init = SValue::boolean(false);
  c.leaves = {c.init};
  c.types = {ir::Type::scalar(ir::Scalar::I1)};
  carried.push_back(std::move(c));
}

std::vector<ir::Value*> Lowerer::carriedAtEnd(const std::vector<Carried>& carried) {
  std::vector<ir::Value*> out;
  for (const auto& c : carried) {
    const SValue* end = scope().find(c.name);
    if (!end) {
      CompileError err(c.loc, "loop-carried variable '" + c.name + "' is not defined at the end of the loop body");
      if (const Diagnostic* why = scope().whyHidden(c.name)) err.diag().notes.push_back(*why);
      throw err;
    }
    if (c.frozen) {
      if (!sameValue(c.init, *end))
        fail(c.loc, "cannot reassign '" + c.name + "' inside a loop: before the loop it is " + typeDescription(c.init) +
                        ", a compile-time value that cannot change from one iteration to the next, and the body "
                        "makes it " + typeDescription(*end));
      continue;
    }
    auto mismatch = [&](const std::string& before, const SValue& after) {
      fail(c.loc, "loop-carried variable '" + c.name + "' is a " + before + " before the loop but " +
                      (after.isIR() ? "a " + after.ir->type.str() : typeDescription(after)) + " at the end of the body");
    };
    if (!sameStructure(c.init, *end)) mismatch(typeDescription(c.init), *end);
    std::vector<SValue> ends;
    flatten(*end, ends);
    for (size_t i = 0; i < ends.size(); ++i) {
      const ir::Type& t = c.types[i];
      const SValue& e = ends[i];
      ir::Value* v = nullptr;
      if (e.isNumber()) {
        if (t.isPtr()) mismatch(t.str(), e);
        v = materialize(cx_, e, c.loc);
      } else if (e.isIR()) {
        if (e.ir->type.shape != t.shape || e.ir->type.isPtr() != t.isPtr()) mismatch(t.str(), e);
        // Triton rejects a runtime value whose dtype the body changes; converting it back each
        // iteration would silently truncate. (A constexpr number before the loop took the body's type.)
        if (c.leaves[i].isIR() && e.ir->type != t) mismatch(t.str(), e);
        v = e.ir;
      } else {
        mismatch(t.str(), e);
      }
      if (v->type != t) v = castTo(cx_, v, t, c.loc);
      out.push_back(v);
    }
  }
  return out;
}

void Lowerer::afterLoop(const Scope& before, const Scope& end, const std::vector<Carried>& carried, ir::Op* loop,
                        const std::set<std::string>& loopVars, const SourceLoc& loc) {
  Scope after = before;
  std::vector<ir::Value*> results;
  for (const auto& r : loop->results) results.push_back(r.get());
  size_t idx = 0;
  for (const auto& c : carried)
    if (!c.frozen) after.set(c.name, rebuildFrom(c.init, results, idx));
  for (const auto& [n, v] : end.vars())
    if (!before.find(n) && !loopVars.count(n))
      after.hide(n, loc, "'" + n + "' is first assigned inside this loop; names first assigned in a loop body "
                         "are not visible after the loop (assign it before the loop)");
  for (const auto& n : loopVars)
    after.hide(n, loc, "'" + n + "' is the variable of this loop, which is not visible after the loop");
  scope() = std::move(after);
}

void Lowerer::forStmt(const ast::Stmt& s) {
  if (!s.orelse.empty()) fail(s.loc, "'else' after a loop is not supported in kernels");
  const ast::Expr& it = *s.value;
  if (it.kind == ast::ExprKind::Call) {
    SValue callee = expr(*it.elts[0]);
    RangeKind kind = rangeKind(callee);
    if (kind != RangeKind::NotRange) {
      std::vector<SValue> args;
      for (size_t i = 1; i < it.elts.size(); ++i) args.push_back(expr(*it.elts[i]));
      Kwargs kwargs;
      for (const auto& kw : it.keywords) kwargs.push_back({kw.name, expr(*kw.value)});
      if (kind != RangeKind::Python)
        bindRangeKeywords(args, kwargs, kind == RangeKind::Static ? "tl.static_range" : "tl.range", it.loc);
      if (kind == RangeKind::Static) {
        for (const auto& kw : it.keywords)
          if (!kwargs.empty() && kw.name == kwargs[0].first)
            fail(kw.loc, "tl.static_range() got an unexpected keyword argument '" + kw.name +
                             "' (it takes arg1, arg2 and step)");
        staticFor(s, std::move(args));
      } else {
        if (kind == RangeKind::Python && !kwargs.empty())
          fail(it.keywords[0].loc, "range() takes no keyword arguments (tl.range takes the loop options)");
        dynamicFor(s, callee.str, args, kwargs);
      }
      return;
    }
  }
  SValue v = expr(it);
  if (v.kind == SValue::Kind::Tuple) return unrolledFor(s, v.elts);
  fail(it.loc, "a kernel loop must iterate over range(...), tl.range(...), tl.static_range(...) or a tuple, not " +
                   typeDescription(v));
}

void Lowerer::staticFor(const ast::Stmt& s, std::vector<SValue> args) {
  const SourceLoc& loc = s.value->loc;
  if (args.empty() || args.size() > 3)
    fail(loc, "tl.static_range takes 1 to 3 arguments, got " + std::to_string(args.size()));
  for (const auto& a : args)
    if (a.kind != SValue::Kind::Int && a.kind != SValue::Kind::Bool)
      fail(loc, "static_range bounds must be constexpr integers, got " + typeDescription(a));
  int64_t start = args.size() == 1 ? 0 : args[0].i, end = args.size() == 1 ? args[0].i : args[1].i;
  int64_t step = args.size() == 3 ? args[2].i : 1;
  if (step == 0) fail(loc, "the step of tl.static_range must not be zero");
  // Python's range length, computed without overflow.
  __int128 span = step > 0 ? __int128(end) - start : __int128(start) - end;
  __int128 count = span <= 0 ? 0 : (span + (step > 0 ? step : -__int128(step)) - 1) / (step > 0 ? step : -__int128(step));
  if (count > kMaxStaticIterations)
    fail(loc, "tl.static_range would unroll " + std::to_string(int64_t(count)) + " iterations (at most " +
                  std::to_string(kMaxStaticIterations) + ")");
  std::optional<LoopExit> exit = loopExitOf(s.body);
  ExitScope exits(*this, exit);
  for (int64_t k = 0; k < int64_t(count) && !brokeAlways(exit, scope()); ++k) {
    assign(*s.targets[0], SValue::integer(start + k * step), s.loc);
    loopBody(s.body, true, s.loc);
  }
  std::set<std::string> vars;
  targetNames(*s.targets[0], vars);
  for (const auto& n : vars)
    scope().hide(n, s.loc, "'" + n + "' is the variable of this loop, which is not visible after the loop");
}

void Lowerer::unrolledFor(const ast::Stmt& s, const std::vector<SValue>& items) {
  std::optional<LoopExit> exit = loopExitOf(s.body);
  ExitScope exits(*this, exit);
  for (size_t k = 0; k < items.size() && !brokeAlways(exit, scope()); ++k) {
    assign(*s.targets[0], items[k], s.loc);
    loopBody(s.body, true, s.loc);
  }
  std::set<std::string> vars;
  targetNames(*s.targets[0], vars);
  for (const auto& n : vars)
    scope().hide(n, s.loc, "'" + n + "' is the variable of this loop, which is not visible after the loop");
}

void Lowerer::dynamicFor(const ast::Stmt& s, const std::string& rangeName, const std::vector<SValue>& args,
                         const Kwargs& kwargs) {
  const SourceLoc& loc = s.value->loc;
  std::string what = rangeName == "range" ? "range" : "tl.range";
  if (args.empty() || args.size() > 3)
    fail(loc, what + " takes 1 to 3 arguments, got " + std::to_string(args.size()));
  std::vector<ir::Attr> attrs;
  for (const auto& [name, v] : kwargs) {
    bool known = false;
    for (const char* a : kLoopOptions) known = known || name == a;
    if (!known) fail(loc, "tl.range has no keyword argument '" + name + "'");
    if (v.kind != SValue::Kind::Int && v.kind != SValue::Kind::Bool)
      fail(loc, "the '" + name + "' of tl.range must be a constexpr integer, got " + typeDescription(v));
    attrs.push_back(ir::Attr{name, v.i});
  }
  SValue bounds[3] = {args.size() == 1 ? SValue::integer(0) : args[0], args.size() == 1 ? args[0] : args[1],
                      args.size() == 3 ? args[2] : SValue::integer(1)};
  const char* names[3] = {"start", "end", "step"};
  bool wide = false;
  for (int i = 0; i < 3; ++i) {
    const SValue& b = bounds[i];
    if (b.isIR()) {
      const ir::Type& t = b.ir->type;
      if (t.isTensor()) fail(loc, "the " + std::string(names[i]) + " of " + what + " must be a scalar, got a " + t.str());
      if (!t.isInt() || t.isBool())
        fail(loc, "the " + std::string(names[i]) + " of " + what + " must be an integer, got " + t.str());
    } else if (b.kind != SValue::Kind::Int && b.kind != SValue::Kind::Bool) {
      fail(loc, "the " + std::string(names[i]) + " of " + what + " must be an integer, got " + typeDescription(b));
    }
    wide = wide || ir::bitWidth(typeOf(b).elem) == 64;
  }
  if (!bounds[2].isIR() && bounds[2].i <= 0)
    fail(loc, "the step of " + what + " must be positive, got " + std::to_string(bounds[2].i));
  ir::Type ivType = ir::Type::scalar(wide ? ir::Scalar::I64 : ir::Scalar::I32);
  std::vector<ir::Value*> operands;
  for (const auto& b : bounds) {
    ir::Value* v = b.isIR() ? b.ir : cx_.b.intConst(b.i, ivType, loc);
    if (v->type != ivType) v = castTo(cx_, v, ivType, loc);
    operands.push_back(v);
  }

  const ast::Expr& target = *s.targets[0];
  if (target.kind != ast::ExprKind::Name)
    fail(target.loc, "the variable of a " + what + " loop must be a single name");
  std::optional<LoopExit> exit = loopExitOf(s.body);
  ExitScope exits(*this, exit);
  std::vector<Carried> carried = carriedValues(s.body, {target.name});
  if (exit) addBreakFlag(carried, *exit, s.loc);
  refineCarriedTypes(carried, s.body, &target, ivType);
  std::vector<ir::Type> types;
  for (const auto& c : carried)
    for (size_t i = 0; i < c.leaves.size(); ++i) {
      const SValue& l = c.leaves[i];
      ir::Value* v = l.isIR() ? l.ir : materialize(cx_, l, c.loc);
      if (v->type != c.types[i]) v = castTo(cx_, v, c.types[i], c.loc);
      operands.push_back(v);
      types.push_back(c.types[i]);
    }
  Scope before = scope();
  ir::Op* op = cx_.b.create(ir::Opcode::For, operands, types, std::move(attrs), s.loc);
  {
    InsertionGuard guard(cx_.b);
    ir::Block& body = op->region(0);
    cx_.b.setInsertionPointToEnd(body);
    ir::Value* iv = body.addArg(ivType);
    bindCarried(carried, body);
    scope().set(target.name, SValue::irValue(iv));
    loopBody(s.body, true, s.loc);
    std::vector<ir::Value*> yields = carriedAtEnd(carried);
    cx_.b.create(ir::Opcode::Yield, yields, {}, {}, s.loc);
  }
  Scope end = std::move(scope());
  afterLoop(before, end, carried, op, {target.name}, s.loc);
}

void Lowerer::whileStmt(const ast::Stmt& s) {
  if (!s.orelse.empty()) fail(s.loc, "'else' after a loop is not supported in kernels");
  std::vector<ir::Attr> attrs;
  const ast::Expr& condExpr = whileCondition(*s.value, attrs);
  std::optional<LoopExit> exit = loopExitOf(s.body);
  ExitScope exits(*this, exit);
  std::vector<Carried> carried = carriedValues(s.body, {});
  if (exit) addBreakFlag(carried, *exit, s.loc);
  refineCarriedTypes(carried, s.body, nullptr, ir::Type{});
  std::vector<ir::Value*> inits;
  std::vector<ir::Type> types;
  for (const auto& c : carried)
    for (size_t i = 0; i < c.leaves.size(); ++i) {
      const SValue& l = c.leaves[i];
      ir::Value* v = l.isIR() ? l.ir : materialize(cx_, l, c.loc);
      if (v->type != c.types[i]) v = castTo(cx_, v, c.types[i], c.loc);
      inits.push_back(v);
      types.push_back(c.types[i]);
    }
  Scope before = scope();
  ir::Op* op = cx_.b.create(ir::Opcode::While, inits, types, std::move(attrs), s.loc);
  SValue cond;
  {
    InsertionGuard guard(cx_.b);
    ir::Block& region = op->region(0);
    cx_.b.setInsertionPointToEnd(region);
    bindCarried(carried, region);
    cond = expr(condExpr);
    if (exit && exit->hasBreak && (cond.isIR() || constexprTruth(cond, condExpr.loc, "while condition"))) {
      // The loop also stops once a break ran: `cond and not broke`.
      SValue notBroke = unary(cx_, ast::UnaryOp::Not, *scope().find(exit->broke), condExpr.loc);
      cond = cond.isIR() ? binary(cx_, ast::BinOp::BitAnd, SValue::irValue(scalarCondition(cond, condExpr.loc, "while condition")),
                                  notBroke, condExpr.loc)
                         : notBroke;
    }
    if (cond.isIR()) {
      std::vector<ir::Value*> operands{scalarCondition(cond, condExpr.loc, "while condition")};
      for (const auto& a : region.args) operands.push_back(a.get());
      cx_.b.create(ir::Opcode::Condition, operands, {}, {}, condExpr.loc);
    }
  }
  scope() = before;
  if (!cond.isIR()) {
    if (constexprTruth(cond, condExpr.loc, "while condition"))
      fail(condExpr.loc, "while condition is a constant: the loop would never end (it holds no 'break')");
    cx_.b.setInsertionPointBefore(op);  // `while False:` runs no iteration: drop the op
    op->parent->remove(op);
    return;
  }
  {
    InsertionGuard guard(cx_.b);
    ir::Block& region = op->region(1);
    cx_.b.setInsertionPointToEnd(region);
    bindCarried(carried, region);
    loopBody(s.body, false, s.loc);  // the condition already stops the loop after a break
    std::vector<ir::Value*> yields = carriedAtEnd(carried);
    cx_.b.create(ir::Opcode::Yield, yields, {}, {}, s.loc);
  }
  Scope end = std::move(scope());
  afterLoop(before, end, carried, op, {}, s.loc);
}

}  // namespace kiln::sema
