// The parser of Tile IR's text form (docs/ir.md): builds a Module from .tir text, resolving %names
// in lexical scope. It checks syntax, names and region counts; the verifier checks everything else.
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/text.h"
#include "ir/text_lexer.h"

namespace kiln::ir {

namespace {

constexpr int kMaxRegionDepth = 200;        // bounds the recursion on hostile input

class Parser {
 public:
  explicit Parser(std::shared_ptr<const SourceFile> file) : lex_(std::move(file)) { advance(); }

  std::unique_ptr<Module> module() {
    auto m = std::make_unique<Module>();
    while (cur_.kind != TokKind::Eof) function(*m);
    return m;
  }

 private:
  Lexer lex_;
  size_t pos_ = 0;    // where the lexer resumes, just past cur_
  Token cur_;
  int prevLine_ = 0;  // line of the last consumed token
  std::vector<std::unordered_map<std::string, Value*>> scopes_;
  int depth_ = 0;

  void advance() {
    prevLine_ = cur_.line;
    cur_ = lex_.next(pos_);
  }
  [[noreturn]] void error(const Token& t, const std::string& msg) const { lex_.error(t.offset, msg); }
  bool sameLine() const { return cur_.kind != TokKind::Eof && cur_.line == prevLine_; }
  void expect(char c, const std::string& context) {
    if (!cur_.is(c)) error(cur_, std::string("expected '") + c + "' " + context + ", found " + describe(cur_));
    advance();
  }

  // ---- names

  Value* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return nullptr;
  }
  void checkFresh(const Token& t) const {
    if (lookup(t.text)) error(t, "redefinition of '%" + t.text + "'");
  }
  Value* use(const Token& t) const {
    Value* v = lookup(t.text);
    if (!v) error(t, "unknown value '%" + t.text + "'");
    return v;
  }

  // ---- functions, blocks, ops

  void function(Module& m) {
    if (!(cur_.kind == TokKind::Ident && cur_.text == "func")) error(cur_, "expected 'func', found " + describe(cur_));
    Token kw = cur_;
    advance();
    if (cur_.kind != TokKind::FuncName) error(cur_, "expected '@name' after 'func', found " + describe(cur_));
    if (m.lookup(cur_.text)) error(cur_, "redefinition of function '@" + cur_.text + "'");
    Function& f = m.addFunction(cur_.text, lex_.loc(kw.offset));
    advance();
    scopes_.assign(1, {});
    expect('(', "after the function name");
    while (!cur_.is(')')) {
      if (cur_.kind != TokKind::ValueName) error(cur_, "expected a parameter '%name', found " + describe(cur_));
      Token name = cur_;
      checkFresh(name);
      advance();
      expect(':', "after the parameter name");
      bool numbered = name.text[0] >= '0' && name.text[0] <= '9';
      scopes_.back()[name.text] = f.body.addArg(type(), numbered ? "" : name.text);
      if (!cur_.is(',')) break;
      advance();
    }
    expect(')', "after the parameters");
    openBrace("the function body");
    blockOps(f.body);
    advance();  // '}'
    scopes_.clear();
  }

  void openBrace(const std::string& what) {
    if (cur_.is('{') && !cur_.endsLine) error(cur_, "the '{' of " + what + " must be the last token on its line");
    expect('{', "to open " + what);
  }

  // Parses ops up to the closing '}' of the block, which is left as the current token.
  void blockOps(Block& b) {
    int openLine = prevLine_;
    while (!cur_.is('}')) {
      if (cur_.kind == TokKind::Eof)
        error(cur_, "expected '}' to close the block opened on line " + std::to_string(openLine));
      if (sameLine()) error(cur_, "expected a new line before " + describe(cur_));
      op(b);
    }
    if (sameLine()) error(cur_, "expected a new line before '}'");
  }

  void op(Block& b) {
    std::vector<Token> resultNames;
    if (cur_.kind == TokKind::ValueName) {
      for (;;) {
        if (cur_.kind != TokKind::ValueName) error(cur_, "expected a result name, found " + describe(cur_));
        checkFresh(cur_);
        for (const Token& r : resultNames)
          if (r.text == cur_.text) error(cur_, "redefinition of '%" + cur_.text + "'");
        resultNames.push_back(cur_);
        advance();
        if (!cur_.is(',')) break;
        advance();
      }
      expect('=', "after the result names");
      if (!sameLine()) error(cur_, "expected the op name on the line of its results");
    }
    if (cur_.kind != TokKind::Ident) error(cur_, "expected an op name, found " + describe(cur_));
    Opcode opcode;
    if (!opcodeFromName(cur_.text, opcode)) error(cur_, "unknown op '" + cur_.text + "'");
    const OpInfo& info = ir::info(opcode);
    auto op = std::make_unique<Op>(opcode, lex_.loc(cur_.offset));
    advance();

    if (cur_.kind == TokKind::ValueName && sameLine()) {
      for (;;) {
        if (cur_.kind != TokKind::ValueName || !sameLine())
          error(cur_, "expected an operand '%name', found " + describe(cur_));
        op->operands.push_back(use(cur_));
        advance();
        if (!(cur_.is(',') && sameLine())) break;
        advance();
      }
    }
    if (cur_.is('{') && !cur_.endsLine && sameLine()) attributes(*op);

    std::vector<Type> types;
    Token colon = cur_;
    if (cur_.is(':') && sameLine()) {
      advance();
      for (;;) {
        if (!sameLine()) error(cur_, "expected a result type on the line of the op");
        types.push_back(type());
        if (!(cur_.is(',') && sameLine())) break;
        advance();
      }
      if (types.size() != resultNames.size())
        error(colon, std::to_string(resultNames.size()) + " result name(s) but " + std::to_string(types.size()) +
                         " result type(s)");
    } else if (!resultNames.empty()) {
      error(cur_, "expected ':' and the result type(s), found " + describe(cur_));
    }
    for (Type& t : types) op->addResult(std::move(t));

    // numRegions -1: one or more (warp_partition), as many as follow on the line.
    const std::string regionCount = info.numRegions < 0 ? "one or more" : std::to_string(info.numRegions);
    for (int i = 0; info.numRegions < 0 ? (i == 0 || (cur_.is('{') && sameLine())) : i < info.numRegions; ++i) {
      if (!(cur_.is('{') && sameLine()))
        error(cur_, "'" + std::string(info.spelling) + "' takes " + regionCount + " region(s), found " + describe(cur_));
      region(op->addRegion());
    }
    if (cur_.is('{') && sameLine())
      error(cur_, "'" + std::string(info.spelling) + "' takes " + regionCount + " region(s)");

    for (size_t i = 0; i < resultNames.size(); ++i) scopes_.back()[resultNames[i].text] = op->result(unsigned(i));
    b.append(std::move(op));
  }

  void region(Block& b) {
    if (++depth_ > kMaxRegionDepth) error(cur_, "regions nested too deeply");
    openBrace("a region");
    scopes_.emplace_back();
    if (cur_.is('^')) {
      advance();
      expect('(', "after '^'");
      while (!cur_.is(')')) {
        if (cur_.kind != TokKind::ValueName) error(cur_, "expected a region argument '%name', found " + describe(cur_));
        Token name = cur_;
        checkFresh(name);
        advance();
        expect(':', "after the region argument name");
        scopes_.back()[name.text] = b.addArg(type());
        if (!cur_.is(',')) break;
        advance();
      }
      expect(')', "after the region arguments");
      expect(':', "after the region arguments");
    }
    blockOps(b);
    advance();  // '}'
    scopes_.pop_back();
    --depth_;
  }

  // ---- attributes

  void attributes(Op& op) {
    Token open = cur_;
    advance();  // '{'
    while (!cur_.is('}')) {
      if (!sameLine()) error(cur_, "expected '}' to close the attributes on their line");
      // `{ op ...` is a region whose '{' does not end its line, not a dictionary.
      bool looksLikeRegion = cur_.kind != TokKind::Ident;
      Token name = cur_;
      if (!looksLikeRegion) {
        advance();
        looksLikeRegion = !cur_.is('=');
      }
      if (looksLikeRegion && op.info().numRegions > 0)
        error(open, "a region's '{' must be the last token on its line");
      if (name.kind != TokKind::Ident) error(name, "expected an attribute name, found " + describe(name));
      if (op.hasAttr(name.text)) error(name, "duplicate attribute '" + name.text + "'");
      expect('=', "after the attribute name");
      op.attrs.push_back(Attr{name.text, attrValue()});
      if (!cur_.is(',')) break;
      advance();
    }
    expect('}', "to close the attributes");
  }

  AttrValue attrValue() {
    Token t = cur_;
    if (t.kind == TokKind::Int) {
      advance();
      return intLiteral(t);
    }
    if (t.kind == TokKind::Float) {
      advance();
      double d = 0;
      auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), d);
      if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) error(t, "float literal out of range");
      return d;
    }
    if (t.kind == TokKind::String) {
      advance();
      return t.text;
    }
    bool negative = t.is('-');
    if (negative) advance();
    if (cur_.kind == TokKind::Ident && (cur_.text == "inf" || cur_.text == "nan")) {
      bool inf = cur_.text == "inf";
      advance();
      if (!inf) return std::numeric_limits<double>::quiet_NaN();
      return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    if (negative) error(cur_, "expected 'inf' or 'nan' after '-', found " + describe(cur_));
    if (t.is('[')) {
      advance();
      std::vector<int64_t> list;
      while (!cur_.is(']')) {
        if (cur_.kind != TokKind::Int) error(cur_, "expected an integer in the list, found " + describe(cur_));
        list.push_back(intLiteral(cur_));
        advance();
        if (!cur_.is(',')) break;
        advance();
      }
      expect(']', "to close the list");
      return list;
    }
    error(t, "expected an attribute value (integer, float, string or [list]), found " + describe(t));
  }

  int64_t intLiteral(const Token& t) const {
    int64_t v = 0;
    auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) error(t, "integer literal out of range");
    return v;
  }

  // ---- types, read character by character from the current token

  Type type() {
    if (cur_.kind != TokKind::Ident) error(cur_, "expected a type, found " + describe(cur_));
    size_t p = cur_.offset;
    Type t = readType(lex_, p);  // text_types.cpp
    pos_ = p;
    advance();
    return t;
  }
};

}  // namespace

std::unique_ptr<Module> parseModule(std::shared_ptr<const SourceFile> file) {
  if (!file) throw InternalError(SourceLoc{}, "parseModule: no source file");
  return Parser(std::move(file)).module();
}

}  // namespace kiln::ir
