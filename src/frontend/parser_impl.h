// The recursive-descent parser's internal interface, shared by parser_expr.cpp (expressions),
// parser_stmt.cpp (kernel statements) and parser_module.cpp (top level). Not part of the interface.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/lexer.h"
#include "support/diagnostic.h"

namespace kiln::frontend::detail {

inline constexpr int kMaxNesting = 100;     // brackets, unary operators, ... inside one expression
inline constexpr int kMaxBlocks = 100;      // nested statement blocks, the function body included
inline constexpr int kMaxTreeDepth = 1000;  // any expression tree; also bounds elif chains

// An expression and the depth of its tree, tracked while building so that no tree deeper than
// kMaxTreeDepth ever exists (destroying or walking one would recurse that deep).
// `start` is where its text begins, parentheses included: `(a + b) * c` starts at the `(` while
// the inner BinOp's own loc is at `a`, as in Python.
struct Parsed {
  ast::ExprPtr expr;
  int depth = 1;
  SourceLoc start;
};

class Parser {
 public:
  Parser(std::shared_ptr<const SourceFile> file, std::vector<Token> tokens)
      : file_(std::move(file)), toks_(std::move(tokens)) {}

  std::unique_ptr<ast::Module> parseModule();  // parser_module.cpp

 private:
  friend struct NestGuard;

  // Token access.
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool atOp(std::string_view op) const { return peek().isOp(op); }
  bool atKw(std::string_view kw) const { return peek().isName(kw); }
  bool acceptOp(std::string_view op) {
    if (!atOp(op)) return false;
    ++pos_;
    return true;
  }
  void expectOp(std::string_view op, const char* message) {
    if (!acceptOp(op)) fail(peek(), message);
  }
  bool atLineEnd() const { return peek().kind == TokKind::Newline || peek().kind == TokKind::End; }
  SourceLoc loc(const Token& t) const { return SourceLoc{file_, t.line, t.col}; }
  // Errors at a NEWLINE or the end of input point just past the previous token, as Python's do.
  [[noreturn]] void fail(const Token& at, std::string message) const;
  [[noreturn]] void failAt(const SourceLoc& at, std::string message) const { throw CompileError(at, std::move(message)); }

  // Expressions (parser_expr.cpp).
  Parsed node(ast::ExprKind kind, SourceLoc at, std::vector<Parsed> kids);
  Parsed parseExprList();  // `a, b` becomes a Tuple
  Parsed parseExpr();      // one expression: conditional expression level, no bare tuples
  Parsed parseOr();
  Parsed parseAnd();
  Parsed parseNot();
  Parsed parseComparison();
  Parsed parseBinary(int minLevel);  // the binary operators from precedence level minLevel up
  Parsed parseFactor();
  Parsed parsePower();
  Parsed parsePrimary();
  Parsed parseAtom();
  Parsed parseParenthesized();
  Parsed parseList();
  Parsed parseListComprehension(const Token& open, Parsed element);
  [[noreturn]] void rejectBraces();
  Parsed parseStrings();
  Parsed parseNumber();
  void parseCallArgs(Parsed& call);
  void parseSubscript(Parsed& sub);
  Parsed parseSliceItem();
  Parsed parseTargetList();  // `for` targets: stops before `in`

  // Kernel statements (parser_stmt.cpp).
  std::unique_ptr<ast::FunctionDef> parseFunctionDef(std::vector<ast::ExprPtr> decorators);
  void parseParams(ast::FunctionDef& fn);
  ast::Body parseBlock(const Token& header);
  void parseStatement(ast::Body& out);
  void parseSimpleLine(ast::Body& out);
  ast::StmtPtr parseSimpleStmt();
  ast::StmtPtr parseAssignOrExpr();
  ast::StmtPtr parseIf();
  ast::StmtPtr parseWhile();
  ast::StmtPtr parseFor();
  void checkTarget(const ast::Expr& target, const char* tupleMessage);
  void rejectStatement(const Token& at);  // throws when `at` starts a statement outside the subset

  // Top level (parser_module.cpp).
  void parseTopLevelStatement(ast::Module& m);
  void parseImport(ast::Module& m);
  void parseFromImport(ast::Module& m);
  std::string parseDottedName();
  void parseDecorated(ast::Module& m);
  bool isJitDecorator() const;
  ast::ExprPtr parsePrimaryName();
  bool parseGlobalAssign(ast::Module& m);
  ast::ExprPtr parseHostValue(size_t from, size_t end, std::string& skipReason);
  void endSimpleStatement();
  void notePlainFunction(ast::Module& m);
  void skipStatement();
  void skipBlock();

  std::shared_ptr<const SourceFile> file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int nesting_ = 0;  // expression nesting (kMaxNesting)
  int blocks_ = 0;   // statement blocks (kMaxBlocks)
  int elifs_ = 0;    // enclosing elif branches; with blocks_ bounded by kMaxTreeDepth
};

// Counts one level of expression nesting for its lifetime.
struct NestGuard {
  Parser& p;
  NestGuard(Parser& parser, const Token& at) : p(parser) {
    if (p.nesting_ >= kMaxNesting) p.fail(at, "expression nested too deeply");
    ++p.nesting_;
  }
  ~NestGuard() { --p.nesting_; }
  NestGuard(const NestGuard&) = delete;
  NestGuard& operator=(const NestGuard&) = delete;
};

}  // namespace kiln::frontend::detail
