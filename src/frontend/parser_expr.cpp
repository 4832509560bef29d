// Expressions of the kernel subset, with Python's precedence and associativity. Binary operator
// chains are loops (no recursion per operand); every recursive step (brackets, unary operators,
// `**`, `else` branches) holds a NestGuard, and node() bounds the depth of the tree it builds.
#include "frontend/parser_impl.h"

namespace kiln::frontend::detail {

using ast::ExprKind;

namespace {

template <class... P>
std::vector<Parsed> kids(P&&... p) {
  std::vector<Parsed> v;
  (v.push_back(std::move(p)), ...);
  return v;
}

// Binary operators and their precedence levels, loosest first: | ^ & shifts additive multiplicative.
// Returns the level of the operator `t`, or -1.
int binOpLevel(const Token& t, ast::BinOp& op) {
  if (t.kind != TokKind::Op) return -1;
  struct Entry {
    int level;
    std::string_view text;
    ast::BinOp op;
  };
  static constexpr Entry kTable[] = {
      {0, "|", ast::BinOp::BitOr},   {1, "^", ast::BinOp::BitXor},   {2, "&", ast::BinOp::BitAnd},
      {3, "<<", ast::BinOp::LShift}, {3, ">>", ast::BinOp::RShift},  {4, "+", ast::BinOp::Add},
      {4, "-", ast::BinOp::Sub},     {5, "*", ast::BinOp::Mul},      {5, "/", ast::BinOp::Div},
      {5, "//", ast::BinOp::FloorDiv}, {5, "%", ast::BinOp::Mod},    {5, "@", ast::BinOp::MatMul},
  };
  for (const Entry& e : kTable)
    if (t.text == e.text) {
      op = e.op;
      return e.level;
    }
  return -1;
}

bool startsExpr(const Token& t) {
  switch (t.kind) {
    case TokKind::Number:
    case TokKind::String: return true;
    case TokKind::Name:
      return !isKeyword(t.text) || t.text == "True" || t.text == "False" || t.text == "None" ||
             t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "yield";
    case TokKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
             t.text == "~" || t.text == "*" || t.text == "...";
    case TokKind::Newline:
    case TokKind::Indent:
    case TokKind::Dedent:
    case TokKind::End: return false;
  }
  return false;
}
}  // namespace

Parsed Parser::node(ExprKind kind, SourceLoc at, std::vector<Parsed> children) {
  int depth = 0;
  for (const Parsed& c : children) depth = std::max(depth, c.depth);
  ++depth;
  if (depth > kMaxTreeDepth) failAt(at, "expression too complex");
  auto e = std::make_unique<ast::Expr>(kind, at);
  e->elts.reserve(children.size());
  for (Parsed& c : children) e->elts.push_back(std::move(c.expr));
  return {std::move(e), depth, std::move(at)};
}

// `a, b, c` (a trailing comma makes a one-element tuple); the tuple starts at its first element.
Parsed Parser::parseExprList() {
  Parsed first = parseExpr();
  if (!atOp(",")) return first;
  SourceLoc at = first.start;
  std::vector<Parsed> elts = kids(std::move(first));
  while (acceptOp(",") && startsExpr(peek())) elts.push_back(parseExpr());
  return node(ExprKind::Tuple, at, std::move(elts));
}

Parsed Parser::parseExpr() {
  if (atKw("lambda")) fail(peek(), "lambda expressions are not supported in kernels");
  Parsed body = parseOr();
  if (atKw("if")) {
    next();
    Parsed test = parseOr();
    if (!atKw("else")) fail(peek(), "expected 'else' after 'if' expression");
    NestGuard guard(*this, next());
    Parsed orelse = parseExpr();
    SourceLoc at = body.start;
    return node(ExprKind::IfExp, at, kids(std::move(test), std::move(body), std::move(orelse)));
  }
  if (atOp(":=")) fail(peek(), "assignment expressions (':=') are not supported in kernels");
  return body;
}

Parsed Parser::parseOr() {
  Parsed first = parseAnd();
  if (!atKw("or")) return first;
  SourceLoc at = first.start;
  std::vector<Parsed> elts = kids(std::move(first));
  while (atKw("or")) {
    next();
    elts.push_back(parseAnd());
  }
  Parsed r = node(ExprKind::BoolOp, at, std::move(elts));
  r.expr->boolOp = ast::BoolOp::Or;
  return r;
}

Parsed Parser::parseAnd() {
  Parsed first = parseNot();
  if (!atKw("and")) return first;
  SourceLoc at = first.start;
  std::vector<Parsed> elts = kids(std::move(first));
  while (atKw("and")) {
    next();
    elts.push_back(parseNot());
  }
  Parsed r = node(ExprKind::BoolOp, at, std::move(elts));
  r.expr->boolOp = ast::BoolOp::And;
  return r;
}

Parsed Parser::parseNot() {
  if (!atKw("not")) return parseComparison();
  const Token& t = next();
  NestGuard guard(*this, t);
  Parsed operand = parseNot();
  Parsed r = node(ExprKind::UnaryOp, loc(t), kids(std::move(operand)));
  r.expr->unaryOp = ast::UnaryOp::Not;
  return r;
}

// `a < b <= c` is one Compare node with two operators.
Parsed Parser::parseComparison() {
  Parsed first = parseBinary(0);
  std::vector<ast::CmpOp> ops;
  std::vector<Parsed> elts;
  while (true) {
    const Token& t = peek();
    ast::CmpOp op;
    size_t width = 1;
    if (t.isOp("<")) op = ast::CmpOp::Lt;
    else if (t.isOp(">")) op = ast::CmpOp::Gt;
    else if (t.isOp("==")) op = ast::CmpOp::Eq;
    else if (t.isOp(">=")) op = ast::CmpOp::GtE;
    else if (t.isOp("<=")) op = ast::CmpOp::LtE;
    else if (t.isOp("!=")) op = ast::CmpOp::NotEq;
    else if (t.isName("in")) op = ast::CmpOp::In;
    else if (t.isName("not") && peek(1).isName("in")) op = ast::CmpOp::NotIn, width = 2;
    else if (t.isName("is") && peek(1).isName("not")) op = ast::CmpOp::IsNot, width = 2;
    else if (t.isName("is")) op = ast::CmpOp::Is;
    else break;
    pos_ += width;
    if (elts.empty()) elts.push_back(std::move(first));
    ops.push_back(op);
    elts.push_back(parseBinary(0));
  }
  if (elts.empty()) return first;
  SourceLoc at = elts[0].start;
  Parsed r = node(ExprKind::Compare, at, std::move(elts));
  r.expr->cmpOps = std::move(ops);
  return r;
}

// Precedence climbing: operators of one level loop (left associative); a tighter operator on the
// right recurses, at most once per level, so the recursion stays within six frames.
Parsed Parser::parseBinary(int minLevel) {
  Parsed left = parseFactor();
  ast::BinOp op = ast::BinOp::Add;
  for (int level; (level = binOpLevel(peek(), op)) >= minLevel;) {
    next();
    Parsed right = parseBinary(level + 1);
    SourceLoc at = left.start;
    left = node(ExprKind::BinOp, at, kids(std::move(left), std::move(right)));
    left.expr->binOp = op;
  }
  return left;
}

Parsed Parser::parseFactor() {
  const Token& t = peek();
  ast::UnaryOp op;
  if (t.isOp("-")) op = ast::UnaryOp::Neg;
  else if (t.isOp("+")) op = ast::UnaryOp::Pos;
  else if (t.isOp("~")) op = ast::UnaryOp::Invert;
  else return parsePower();
  next();
  NestGuard guard(*this, t);
  Parsed operand = parseFactor();
  Parsed r = node(ExprKind::UnaryOp, loc(t), kids(std::move(operand)));
  r.expr->unaryOp = op;
  return r;
}

// `**` binds tighter than a unary operator on its left and looser than one on its right:
// `-x**2` is `-(x**2)`, `2**-1` is `2**(-1)`; it associates to the right.
Parsed Parser::parsePower() {
  if (atKw("await")) fail(peek(), "'await' is not supported in kernels");
  Parsed base = parsePrimary();
  if (!atOp("**")) return base;
  NestGuard guard(*this, next());
  Parsed exponent = parseFactor();
  SourceLoc at = base.start;
  Parsed r = node(ExprKind::BinOp, at, kids(std::move(base), std::move(exponent)));
  r.expr->binOp = ast::BinOp::Pow;
  return r;
}

Parsed Parser::parsePrimary() {
  Parsed e = parseAtom();
  while (true) {
    SourceLoc at = e.start;
    if (acceptOp(".")) {
      const Token& name = peek();
      if (name.kind != TokKind::Name || isKeyword(name.text)) fail(name, "invalid syntax");
      next();
      e = node(ExprKind::Attribute, at, kids(std::move(e)));
      e.expr->name = std::string(name.text);
    } else if (atOp("(")) {
      NestGuard guard(*this, next());
      e = node(ExprKind::Call, at, kids(std::move(e)));
      parseCallArgs(e);
    } else if (atOp("[")) {
      NestGuard guard(*this, next());
      e = node(ExprKind::Subscript, at, kids(std::move(e)));
      parseSubscript(e);
    } else {
      return e;
    }
  }
}

// After `(`: positional arguments, then keyword arguments, then `)`.
void Parser::parseCallArgs(Parsed& call) {
  auto adopt = [&](int depth) {
    call.depth = std::max(call.depth, depth + 1);
    if (call.depth > kMaxTreeDepth) failAt(call.expr->loc, "expression too complex");
  };
  bool sawKeyword = false;
  while (!atOp(")")) {
    const Token& t = peek();
    if (t.isOp("**")) fail(t, "'**' argument unpacking is not supported in kernels");
    if (t.kind == TokKind::Name && peek(1).isOp("=")) {
      if (isKeyword(t.text)) fail(t, "invalid syntax");
      pos_ += 2;
      Parsed value = parseExpr();
      for (const ast::Keyword& k : call.expr->keywords)
        if (k.name == t.text) fail(t, "keyword argument repeated: " + std::string(t.text));
      adopt(value.depth);
      call.expr->keywords.push_back({std::string(t.text), std::move(value.expr), loc(t)});
      sawKeyword = true;
    } else if (t.isOp("*")) {  // f(a, *t): t's elements are positional arguments
      if (sawKeyword) fail(t, "iterable argument unpacking follows keyword argument");
      next();
      Parsed value = parseExpr();
      Parsed arg = node(ExprKind::Starred, loc(t), kids(std::move(value)));
      adopt(arg.depth);
      call.expr->elts.push_back(std::move(arg.expr));
    } else {
      if (sawKeyword && startsExpr(t)) fail(t, "positional argument follows keyword argument");
      Parsed arg = parseExpr();
      if (atKw("for") || atKw("async")) failAt(arg.start, "generator expressions are not supported in kernels");
      adopt(arg.depth);
      call.expr->elts.push_back(std::move(arg.expr));
    }
    if (!acceptOp(",")) break;
  }
  if (!acceptOp(")"))
    fail(peek(), startsExpr(peek()) ? "invalid syntax. Perhaps you forgot a comma?" : "invalid syntax");
}

// After `[`: one entry in elts per index (`x[i, j]`), slices as Slice nodes.
void Parser::parseSubscript(Parsed& sub) {
  do {
    if (atOp("]") && sub.expr->elts.size() > 1) break;  // trailing comma
    Parsed item = parseSliceItem();
    sub.depth = std::max(sub.depth, item.depth + 1);
    if (sub.depth > kMaxTreeDepth) failAt(sub.expr->loc, "expression too complex");
    sub.expr->elts.push_back(std::move(item.expr));
  } while (acceptOp(","));
  if (!acceptOp("]"))
    fail(peek(), startsExpr(peek()) ? "invalid syntax. Perhaps you forgot a comma?" : "invalid syntax");
}

Parsed Parser::parseSliceItem() {
  const Token& start = peek();
  Parsed lower{nullptr, 0, {}}, upper{nullptr, 0, {}}, step{nullptr, 0, {}};
  if (!atOp(":")) {
    lower = parseExpr();
    if (!atOp(":")) return lower;
  }
  next();
  auto endsPart = [&] { return atOp(":") || atOp(",") || atOp("]"); };
  if (!endsPart()) upper = parseExpr();
  if (acceptOp(":") && !atOp(",") && !atOp("]")) step = parseExpr();
  return node(ExprKind::Slice, loc(start), kids(std::move(lower), std::move(upper), std::move(step)));
}

Parsed Parser::parseAtom() {
  const Token& t = peek();
  switch (t.kind) {
    case TokKind::Number: return parseNumber();
    case TokKind::String: return parseStrings();
    case TokKind::Name: {
      if (t.text == "True" || t.text == "False") {
        next();
        Parsed r = node(ExprKind::Bool, loc(t), {});
        r.expr->intValue = t.text == "True";
        return r;
      }
      if (t.text == "None") {
        next();
        return node(ExprKind::NoneLit, loc(t), {});
      }
      if (t.text == "lambda") fail(t, "lambda expressions are not supported in kernels");
      if (t.text == "yield") fail(t, "'yield' is not supported in kernels");
      if (t.text == "await") fail(t, "'await' is not supported in kernels");
      if (isKeyword(t.text)) fail(t, "invalid syntax");
      next();
      Parsed r = node(ExprKind::Name, loc(t), {});
      r.expr->name = std::string(t.text);
      return r;
    }
    case TokKind::Op:
      if (t.text == "(") return parseParenthesized();
      if (t.text == "[") return parseList();
      if (t.text == "{") rejectBraces();
      if (t.text == "*") fail(t, "starred expressions are not supported in kernels");
      if (t.text == "...") fail(t, "Ellipsis ('...') is not supported in kernels");
      fail(t, "invalid syntax");
    case TokKind::Newline:
    case TokKind::Indent:
    case TokKind::Dedent:
    case TokKind::End: fail(t, "invalid syntax");
  }
  fail(t, "invalid syntax");
}

// `(x)` is x itself (with x's location); `()` and `(a, b)` are tuples located at the `(`.
Parsed Parser::parseParenthesized() {
  const Token& open = next();
  NestGuard guard(*this, open);
  if (acceptOp(")")) return node(ExprKind::Tuple, loc(open), {});
  if (atKw("yield")) fail(peek(), "'yield' is not supported in kernels");
  Parsed first = parseExpr();
  if (atKw("for") || atKw("async")) failAt(loc(open), "generator expressions are not supported in kernels");
  if (acceptOp(")")) {
    first.start = loc(open);
    return first;
  }
  std::vector<Parsed> elts = kids(std::move(first));
  while (acceptOp(",") && !atOp(")")) elts.push_back(parseExpr());
  if (!acceptOp(")"))
    fail(peek(), startsExpr(peek()) ? "invalid syntax. Perhaps you forgot a comma?" : "invalid syntax");
  return node(ExprKind::Tuple, loc(open), std::move(elts));
}

Parsed Parser::parseList() {
  const Token& open = next();
  NestGuard guard(*this, open);
  std::vector<Parsed> elts;
  while (!atOp("]")) {
    elts.push_back(parseExpr());
    if (elts.size() == 1 && atKw("async")) failAt(loc(open), "asynchronous comprehensions are not supported in kernels");
    if (elts.size() == 1 && atKw("for")) return parseListComprehension(open, std::move(elts[0]));
    if (!acceptOp(",")) break;
  }
  if (!acceptOp("]"))
    fail(peek(), startsExpr(peek()) ? "invalid syntax. Perhaps you forgot a comma?" : "invalid syntax");
  return node(ExprKind::List, loc(open), std::move(elts));
}

// Dicts and sets are host-only. Tell which one it is from the tokens up to the matching `}`
// (the tokenizer guarantees it exists) without parsing the contents.
void Parser::rejectBraces() {
  const Token& open = peek();
  bool colon = toks_[pos_ + 1].isOp("}") || toks_[pos_ + 1].isOp("**"), comprehension = false;
  int depth = 0;
  for (size_t i = pos_ + 1; i < toks_.size(); ++i) {
    const Token& t = toks_[i];
    if (t.isOp("(") || t.isOp("[") || t.isOp("{")) ++depth;
    if (t.isOp(")") || t.isOp("]") || t.isOp("}")) {
      if (depth == 0) break;
      --depth;
    }
    if (depth == 0 && t.isOp(":")) colon = true;
    if (depth == 0 && t.isName("for")) comprehension = true;
    if (depth == 0 && t.isName("lambda")) break;  // its `:` says nothing about the braces
  }
  const char* what = colon ? (comprehension ? "dict comprehensions" : "dict literals")
                           : (comprehension ? "set comprehensions" : "set literals");
  fail(open, std::string(what) + " are not supported in kernels");
}

// Adjacent string literals concatenate, as in Python.
Parsed Parser::parseStrings() {
  const Token& first = peek();
  std::string value;
  while (peek().kind == TokKind::String) {
    const Token& t = next();
    if (t.fstring) fail(t, "f-strings are not supported in kernels");
    if (t.bytes != first.bytes) fail(t, "cannot mix bytes and nonbytes literals");
    value += t.value;
  }
  if (first.bytes) fail(first, "bytes literals are not supported in kernels");
  Parsed r = node(ExprKind::Str, loc(first), {});
  r.expr->str = std::move(value);
  return r;
}

Parsed Parser::parseNumber() {
  const Token& t = next();
  switch (t.num) {
    case NumKind::Int: {
      if (t.intTooLarge) fail(t, "integer literal is too large (it does not fit in 64 bits)");
      Parsed r = node(ExprKind::Int, loc(t), {});
      r.expr->intValue = t.intValue;
      return r;
    }
    case NumKind::Float: {
      Parsed r = node(ExprKind::Float, loc(t), {});
      r.expr->floatValue = t.floatValue;
      return r;
    }
    case NumKind::Imag: fail(t, "complex literals are not supported in kernels");
  }
  fail(t, "invalid syntax");
}

// `[element for target in iterable]` after its element, as Triton takes it: one `for` over a tuple
// (sema checks the iterable), no `if` clause (Triton would drop it silently).
Parsed Parser::parseListComprehension(const Token& open, Parsed element) {
  next();  // for
  Parsed target = parseTargetList();
  checkTarget(*target.expr, nullptr);
  if (!atKw("in")) fail(peek(), "invalid syntax: expected 'in'");
  next();
  Parsed iterable = parseOr();
  if (atKw("if")) fail(peek(), "a list comprehension in a kernel cannot have an 'if' clause");
  if (atKw("for") || atKw("async")) fail(peek(), "a list comprehension in a kernel can have only one 'for'");
  if (!acceptOp("]")) fail(peek(), "invalid syntax");
  return node(ExprKind::ListComp, loc(open), kids(std::move(element), std::move(target), std::move(iterable)));
}

// A `for` target list: like an expression list, but stops before `in` (no comparisons).
Parsed Parser::parseTargetList() {
  Parsed first = parseBinary(0);
  if (!atOp(",")) return first;
  SourceLoc at = first.start;
  std::vector<Parsed> elts = kids(std::move(first));
  while (acceptOp(",") && !atKw("in")) elts.push_back(parseBinary(0));
  return node(ExprKind::Tuple, at, std::move(elts));
}

}  // namespace kiln::frontend::detail
