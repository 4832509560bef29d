// `break` and `continue` (beyond Triton, which refuses both). A loop whose body holds one of its own
// keeps two flags in hidden names (lower.h's LoopExit): `go`, set at the top of each iteration and
// cleared by either statement, and `broke`, set by a break and carried by the loop. Statements after an
// `if` that may clear `go` run inside an `if go`; a `while` stops when `broke` is set (its condition
// becomes `cond and not broke`); a `for` over a range keeps its trip count and runs the iterations
// after a break empty (each body is inside an `if not broke`); an unrolled loop (tl.static_range, a
// tuple) stops unrolling at a break that always runs, and guards the later copies otherwise.
#include "sema/lower.h"

namespace kiln::sema {

namespace {

// Whether `body` holds a break (or any exit: `anyExit`) of the loop it belongs to: inside ifs, not
// inside nested loops, which own theirs.
bool holdsExit(const ast::Body& body, bool breakOnly) {
  for (const ast::StmtPtr& s : body) {
    switch (s->kind) {
      case ast::StmtKind::Break: return true;
      case ast::StmtKind::Continue:
        if (!breakOnly) return true;
        break;
      case ast::StmtKind::If:
        if (holdsExit(s->body, breakOnly) || holdsExit(s->orelse, breakOnly)) return true;
        break;
      case ast::StmtKind::ExprStmt: case ast::StmtKind::Assign: case ast::StmtKind::AugAssign:
      case ast::StmtKind::AnnAssign: case ast::StmtKind::For: case ast::StmtKind::While:
      case ast::StmtKind::Return: case ast::StmtKind::Pass: case ast::StmtKind::Assert:
        break;
    }
  }
  return false;
}

bool constexprTrue(const SValue& v) { return !v.isIR() && v.i != 0; }

}  // namespace

std::optional<LoopExit> Lowerer::loopExitOf(const ast::Body& body) {
  if (!holdsExit(body, false)) return std::nullopt;
  const std::string id = std::to_string(++loopExits_);
  LoopExit e{"break#" + id, "go#" + id, holdsExit(body, true)};
  if (e.hasBreak) scope().set(e.broke, SValue::boolean(false));
  return e;
}

void Lowerer::loopBody(const ast::Body& body, bool guardBreak, const SourceLoc& loc) {
  const LoopExit* exit = frames_.back()->loopExit;
  if (!exit) {
    stmts(body, 0, nullptr, false);
    return;
  }
  auto iteration = [&] {
    scope().set(exit->go, SValue::boolean(true));
    stmts(body, 0, nullptr, false);
  };
  const SValue* broke = exit->hasBreak && guardBreak ? scope().find(exit->broke) : nullptr;
  if (!broke || !broke->isIR()) {
    if (!broke || !constexprTrue(*broke)) iteration();
    return;
  }
  guarded(unary(cx_, ast::UnaryOp::Not, *broke, loc).ir, [&] {
    scope().set(exit->broke, SValue::boolean(false));  // known inside
    iteration();
  }, loc);
}

Flow Lowerer::exitStmt(const ast::Stmt& s) {
  const bool isBreak = s.kind == ast::StmtKind::Break;
  const LoopExit* exit = frames_.back()->loopExit;
  if (!exit) fail(s.loc, std::string("'") + (isBreak ? "break" : "continue") + "' outside a loop");
  if (isBreak) scope().set(exit->broke, SValue::boolean(true));
  scope().set(exit->go, SValue::boolean(false));
  return Flow{};  // the statements after it in its block never run
}

bool Lowerer::restAfterExit(const ast::Body& body, size_t next, const SourceLoc& loc) {
  const LoopExit* exit = frames_.back()->loopExit;
  const SValue* go = exit ? scope().find(exit->go) : nullptr;
  if (!go) return false;
  if (!go->isIR()) return !constexprTrue(*go);  // every path left the iteration: the rest never runs
  if (next < body.size())
    guarded(go->ir, [&] {
      scope().set(exit->go, SValue::boolean(true));  // known inside: later ifs need no guard of their own
      stmts(body, next, nullptr, false);
    }, loc);
  return true;
}

void Lowerer::guarded(ir::Value* cond, const std::function<void()>& lowerThen, const SourceLoc& loc) {
  ir::Op* op = cx_.b.create(ir::Opcode::If, {scalarCondition(SValue::irValue(cond), loc, "if condition")}, {}, {}, loc);
  Scope before = scope();
  Scope ends[2];
  {
    InsertionGuard guard(cx_.b);
    cx_.b.setInsertionPointToEnd(op->region(0));
    lowerThen();
    ends[0] = std::move(scope());
  }
  ends[1] = before;
  mergeBranches(op, before, ends, loc);
}

}  // namespace kiln::sema
