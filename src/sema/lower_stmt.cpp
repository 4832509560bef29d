// Statements: expression statements, assignment (tuple unpacking), augmented and annotated
// assignment, assert, return, and the dispatch to if/for/while; plus the syntactic scans the
// control flow needs (which names a loop body assigns, whether a body returns).
#include "sema/lower.h"

namespace kiln::sema {

namespace {

constexpr int kMaxNesting = 256;

struct NestingGuard {
  int& depth;
  NestingGuard(int& d, const SourceLoc& loc) : depth(d) {
    if (++depth > kMaxNesting) {
      --depth;
      fail(loc, "blocks and helper calls are nested too deeply (more than " + std::to_string(kMaxNesting) +
                    " levels)");
    }
  }
  ~NestingGuard() { --depth; }
};

}  // namespace

Flow Lowerer::stmts(const ast::Body& first, size_t start, const Continuation* k, bool tail) {
  if (start >= first.size() && !k) return Flow{};
  NestingGuard nesting(nesting_, start < first.size() ? first[start]->loc : SourceLoc{});
  const ast::Body* body = &first;
  for (;;) {
    for (size_t i = start; i < body->size(); ++i) {
      const ast::Stmt& s = *(*body)[i];
      countWork(s.loc);
      switch (s.kind) {
        case ast::StmtKind::ExprStmt: expr(*s.value); break;
        case ast::StmtKind::Assign: {
          SValue v = expr(*s.value);
          for (const auto& t : s.targets) assign(*t, v, s.loc);
          break;
        }
        case ast::StmtKind::AugAssign: {
          const ast::Expr& t = *s.targets[0];
          if (t.kind != ast::ExprKind::Name) assign(t, SValue::none(), s.loc);  // reports the bad target
          SValue cur = lookup(t.name, t.loc);
          SValue rhs = expr(*s.value);
          scope().set(t.name, binary(cx_, s.augOp, cur, rhs, s.loc));
          break;
        }
        case ast::StmtKind::AnnAssign: {
          if (!s.value) break;  // a bare declaration `x: T`
          SValue v = expr(*s.value);
          const ast::Expr& t = *s.targets[0];
          if (isConstexprAnnotation(s.annotation.get()) && !v.isConstexpr())
            fail(s.value->loc, "'" + (t.kind == ast::ExprKind::Name ? t.name : std::string("target")) +
                                   "' is annotated constexpr but its value is " + typeDescription(v) +
                                   ", not a compile-time constant");
          assign(t, v, s.loc);
          break;
        }
        case ast::StmtKind::If: {
          if (tail) {
            Continuation rest{body, i + 1, k};
            if (std::optional<Flow> f = ifStmt(s, &rest)) return *f;
          } else {
            ifStmt(s, nullptr);
            if (restAfterExit(*body, i + 1, s.loc)) return Flow{};
          }
          break;
        }
        case ast::StmtKind::For: forStmt(s); break;
        case ast::StmtKind::While: whileStmt(s); break;
        case ast::StmtKind::Return: return returnStmt(s, tail);
        case ast::StmtKind::Pass: break;
        case ast::StmtKind::Break:
        case ast::StmtKind::Continue: return exitStmt(s);
        case ast::StmtKind::Assert: assertStmt(s); break;
      }
    }
    if (!k) return Flow{};
    body = k->body;
    start = k->start;
    k = k->next;
  }
}

void Lowerer::assign(const ast::Expr& target, const SValue& v, const SourceLoc& loc) {
  switch (target.kind) {
    case ast::ExprKind::Name: scope().set(target.name, v); return;
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List: {
      size_t n = target.elts.size();
      if (v.kind != SValue::Kind::Tuple)
        fail(target.loc, "cannot unpack " + typeDescription(v) + " into " + std::to_string(n) + " names");
      if (v.elts.size() > n)
        fail(target.loc, "too many values to unpack (expected " + std::to_string(n) + ", got " +
                             std::to_string(v.elts.size()) + ")");
      if (v.elts.size() < n)
        fail(target.loc, "not enough values to unpack (expected " + std::to_string(n) + ", got " +
                             std::to_string(v.elts.size()) + ")");
      for (size_t i = 0; i < n; ++i) assign(*target.elts[i], v.elts[i], loc);
      return;
    }
    case ast::ExprKind::Subscript:
      fail(target.loc, "cannot assign to a subscript: tensors are immutable in kernels (build a new one, "
                       "e.g. with tl.where)");
    case ast::ExprKind::Attribute: fail(target.loc, "cannot assign to an attribute");
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Str:
    case ast::ExprKind::Bool:
    case ast::ExprKind::NoneLit: fail(target.loc, "cannot assign to a literal");
    case ast::ExprKind::Call: fail(target.loc, "cannot assign to a function call");
    case ast::ExprKind::BinOp:
    case ast::ExprKind::UnaryOp:
    case ast::ExprKind::BoolOp:
    case ast::ExprKind::Compare:
    case ast::ExprKind::Slice:
    case ast::ExprKind::IfExp:
    case ast::ExprKind::ListComp:
    case ast::ExprKind::Starred: fail(target.loc, "cannot assign to an expression");
  }
}

Flow Lowerer::returnStmt(const ast::Stmt& s, bool tail) {
  if (!tail)
    fail(s.loc, "early return is not supported (a return must end the function, or end both branches of "
                "an if/else there, and cannot be inside a loop)");
  SValue v = s.value ? expr(*s.value) : SValue::none();
  if (frames_.back()->isKernel && v.kind != SValue::Kind::None)
    fail(s.value->loc, "a kernel cannot return a value (it returns " + typeDescription(v) + ")");
  return Flow{true, v};
}

void Lowerer::assertStmt(const ast::Stmt& s) {
  SValue test = expr(*s.value);
  SValue msg = s.msg ? expr(*s.msg) : SValue::none();
  if (msg.kind != SValue::Kind::None && msg.kind != SValue::Kind::Str)
    fail(s.msg->loc, "the message of an assert must be a constexpr string, got " + typeDescription(msg));
  std::string text = msg.kind == SValue::Kind::Str ? msg.str : "";
  if (!test.isIR()) {
    if (!constexprTruth(test, s.value->loc, "assert"))
      fail(s.loc, text.empty() ? "assertion failed" : "assertion failed: " + text);
    return;
  }
  ir::Value* c = test.ir;
  if (!c->type.isBool()) c = compare(cx_, ast::CmpOp::NotEq, test, SValue::integer(0), s.value->loc).ir;
  if (!c || !c->type.isBool())
    throw InternalError(s.loc, "compare() did not produce an i1 value for an assert");
  cx_.b.create(ir::Opcode::Assert, {c}, {}, {ir::Attr{"message", text.empty() ? "assertion failed" : text}}, s.loc);
}

// ---- syntactic scans

bool containsReturn(const ast::Body& body) {
  for (const auto& s : body) {
    if (s->kind == ast::StmtKind::Return) return true;
    if (containsReturn(s->body) || containsReturn(s->orelse)) return true;
  }
  return false;
}

bool definitelyReturns(const ast::Body& body) {
  if (body.empty()) return false;
  const ast::Stmt& last = *body.back();
  if (last.kind == ast::StmtKind::Return) return true;
  return last.kind == ast::StmtKind::If && definitelyReturns(last.body) && definitelyReturns(last.orelse);
}

void targetNames(const ast::Expr& t, std::set<std::string>& out) {
  if (t.kind == ast::ExprKind::Name) out.insert(t.name);
  if (t.kind == ast::ExprKind::Tuple || t.kind == ast::ExprKind::List)
    for (const auto& e : t.elts) targetNames(*e, out);
}

// Names assigned anywhere in `body` (nested blocks included), in order of first assignment. The
// targets of nested `for` loops are left out: a loop variable is not visible after its loop.
void assignedNames(const ast::Body& body, std::vector<Assigned>& out) {
  auto add = [&](const ast::Expr& t, const SourceLoc& loc) {
    std::set<std::string> names;
    targetNames(t, names);
    for (const auto& n : names) {
      bool seen = false;
      for (const auto& a : out) seen = seen || a.name == n;
      if (!seen) out.push_back({n, loc});
    }
  };
  for (const auto& s : body) {
    switch (s->kind) {
      case ast::StmtKind::Assign:
      case ast::StmtKind::AugAssign:
        for (const auto& t : s->targets) add(*t, s->loc);
        break;
      case ast::StmtKind::AnnAssign:
        if (s->value) add(*s->targets[0], s->loc);
        break;
      case ast::StmtKind::If:
      case ast::StmtKind::For:
      case ast::StmtKind::While:
        assignedNames(s->body, out);
        assignedNames(s->orelse, out);
        break;
      case ast::StmtKind::ExprStmt:
      case ast::StmtKind::Return:
      case ast::StmtKind::Pass:
      case ast::StmtKind::Break:
      case ast::StmtKind::Continue:
      case ast::StmtKind::Assert: break;
    }
  }
}

}  // namespace kiln::sema
