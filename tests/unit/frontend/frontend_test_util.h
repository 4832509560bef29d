// Helpers for the front end's tests: parse text, wrap statements in a kernel, print expressions
// as compact S-expressions, and capture the location and message of an error.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frontend/ast.h"
#include "frontend/ast_dump.h"
#include "frontend/parser.h"
#include "support/diagnostic.h"

namespace kiln::frontend::test {

inline std::unique_ptr<ast::Module> parse(const std::string& text) { return parseModule(makeSource("t.py", text)); }

// A kernel `k` whose body is `body` (each line already indented by the caller, or one line).
inline std::string kernel(const std::string& body) { return "import triton\n@triton.jit\ndef k(x):\n" + body; }

// The single kernel of `text`.
inline const ast::FunctionDef& onlyKernel(const ast::Module& m) {
  EXPECT_EQ(m.functions.size(), 1u);
  return *m.functions.at(0);
}

// (op a b) S-expression of an expression tree; enough to check shape and operators at a glance.
inline std::string sexpr(const ast::Expr* e) {
  if (!e) return "_";
  auto list = [&](std::string head, size_t from) {
    std::string s = "(" + head;
    for (size_t i = from; i < e->elts.size(); ++i) s += " " + sexpr(e->elts[i].get());
    for (const ast::Keyword& k : e->keywords) s += " " + k.name + "=" + sexpr(k.value.get());
    return s + ")";
  };
  switch (e->kind) {
    case ast::ExprKind::Name: return e->name;
    case ast::ExprKind::Int: return std::to_string(e->intValue);
    case ast::ExprKind::Float: return "f" + std::to_string(e->floatValue);
    case ast::ExprKind::Str: return "'" + e->str + "'";
    case ast::ExprKind::Bool: return e->intValue ? "True" : "False";
    case ast::ExprKind::NoneLit: return "None";
    case ast::ExprKind::Tuple: return list("tuple", 0);
    case ast::ExprKind::List: return list("list", 0);
    case ast::ExprKind::BinOp: return list(ast::spelling(e->binOp), 0);
    case ast::ExprKind::UnaryOp: return list(e->unaryOp == ast::UnaryOp::Neg ? "neg" : ast::spelling(e->unaryOp), 0);
    case ast::ExprKind::BoolOp: return list(e->boolOp == ast::BoolOp::And ? "and" : "or", 0);
    case ast::ExprKind::Compare: {
      std::string s = "(cmp " + sexpr(e->elts[0].get());
      for (size_t i = 0; i < e->cmpOps.size(); ++i)
        s += std::string(" ") + ast::spelling(e->cmpOps[i]) + " " + sexpr(e->elts[i + 1].get());
      return s + ")";
    }
    case ast::ExprKind::Call: return "(call " + sexpr(e->elts[0].get()) + list("", 1).substr(1);
    case ast::ExprKind::Attribute: return sexpr(e->elts[0].get()) + "." + e->name;
    case ast::ExprKind::Subscript: return list("sub", 0);
    case ast::ExprKind::Slice: return list("slice", 0);
    case ast::ExprKind::IfExp: return list("ifexp", 0);
    case ast::ExprKind::ListComp: return list("listcomp", 0);
    case ast::ExprKind::Starred: return list("starred", 0);
  }
  return "?";
}

// The expression of the kernel whose body is the one statement `expr`.
inline std::string parseExpr(const std::string& expr) {
  auto m = parse(kernel("    " + expr + "\n"));
  const ast::FunctionDef& fn = onlyKernel(*m);
  if (fn.body.size() != 1 || fn.body[0]->kind != ast::StmtKind::ExprStmt) return "<not one expression statement>";
  return sexpr(fn.body[0]->value.get());
}

struct Err {
  int line = 0, col = 0;
  std::string message;
  bool operator==(const Err& o) const { return line == o.line && col == o.col && message == o.message; }
};
inline std::ostream& operator<<(std::ostream& os, const Err& e) {
  return os << e.line << ":" << e.col << ": " << e.message;
}

// The error parsing `text` reports (line 0 and "no error" when it parses).
inline Err parseError(const std::string& text) {
  try {
    parse(text);
  } catch (const CompileError& e) {
    return {e.diag().loc.line, e.diag().loc.col, e.diag().message};
  }
  return {0, 0, "no error"};
}

}  // namespace kiln::frontend::test
