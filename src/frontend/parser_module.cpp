// The top level of a file: imports fill the alias table, `NAME = expr` become globals, @jit
// functions are parsed fully, and everything else (host code) is skipped by its token extent.
#include "frontend/parser.h"
#include "frontend/parser_impl.h"

namespace kiln::frontend {

std::unique_ptr<ast::Module> parseModule(std::shared_ptr<const SourceFile> file) {
  std::vector<Token> tokens = tokenize(file);
  return detail::Parser(std::move(file), std::move(tokens)).parseModule();
}

namespace detail {

namespace {
bool isOpener(const Token& t) { return t.isOp("(") || t.isOp("[") || t.isOp("{"); }
bool isCloser(const Token& t) { return t.isOp(")") || t.isOp("]") || t.isOp("}"); }
bool isPlainName(const Token& t) { return t.kind == TokKind::Name && !isKeyword(t.text); }
bool isAugAssign(const Token& t) {
  return t.kind == TokKind::Op && t.text.size() >= 2 && t.text.back() == '=' && t.text != "==" &&
         t.text != "<=" && t.text != ">=" && t.text != "!=" && t.text != ":=";
}
}  // namespace

void Parser::fail(const Token& at, std::string message) const {
  SourceLoc where = loc(at);
  size_t index = size_t(&at - toks_.data());
  auto layout = [](const Token& t) {
    return t.kind == TokKind::Newline || t.kind == TokKind::Indent || t.kind == TokKind::Dedent;
  };
  bool atEnd = index < toks_.size();  // only dedents and the end of input follow
  for (size_t i = index; atEnd && i < toks_.size(); ++i)
    atEnd = toks_[i].kind == TokKind::Dedent || toks_[i].kind == TokKind::End;
  if ((at.kind == TokKind::Newline || atEnd) && index > 0 && index < toks_.size()) {
    // At the end of the input, go back over the final newline and dedents too: the caret then
    // stands after the last token instead of on a line that does not exist.
    size_t prev = index - 1;
    while (atEnd && prev > 0 && layout(toks_[prev])) --prev;
    if (!layout(toks_[prev])) where = SourceLoc{file_, toks_[prev].endLine, toks_[prev].endCol};
  }
  throw CompileError(where, std::move(message));
}

std::unique_ptr<ast::Module> Parser::parseModule() {
  auto m = std::make_unique<ast::Module>();
  m->file = file_;
  while (peek().kind != TokKind::End) parseTopLevelStatement(*m);
  return m;
}

void Parser::parseTopLevelStatement(ast::Module& m) {
  const Token& t = peek();
  switch (t.kind) {
    case TokKind::Indent: fail(t, "unexpected indent");
    case TokKind::Dedent:
    case TokKind::Newline:
    case TokKind::End: next(); return;  // not produced at the top level by the tokenizer
    case TokKind::Name:
    case TokKind::Number:
    case TokKind::String:
    case TokKind::Op: break;
  }
  if (t.isOp("@")) return parseDecorated(m);
  if (t.isName("import")) {
    parseImport(m);
    return endSimpleStatement();
  }
  if (t.isName("from")) {
    parseFromImport(m);
    return endSimpleStatement();
  }
  if (isPlainName(t) && parseGlobalAssign(m)) return;
  // A cut-out definition (SourceFile::block) is a kernel's, its decorators already applied by Python.
  if (file_->block && t.isName("def")) {
    m.functions.push_back(parseFunctionDef({}));
    return;
  }
  notePlainFunction(m);
  skipStatement();
}

void Parser::endSimpleStatement() {
  if (acceptOp(";")) {
    if (peek().kind == TokKind::Newline) next();
    return;
  }
  if (peek().kind != TokKind::Newline) fail(peek(), "invalid syntax");
  next();
}

std::string Parser::parseDottedName() {
  if (!isPlainName(peek())) fail(peek(), "invalid syntax");
  std::string path(next().text);
  while (atOp(".")) {
    next();
    if (!isPlainName(peek())) fail(peek(), "invalid syntax");
    path += ".";
    path += next().text;
  }
  return path;
}

// `import a.b as c, d.e`: c -> "a.b", d -> "d" (the statement binds the first component).
void Parser::parseImport(ast::Module& m) {
  next();
  do {
    std::string path = parseDottedName();
    if (atKw("as")) {
      next();
      if (!isPlainName(peek())) fail(peek(), "invalid syntax");
      m.aliases[std::string(next().text)] = path;
    } else {
      std::string first = path.substr(0, path.find('.'));
      m.aliases[first] = first;
    }
  } while (acceptOp(","));
}

// `from [.]pkg import a as b, c` / `from pkg import (a, b)` / `from pkg import *`.
void Parser::parseFromImport(ast::Module& m) {
  next();
  std::string module;
  while (atOp(".") || atOp("...")) module += next().text;
  if (!atKw("import")) module += parseDottedName();
  if (!atKw("import")) fail(peek(), "invalid syntax");
  next();
  if (acceptOp("*")) return;  // binds names kiln cannot know
  bool paren = acceptOp("(");
  do {
    if (paren && atOp(")")) break;
    if (!isPlainName(peek())) fail(peek(), "invalid syntax");
    std::string name(next().text), local = name;
    if (atKw("as")) {
      next();
      if (!isPlainName(peek())) fail(peek(), "invalid syntax");
      local = std::string(next().text);
    }
    bool relativeOnly = !module.empty() && module.back() == '.';
    m.aliases[local] = module.empty() ? name : relativeOnly ? module + name : module + "." + name;
  } while (acceptOp(","));
  if (paren) expectOp(")", "invalid syntax");
}

// `@a.b.jit` or `@jit(...)` alone on its line: a dotted name ending in `jit`, maybe called.
bool Parser::isJitDecorator() const {
  size_t i = pos_;
  if (!isPlainName(peek())) return false;
  std::string_view last = peek().text;
  ++i;
  while (toks_[i].isOp(".") && isPlainName(toks_[i + 1])) {
    last = toks_[i + 1].text;
    i += 2;
  }
  if (last != "jit") return false;
  if (toks_[i].isOp("(")) {
    int depth = 0;
    for (; toks_[i].kind != TokKind::End; ++i) {
      if (isOpener(toks_[i])) ++depth;
      if (isCloser(toks_[i]) && --depth == 0) break;
    }
    ++i;
  }
  return i < toks_.size() && toks_[i].kind == TokKind::Newline;
}

// Decorator lines, then the decorated statement. Only jit decorators are kept; the others may
// hold host-only syntax (dicts, lambdas) and are skipped unparsed.
void Parser::parseDecorated(ast::Module& m) {
  std::vector<ast::ExprPtr> jit;
  while (atOp("@")) {
    next();
    if (isJitDecorator()) {
      size_t start = pos_;
      try {
        nesting_ = 0;
        Parsed d = parseExpr();
        jit.push_back(std::move(d.expr));
      } catch (const CompileError&) {
        // Arguments outside the kernel subset (`repr=lambda ...`): keep the decorator's name.
        pos_ = start;
        nesting_ = 0;
        jit.push_back(parsePrimaryName());
      }
    }
    while (peek().kind != TokKind::Newline && peek().kind != TokKind::End) next();
    next();
  }
  const Token& t = peek();
  if (jit.empty() || t.isName("class")) {
    notePlainFunction(m);
    return skipStatement();
  }
  if (t.isName("async")) fail(t, "'async' functions are not supported in kernels");
  if (!t.isName("def")) fail(t, "expected a function definition ('def') after the @jit decorator");
  m.functions.push_back(parseFunctionDef(std::move(jit)));
}

// The dotted name at the cursor as Name/Attribute nodes.
ast::ExprPtr Parser::parsePrimaryName() {
  const Token& first = next();
  auto e = std::make_unique<ast::Expr>(ast::ExprKind::Name, loc(first));
  e->name = std::string(first.text);
  while (atOp(".") && isPlainName(peek(1))) {
    next();
    auto attr = std::make_unique<ast::Expr>(ast::ExprKind::Attribute, e->loc);
    attr->name = std::string(next().text);
    attr->elts.push_back(std::move(e));
    e = std::move(attr);
  }
  return e;
}

// `NAME = expr`, `a = b = expr`, `NAME: T = expr`, and rebindings kiln cannot follow (`a, b = ...`,
// `NAME += ...`) which become globals without a value. Returns false for other statements.
bool Parser::parseGlobalAssign(ast::Module& m) {
  size_t start = pos_, end = pos_, colon = 0;
  std::vector<size_t> eqs;
  int depth = 0;
  bool lambda = false;
  for (size_t i = start;; ++i) {
    const Token& t = toks_[i];
    if (t.kind == TokKind::Newline || t.kind == TokKind::End || (depth == 0 && t.isOp(";"))) {
      end = i;
      break;
    }
    if (isOpener(t)) ++depth;
    if (isCloser(t)) --depth;
    if (depth != 0 || lambda) continue;
    if (t.isName("lambda")) lambda = true;  // `lambda x=1: ...` holds an `=` of its own
    if (t.isOp("=")) eqs.push_back(i);
    if (t.isOp(":") && i == start + 1) colon = i;
  }
  const Token& name = toks_[start];
  auto finish = [&] {
    pos_ = end;
    endSimpleStatement();
    return true;
  };
  if (eqs.empty()) {
    if (!isAugAssign(toks_[start + 1])) return false;
    m.globals.push_back({std::string(name.text), loc(name), nullptr,
                         "modified by an augmented assignment at module level", nullptr});
    return finish();
  }
  if (colon) {
    std::string reason;
    ast::GlobalAssign g{std::string(name.text), loc(name), nullptr, {}, nullptr};
    g.annotation = parseHostValue(colon + 1, eqs[0], reason);
    if (reason.empty()) g.value = parseHostValue(eqs[0] + 1, end, reason);
    g.skipReason = reason;
    if (!reason.empty()) g.value = nullptr;
    m.globals.push_back(std::move(g));
    return finish();
  }
  size_t segment = start;
  for (size_t eq : eqs) {
    if (eq == segment + 1 && isPlainName(toks_[segment])) {
      const Token& target = toks_[segment];
      std::string reason;
      ast::ExprPtr value = parseHostValue(eqs.back() + 1, end, reason);
      m.globals.push_back({std::string(target.text), loc(target), std::move(value), reason, nullptr});
    } else {
      // A pattern of names (`a, b = ...`): each is bound, to values kiln does not follow.
      bool names = true;
      for (size_t i = segment; i < eq; ++i)
        names = names && (isPlainName(toks_[i]) || toks_[i].isOp(",") || toks_[i].isOp("*") ||
                          toks_[i].isOp("(") || toks_[i].isOp(")") || toks_[i].isOp("[") || toks_[i].isOp("]"));
      for (size_t i = segment; names && i < eq; ++i)
        if (isPlainName(toks_[i]))
          m.globals.push_back({std::string(toks_[i].text), loc(toks_[i]), nullptr,
                               "assigned by unpacking at module level", nullptr});
    }
    segment = eq + 1;
  }
  return finish();
}

// The expression in tokens [from, end), or null with `skipReason` set when it is not in the
// kernel subset (or not valid Python).
ast::ExprPtr Parser::parseHostValue(size_t from, size_t end, std::string& skipReason) {
  pos_ = from;
  nesting_ = 0;
  try {
    if (from >= end) fail(toks_[from], "invalid syntax");
    Parsed v = parseExprList();
    if (pos_ != end) fail(peek(), "invalid syntax");
    return std::move(v.expr);
  } catch (const CompileError& e) {
    skipReason = e.diag().message;
    return nullptr;
  }
}

// A host `def NAME` at the cursor (about to be skipped) is remembered by name and place.
void Parser::notePlainFunction(ast::Module& m) {
  const Token& t = peek();
  if (t.isName("def") && peek(1).kind == TokKind::Name)
    m.plainFunctions.push_back({std::string(peek(1).text), loc(t)});
}

// Skips one statement by its tokens: to its `;` or NEWLINE (compound statements: to the
// NEWLINE), then the indented block when the line ends in `:`.
void Parser::skipStatement() {
  const Token& first = peek();
  static constexpr std::string_view kCompound[] = {"if",   "while",  "for",     "try",    "with",   "def",
                                                   "class", "async", "else",    "elif",   "except", "finally"};
  bool compound = first.isOp("@");
  for (std::string_view kw : kCompound) compound = compound || first.isName(kw);
  int depth = 0;
  bool colon = false;
  while (true) {
    const Token& t = peek();
    if (t.kind == TokKind::End) return;
    if (t.kind == TokKind::Newline) {
      next();
      break;
    }
    if (!compound && depth == 0 && t.isOp(";")) {
      next();
      if (peek().kind == TokKind::Newline) next();
      return;
    }
    if (isOpener(t)) ++depth;
    if (isCloser(t)) --depth;
    colon = t.isOp(":");
    next();
  }
  if (colon && peek().kind == TokKind::Indent) skipBlock();
}

void Parser::skipBlock() {
  int depth = 0;
  do {
    const Token& t = next();
    if (t.kind == TokKind::Indent) ++depth;
    if (t.kind == TokKind::Dedent) --depth;
    if (t.kind == TokKind::End) return;
  } while (depth > 0);
}

}  // namespace detail
}  // namespace kiln::frontend
