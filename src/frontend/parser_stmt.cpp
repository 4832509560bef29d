// Statements of a @jit function: the def line, blocks, and every statement Triton's subset has;
// constructs outside the subset are rejected at their location with a message naming them.
#include "frontend/parser_impl.h"

namespace kiln::frontend::detail {

using ast::Stmt;
using ast::StmtKind;

namespace {
ast::StmtPtr makeStmt(StmtKind kind, SourceLoc at) { return std::make_unique<Stmt>(kind, std::move(at)); }

bool augOpAt(const Token& t, ast::BinOp& op) {
  struct Entry {
    std::string_view text;
    ast::BinOp op;
  };
  static constexpr Entry kTable[] = {
      {"+=", ast::BinOp::Add},      {"-=", ast::BinOp::Sub},     {"*=", ast::BinOp::Mul},
      {"/=", ast::BinOp::Div},      {"//=", ast::BinOp::FloorDiv}, {"%=", ast::BinOp::Mod},
      {"**=", ast::BinOp::Pow},     {"@=", ast::BinOp::MatMul},  {"<<=", ast::BinOp::LShift},
      {">>=", ast::BinOp::RShift},  {"&=", ast::BinOp::BitAnd},  {"|=", ast::BinOp::BitOr},
      {"^=", ast::BinOp::BitXor},
  };
  if (t.kind != TokKind::Op) return false;
  for (const Entry& e : kTable)
    if (t.text == e.text) {
      op = e.op;
      return true;
    }
  return false;
}
}  // namespace

// At `def`: the signature, then the body. The first statement, if a string, is the docstring.
std::unique_ptr<ast::FunctionDef> Parser::parseFunctionDef(std::vector<ast::ExprPtr> decorators) {
  const Token& def = next();
  const Token& name = peek();
  if (name.kind != TokKind::Name || isKeyword(name.text)) fail(name, "invalid syntax");
  next();
  auto fn = std::make_unique<ast::FunctionDef>();
  fn->name = std::string(name.text);
  fn->loc = loc(def);
  fn->decorators = std::move(decorators);
  expectOp("(", "expected '('");
  parseParams(*fn);
  if (acceptOp("->")) fn->returns = parseExpr().expr;
  nesting_ = blocks_ = elifs_ = 0;
  fn->body = parseBlock(def);
  ast::Body& body = fn->body;
  if (!body.empty() && body[0]->kind == StmtKind::ExprStmt && body[0]->value->kind == ast::ExprKind::Str) {
    fn->docstring = body[0]->value->str;
    body.erase(body.begin());
  }
  return fn;
}

// After `(`: `name[: annotation][= default]`, comma separated, up to `)`.
void Parser::parseParams(ast::FunctionDef& fn) {
  bool sawDefault = false;
  while (!atOp(")")) {
    const Token& t = peek();
    if (t.isOp("*") && (peek(1).isOp(",") || peek(1).isOp(")")))
      fail(t, "keyword-only parameters ('*') are not supported in kernels");
    if (t.isOp("*") || t.isOp("**")) fail(t, "variadic parameters (*args, **kwargs) are not supported in kernels");
    if (t.isOp("/")) fail(t, "positional-only parameters ('/') are not supported in kernels");
    if (t.kind != TokKind::Name || isKeyword(t.text)) fail(t, "invalid syntax");
    next();
    for (const ast::Param& p : fn.params)
      if (p.name == t.text) fail(t, "duplicate argument '" + std::string(t.text) + "' in function definition");
    ast::Param param{std::string(t.text), loc(t), nullptr, nullptr};
    if (acceptOp(":")) param.annotation = parseExpr().expr;
    if (acceptOp("=")) {
      param.defaultValue = parseExpr().expr;
      sawDefault = true;
    } else if (sawDefault) {
      fail(t, "parameter without a default follows parameter with a default");
    }
    fn.params.push_back(std::move(param));
    if (!acceptOp(",")) break;
  }
  expectOp(")", "invalid syntax");
}

// `: NEWLINE INDENT statements DEDENT`, or `: simple; statements` on the header's line.
ast::Body Parser::parseBlock(const Token& header) {
  expectOp(":", "expected ':'");
  ast::Body body;
  if (peek().kind != TokKind::Newline) {
    parseSimpleLine(body);
    return body;
  }
  next();
  if (peek().kind != TokKind::Indent) {
    std::string what = header.isName("def") ? "function definition" : "'" + std::string(header.text) + "' statement";
    fail(peek(), "expected an indented block after " + what + " on line " + std::to_string(header.line));
  }
  if (blocks_ >= kMaxBlocks) fail(header, "too many nested blocks");
  next();
  ++blocks_;
  while (peek().kind != TokKind::Dedent && peek().kind != TokKind::End) parseStatement(body);
  next();
  --blocks_;
  return body;
}

void Parser::parseStatement(ast::Body& out) {
  const Token& t = peek();
  if (t.kind == TokKind::Indent) fail(t, "unexpected indent");
  if (t.isOp("@")) fail(t, "decorators are not supported inside kernels");
  if (t.kind == TokKind::Name) {
    if (t.text == "if") return out.push_back(parseIf());
    if (t.text == "while") return out.push_back(parseWhile());
    if (t.text == "for") return out.push_back(parseFor());
    if (t.text == "def") fail(t, "nested function definitions are not supported in kernels");
    if (t.text == "class") fail(t, "class definitions are not supported in kernels");
    if (t.text == "with") fail(t, "'with' statements are not supported in kernels");
    if (t.text == "try") fail(t, "'try' statements are not supported in kernels");
    if (t.text == "async") fail(t, "'async' is not supported in kernels");
    if (t.text == "elif" || t.text == "else" || t.text == "except" || t.text == "finally") fail(t, "invalid syntax");
    if (t.text == "match" && !peek(1).isOp("=") && !peek(1).isOp(":")) {
      // `match` is a soft keyword: a match statement is the only statement whose line ends in `:`.
      size_t i = pos_;
      while (toks_[i].kind != TokKind::Newline && toks_[i].kind != TokKind::End) ++i;
      if (toks_[i - 1].isOp(":")) fail(t, "'match' statements are not supported in kernels");
    }
  }
  parseSimpleLine(out);
}

void Parser::parseSimpleLine(ast::Body& out) {
  do {
    out.push_back(parseSimpleStmt());
  } while (acceptOp(";") && !atLineEnd());
  if (peek().kind != TokKind::Newline) fail(peek(), "invalid syntax");
  next();
}

ast::StmtPtr Parser::parseSimpleStmt() {
  const Token& t = peek();
  if (t.kind == TokKind::Name) {
    if (t.text == "pass" || t.text == "break" || t.text == "continue") {
      next();
      StmtKind kind = t.text == "pass" ? StmtKind::Pass : t.text == "break" ? StmtKind::Break : StmtKind::Continue;
      return makeStmt(kind, loc(t));
    }
    if (t.text == "return") {
      next();
      auto s = makeStmt(StmtKind::Return, loc(t));
      if (!atLineEnd() && !atOp(";")) s->value = parseExprList().expr;
      return s;
    }
    if (t.text == "assert") {
      next();
      auto s = makeStmt(StmtKind::Assert, loc(t));
      s->value = parseExpr().expr;
      if (acceptOp(",")) s->msg = parseExpr().expr;
      return s;
    }
    rejectStatement(t);
  }
  return parseAssignOrExpr();
}

void Parser::rejectStatement(const Token& t) {
  static constexpr std::string_view kRejected[] = {"raise", "global", "nonlocal", "del", "import"};
  for (std::string_view kw : kRejected)
    if (t.text == kw) fail(t, "'" + std::string(kw) + "' statements are not supported in kernels");
  if (t.text == "from") fail(t, "'import' statements are not supported in kernels");
}

// Expression statements and the three assignment forms.
ast::StmtPtr Parser::parseAssignOrExpr() {
  Parsed first = parseExprList();
  SourceLoc at = first.start;
  if (atOp("=")) {
    auto s = makeStmt(StmtKind::Assign, at);
    checkTarget(*first.expr, nullptr);
    s->targets.push_back(std::move(first.expr));
    while (acceptOp("=")) {
      Parsed v = parseExprList();
      if (atOp("=")) {
        checkTarget(*v.expr, nullptr);
        s->targets.push_back(std::move(v.expr));
      } else {
        s->value = std::move(v.expr);
      }
    }
    return s;
  }
  if (atOp(":")) {
    checkTarget(*first.expr, "only single target (not tuple) can be annotated");
    next();
    auto s = makeStmt(StmtKind::AnnAssign, at);
    s->targets.push_back(std::move(first.expr));
    s->annotation = parseExpr().expr;
    if (acceptOp("=")) s->value = parseExprList().expr;
    return s;
  }
  ast::BinOp op;
  if (augOpAt(peek(), op)) {
    const char* kind = first.expr->kind == ast::ExprKind::List ? "list" : "tuple";
    checkTarget(*first.expr, (std::string("'") + kind + "' is an illegal expression for augmented assignment").c_str());
    next();
    auto s = makeStmt(StmtKind::AugAssign, at);
    s->augOp = op;
    s->targets.push_back(std::move(first.expr));
    s->value = parseExprList().expr;
    return s;
  }
  auto s = makeStmt(StmtKind::ExprStmt, at);
  s->value = std::move(first.expr);
  return s;
}

// Names, attributes and subscripts can be assigned; tuples and lists of targets unless
// `tupleMessage` says why not.
void Parser::checkTarget(const ast::Expr& e, const char* tupleMessage) {
  const char* what = nullptr;
  switch (e.kind) {
    case ast::ExprKind::Name:
    case ast::ExprKind::Attribute:
    case ast::ExprKind::Subscript: return;
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List:
      if (tupleMessage) failAt(e.loc, tupleMessage);
      for (const ast::ExprPtr& elt : e.elts) checkTarget(*elt, nullptr);
      return;
    case ast::ExprKind::Call: what = "function call"; break;
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
    case ast::ExprKind::Str: what = "literal"; break;
    case ast::ExprKind::Bool: what = e.intValue ? "True" : "False"; break;
    case ast::ExprKind::NoneLit: what = "None"; break;
    case ast::ExprKind::IfExp: what = "conditional expression"; break;
    case ast::ExprKind::ListComp: what = "list comprehension"; break;
    case ast::ExprKind::Starred: what = "starred"; break;
    case ast::ExprKind::Compare: what = "comparison"; break;
    case ast::ExprKind::BinOp:
    case ast::ExprKind::UnaryOp:
    case ast::ExprKind::BoolOp:
    case ast::ExprKind::Slice: what = "expression"; break;
  }
  failAt(e.loc, std::string("cannot assign to ") + what);
}

ast::StmtPtr Parser::parseIf() {
  const Token& kw = next();
  auto root = makeStmt(StmtKind::If, loc(kw));
  root->value = parseExpr().expr;
  root->body = parseBlock(kw);
  Stmt* last = root.get();
  int elifs = 0;
  while (atKw("elif")) {
    // Each elif nests one If deeper in the tree; bound the chain with the tree depth limit.
    const Token& el = next();
    if (blocks_ + elifs_ >= kMaxTreeDepth) fail(el, "too many 'elif' branches");
    ++elifs, ++elifs_;
    auto s = makeStmt(StmtKind::If, loc(el));
    s->value = parseExpr().expr;
    s->body = parseBlock(el);
    Stmt* inner = s.get();
    last->orelse.push_back(std::move(s));
    last = inner;
  }
  if (atKw("else")) last->orelse = parseBlock(next());
  elifs_ -= elifs;
  return root;
}

ast::StmtPtr Parser::parseWhile() {
  const Token& kw = next();
  auto s = makeStmt(StmtKind::While, loc(kw));
  s->value = parseExpr().expr;
  s->body = parseBlock(kw);
  if (atKw("else")) s->orelse = parseBlock(next());
  return s;
}

ast::StmtPtr Parser::parseFor() {
  const Token& kw = next();
  auto s = makeStmt(StmtKind::For, loc(kw));
  Parsed target = parseTargetList();
  checkTarget(*target.expr, nullptr);
  s->targets.push_back(std::move(target.expr));
  if (!atKw("in")) fail(peek(), "expected 'in'");
  next();
  s->value = parseExprList().expr;
  s->body = parseBlock(kw);
  if (atKw("else")) s->orelse = parseBlock(next());
  return s;
}

}  // namespace kiln::frontend::detail
