// The parser of Tile IR's text form (docs/ir.md): builds a Module from .tir text, resolving %names
// in lexical scope. It checks syntax, names and region counts; the verifier checks everything else.
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/text.h"
#include "ir/text_lexer.h"
#include "layout/linear_layout.h"
#include "layout/named_layouts.h"

namespace kiln::ir {

namespace {

constexpr int kMaxRegionDepth = 200;        // bounds the recursion on hostile input
constexpr int64_t kMaxDim = int64_t(1) << 31;
constexpr int64_t kMaxNumel = int64_t(1) << 32;
constexpr int64_t kMaxSlots = 64;  // pipelines are a few stages deep

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
    Type t = typeAt(p);
    pos_ = p;
    advance();
    return t;
  }

  std::string wordAt(size_t& p) const {
    const std::string& s = lex_.text();
    size_t start = p;
    while (p < s.size() && std::isalnum(static_cast<unsigned char>(s[p]))) ++p;
    return s.substr(start, p - start);
  }
  void charAt(size_t& p, char c, const char* context) const {
    const std::string& s = lex_.text();
    if (p >= s.size() || s[p] != c) lex_.error(p, std::string("expected '") + c + "' " + context);
    ++p;
  }

  Type elementAt(size_t& p) const {
    size_t start = p;
    std::string w = wordAt(p);
    if (w == "ptr") {
      charAt(p, '<', "after 'ptr'");
      size_t s2 = p;
      std::string pointee = wordAt(p);
      auto sc = scalarFromName(pointee);
      if (!sc) lex_.error(s2, "expected a scalar pointee type in 'ptr<...>'");
      charAt(p, '>', "to close 'ptr<'");
      return Type::ptr(*sc);
    }
    auto sc = scalarFromName(w);
    if (!sc) lex_.error(start, w.empty() ? "expected a type" : "unknown type '" + w + "'");
    return Type::scalar(*sc);
  }

  // A GPU IR layout, `{ins...} -> [outs...]` (docs/layouts.md), after a tensor type's element type.
  std::shared_ptr<const layout::LinearLayout> layoutAt(size_t& p) const {
    const std::string& s = lex_.text();
    while (p < s.size() && s[p] == ' ') ++p;
    size_t start = p;
    auto skipBalanced = [&](char open, char close) {
      if (p >= s.size() || s[p] != open) lex_.error(p, std::string("expected '") + open + "' in a layout");
      int depth = 0;
      for (; p < s.size() && s[p] != '\n'; ++p) {
        if (s[p] == open) ++depth;
        if (s[p] == close && --depth == 0) {
          ++p;
          return;
        }
      }
      lex_.error(start, "unterminated layout");
    };
    skipBalanced('{', '}');
    while (p < s.size() && s[p] == ' ') ++p;
    if (s.compare(p, 2, "->") != 0) lex_.error(p, "expected '->' in a layout");
    p += 2;
    while (p < s.size() && s[p] == ' ') ++p;
    skipBalanced('[', ']');
    try {
      return std::make_shared<const layout::LinearLayout>(layout::LinearLayout::parse(s.substr(start, p - start)));
    } catch (const CompileError& e) {
      lex_.error(start, e.diag().message);
    } catch (const InternalError& e) {
      lex_.error(start, e.diag().message);
    }
  }

  Type typeAt(size_t& p) const {
    const std::string& s = lex_.text();
    size_t start = p;
    const std::string kind = wordAt(p);
    if (kind != "tensor" && kind != "shared") {
      p = start;
      return elementAt(p);
    }
    const bool shared = kind == "shared";
    const std::string close = "to close '" + kind + "<'";
    charAt(p, '<', ("after '" + kind + "'").c_str());
    std::vector<int64_t> shape;
    int64_t numel = 1;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
      size_t d0 = p;
      int64_t d = 0;
      while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
        d = d * 10 + (s[p++] - '0');
        if (d > kMaxDim) lex_.error(d0, "tensor dimension too large");
      }
      if (d == 0) lex_.error(d0, "tensor dimensions must be positive");
      numel *= d;
      if (numel > kMaxNumel) lex_.error(d0, "tensor has too many elements");
      shape.push_back(d);
      charAt(p, 'x', "after a tensor dimension");
    }
    if (shape.empty()) lex_.error(p, "expected a tensor dimension");
    Type elem = elementAt(p);
    Type t = elem.withShape(std::move(shape));
    if (shared) t = t.withSlots(slotsAt(p));
    if (p < s.size() && s[p] == ',') t = t.withLayout(layoutAt(++p));
    // A shared buffer written without a layout is row-major (the last dim contiguous).
    if (shared && !t.layout) {
      for (int64_t d : t.shape)
        if (d & (d - 1)) lex_.error(start, "shared buffer dimensions must be powers of two, got " + t.withoutLayout().str());
      t = t.withLayout(std::make_shared<const layout::LinearLayout>(rowMajorShared(t.shape)));
    }
    charAt(p, '>', close.c_str());
    return t;
  }

  // `, slots=N` after a shared buffer's element type (absent: one slot).
  int64_t slotsAt(size_t& p) const {
    const std::string& s = lex_.text();
    size_t q = p;
    if (q >= s.size() || s[q] != ',') return 1;
    ++q;
    while (q < s.size() && s[q] == ' ') ++q;
    if (s.compare(q, 6, "slots=") != 0) return 1;
    p = q + 6;
    size_t d0 = p;
    int64_t n = 0;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
      n = n * 10 + (s[p++] - '0');
      if (n > kMaxSlots) lex_.error(d0, "too many slots (at most " + std::to_string(kMaxSlots) + ")");
    }
    if (p == d0 || n == 0) lex_.error(d0, "slots must be a positive number");
    return n;
  }

  static layout::LinearLayout rowMajorShared(const std::vector<int64_t>& shape) {
    std::vector<int32_t> order;
    for (int d = int(shape.size()) - 1; d >= 0; --d) order.push_back(d);
    return layout::sharedPlain(shape, order);
  }
};

}  // namespace

std::unique_ptr<Module> parseModule(std::shared_ptr<const SourceFile> file) {
  if (!file) throw InternalError(SourceLoc{}, "parseModule: no source file");
  return Parser(std::move(file)).module();
}

}  // namespace kiln::ir
