// The tokenizer's main loop: logical lines, indentation, brackets, names, numbers and operators.
// Strings live in lexer_string.cpp. The whole file is tokenized up front, so its errors are
// reported wherever they are, host code included.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "frontend/lexer_impl.h"

namespace kiln::frontend {

bool isKeyword(std::string_view name) {
  static constexpr std::string_view kKeywords[] = {
      "False", "None",   "True",    "and",      "as",   "assert", "async", "await",  "break",
      "class", "continue", "def",   "del",      "elif", "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",  "while",  "with",  "yield"};
  return std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords);
}

std::vector<Token> tokenize(const std::shared_ptr<const SourceFile>& file) {
  return detail::Lexer(file).run();
}

namespace detail {

namespace {
bool isDec(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isOct(char c) { return c >= '0' && c <= '7'; }
bool isBin(char c) { return c == '0' || c == '1'; }

int digitValue(char c) {
  if (isDec(c)) return c - '0';
  return (c | 0x20) - 'a' + 10;
}

// Accumulates digits in `base`; reports whether the value overflowed 64 bits.
bool parseUnsigned(const std::string& digits, unsigned base, uint64_t& out) {
  out = 0;
  for (char c : digits) {
    uint64_t d = uint64_t(digitValue(c));
    if (out > (UINT64_MAX - d) / base) return false;
    out = out * base + d;
  }
  return true;
}

// The UTF-8 character at s[p]: its length in bytes and code point; 0 when the bytes are not UTF-8.
size_t decodeUtf8(std::string_view s, size_t p, uint32_t& cp) {
  unsigned char c = static_cast<unsigned char>(s[p]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || p + len > s.size()) return 0;
  cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t i = 1; i < len; ++i) {
    unsigned char k = static_cast<unsigned char>(s[p + i]);
    if ((k & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (k & 0x3F);
  }
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  // Overlong encodings, surrogates and code points past U+10FFFF are not UTF-8 either.
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Non-ASCII characters that cannot be part of a name: invisible ones (Python: "invalid
// non-printable character") and the punctuation and symbols that arrive when code is copied from
// a document (typographic quotes and dashes, non-breaking spaces, math symbols, emoji).
enum class CharClass { Letter, Invisible, Symbol };
CharClass classify(uint32_t cp) {
  struct Range {
    uint32_t lo, hi;
    CharClass cls;
  };
  static constexpr Range kRanges[] = {
      {0x80, 0xA0, CharClass::Invisible},     {0xA1, 0xA9, CharClass::Symbol},
      {0xAB, 0xAC, CharClass::Symbol},        {0xAD, 0xAD, CharClass::Invisible},
      {0xAE, 0xB4, CharClass::Symbol},        {0xB6, 0xB6, CharClass::Symbol},
      {0xB8, 0xB9, CharClass::Symbol},        {0xBB, 0xBF, CharClass::Symbol},
      {0xD7, 0xD7, CharClass::Symbol},        {0xF7, 0xF7, CharClass::Symbol},
      {0x1680, 0x1680, CharClass::Invisible}, {0x2000, 0x200F, CharClass::Invisible},
      {0x2010, 0x2027, CharClass::Symbol},    {0x2028, 0x202F, CharClass::Invisible},
      {0x2030, 0x205E, CharClass::Symbol},    {0x205F, 0x206F, CharClass::Invisible},
      {0x20A0, 0x20CF, CharClass::Symbol},    {0x2190, 0x23FF, CharClass::Symbol},
      {0x2500, 0x27BF, CharClass::Symbol},    {0x2E00, 0x2E7F, CharClass::Symbol},
      {0x3000, 0x3000, CharClass::Invisible}, {0x3001, 0x3004, CharClass::Symbol},
      {0x3008, 0x3020, CharClass::Symbol},    {0xFE30, 0xFE4F, CharClass::Symbol},
      {0xFEFF, 0xFEFF, CharClass::Invisible}, {0xFF01, 0xFF0F, CharClass::Symbol},
      {0xFF1A, 0xFF20, CharClass::Symbol},    {0xFF3B, 0xFF40, CharClass::Symbol},
      {0xFF5B, 0xFF65, CharClass::Symbol},    {0xFFF0, 0xFFFF, CharClass::Invisible},
      {0x1F000, 0x1FAFF, CharClass::Symbol},
  };
  for (const Range& r : kRanges)
    if (cp >= r.lo && cp <= r.hi) return r.cls;
  return CharClass::Letter;
}

std::string hexCodePoint(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
}

constexpr std::string_view kOps3[] = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::string_view kOps2[] = {"**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
                                      "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
constexpr std::string_view kOps1 = "+-*/%@&|^~<>()[]{},:.;=!$?`";
}  // namespace

int Lexer::colAt(size_t p) {
  if (colPos_ < lineStart_ || p < colPos_) {
    colPos_ = lineStart_;
    colVal_ = 1;
  }
  for (; colPos_ < p; ++colPos_)
    if ((static_cast<unsigned char>(src_[colPos_]) & 0xC0) != 0x80) ++colVal_;  // skip UTF-8 continuations
  return colVal_;
}

void Lexer::consumeNewline() {
  if (src_[pos_] == '\r' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') ++pos_;
  ++pos_;
  ++line_;
  lineStart_ = pos_;
}

void Lexer::fail(Pos at, std::string message) const {
  throw CompileError(SourceLoc{file_, at.line, at.col}, std::move(message));
}

Token& Lexer::emit(TokKind kind, size_t start, Pos at) {
  Token& t = toks_.emplace_back();
  t.kind = kind;
  t.text = src_.substr(start, pos_ - start);
  t.line = at.line;
  t.col = at.col;
  t.endLine = line_;
  t.endCol = colAt(pos_);
  if (kind != TokKind::Indent && kind != TokKind::Dedent) lineHasTokens_ = true;
  return t;
}

std::vector<Token> Lexer::run() {
  if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = lineStart_ = colPos_ = 3;  // UTF-8 byte order mark
  bool atLineStart = true;
  while (true) {
    if (atLineStart && brackets_.empty()) handleIndentation();
    atLineStart = false;
    if (pos_ >= src_.size()) break;
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
    } else if (c == '\n' || c == '\r') {
      Pos at = here();
      size_t start = pos_;
      consumeNewline();
      if (brackets_.empty()) {  // inside brackets, lines join implicitly
        if (lineHasTokens_) {
          Token& t = toks_.emplace_back();
          t.kind = TokKind::Newline;
          t.text = src_.substr(start, 0);
          t.line = t.endLine = at.line;
          t.col = t.endCol = at.col;
        }
        lineHasTokens_ = false;
        atLineStart = true;
      }
    } else if (c == '\\') {
      Pos at = here();
      ++pos_;
      if (pos_ >= src_.size()) fail(at, "unexpected EOF while parsing");
      if (src_[pos_] != '\n' && src_[pos_] != '\r')
        fail(here(), "unexpected character after line continuation character");
      consumeNewline();
    } else if (c == '\0') {
      fail(here(), "source code cannot contain null bytes");
    } else if (isIdentStart(c)) {
      scanName();
    } else if (isDec(c) || (c == '.' && pos_ + 1 < src_.size() && isDec(src_[pos_ + 1]))) {
      scanNumber();
    } else if (c == '\'' || c == '"') {
      scanString(pos_, here(), {});
    } else {
      scanOperator();
    }
  }
  if (!brackets_.empty()) {
    const Open& b = brackets_.back();
    fail(b.at, std::string("'") + b.c + "' was never closed");
  }
  Pos end = here();
  if (lineHasTokens_) emit(TokKind::Newline, pos_, end);
  for (size_t i = 1; i < indents_.size(); ++i) emit(TokKind::Dedent, pos_, end);
  emit(TokKind::End, pos_, end);
  return std::move(toks_);
}

// At the start of a logical line: skips blank and comment-only lines, then compares the
// indentation with the stack and emits INDENT or DEDENTs.
void Lexer::handleIndentation() {
  while (true) {
    int col = 0, alt = 0;
    size_t p = pos_;
    for (; p < src_.size(); ++p) {
      char c = src_[p];
      if (c == ' ') {
        ++col, ++alt;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8, ++alt;
      } else if (c == '\f') {
        col = alt = 0;
      } else {
        break;
      }
    }
    pos_ = p;
    if (p >= src_.size()) return;
    char c = src_[p];
    if (c == '#' || c == '\n' || c == '\r') {  // blank line: no tokens, no indentation change
      while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
      if (pos_ < src_.size()) consumeNewline();
      continue;
    }
    Pos at = here();
    const char* tabError = "inconsistent use of tabs and spaces in indentation";
    if (file_->block && toks_.empty()) {  // a cut-out block: its first line's indentation is the top level
      indents_ = {col};
      altIndents_ = {alt};
      return;
    }
    if (col > indents_.back()) {
      if (alt <= altIndents_.back()) fail(at, tabError);
      indents_.push_back(col);
      altIndents_.push_back(alt);
      emit(TokKind::Indent, pos_, at);
    } else {
      while (col < indents_.back()) {
        indents_.pop_back();
        altIndents_.pop_back();
        emit(TokKind::Dedent, pos_, at);
      }
      if (col != indents_.back()) fail(at, "unindent does not match any outer indentation level");
      if (alt != altIndents_.back()) fail(at, tabError);
    }
    return;
  }
}

void Lexer::scanName() {
  size_t start = pos_;
  Pos at = here();
  while (pos_ < src_.size() && isIdentChar(src_[pos_])) ++pos_;
  for (size_t p = start; p < pos_;) {  // non-ASCII bytes: only UTF-8 letters make names
    uint32_t cp = 0;
    size_t len = decodeUtf8(src_, p, cp);
    Pos at{line_, colAt(p)};
    if (len == 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "invalid UTF-8 in the source (byte 0x%02X)",
                    unsigned(static_cast<unsigned char>(src_[p])));
      fail(at, buf);
    }
    CharClass cls = classify(cp);
    if (len > 1 && cls == CharClass::Invisible)
      fail(at, "invalid non-printable character " + hexCodePoint(cp));
    if (len > 1 && cls == CharClass::Symbol)
      fail(at, "invalid character '" + std::string(src_.substr(p, len)) + "' (" + hexCodePoint(cp) + ")");
    p += len;
  }
  std::string_view word = src_.substr(start, pos_ - start);
  if (pos_ < src_.size() && (src_[pos_] == '\'' || src_[pos_] == '"') && word.size() <= 2) {
    std::string lower;
    for (char ch : word) lower += char(ch | 0x20);
    static constexpr std::string_view kPrefixes[] = {"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    if (std::find(std::begin(kPrefixes), std::end(kPrefixes), lower) != std::end(kPrefixes)) {
      scanString(start, at, word);
      return;
    }
  }
  emit(TokKind::Name, start, at);
}

// Digits of one kind with single underscores between them.
void Lexer::scanDigits(bool (*isDigit)(char), const char* what, std::string& out) {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (isDigit(c)) {
      out += c;
      ++pos_;
    } else if (c == '_' && pos_ + 1 < src_.size() && isDigit(src_[pos_ + 1])) {
      ++pos_;
    } else {
      break;
    }
  }
  if (pos_ < src_.size() && src_[pos_] == '_') fail(here(), std::string("invalid ") + what + " literal");
}

// Python accepts a keyword glued to a number (`1if x else 2`), with a warning.
bool Lexer::keywordFollows() const {
  size_t e = pos_;
  while (e < src_.size() && isIdentChar(src_[e])) ++e;
  std::string_view word = src_.substr(pos_, e - pos_);
  static constexpr std::string_view kGlue[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
  return std::find(std::begin(kGlue), std::end(kGlue), word) != std::end(kGlue);
}

void Lexer::scanNumber() {
  size_t start = pos_;
  Pos at = here();
  const size_t n = src_.size();
  if (src_[pos_] == '0' && pos_ + 1 < n && std::strchr("xXoObB", src_[pos_ + 1])) {
    char kind = char(src_[pos_ + 1] | 0x20);
    bool (*digit)(char) = kind == 'x' ? isHex : kind == 'o' ? isOct : isBin;
    const char* what = kind == 'x' ? "hexadecimal" : kind == 'o' ? "octal" : "binary";
    unsigned base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
    pos_ += 2;
    if (pos_ + 1 < n && src_[pos_] == '_' && digit(src_[pos_ + 1])) ++pos_;
    std::string digits;
    scanDigits(digit, what, digits);
    if (pos_ < n && isDec(src_[pos_]))
      fail(here(), std::string("invalid digit '") + src_[pos_] + "' in " + what + " literal");
    if (digits.empty() || (pos_ < n && isIdentChar(src_[pos_]) && !keywordFollows()))
      fail(here(), std::string("invalid ") + what + " literal");
    uint64_t value = 0;
    bool fits = parseUnsigned(digits, base, value);
    Token& t = emit(TokKind::Number, start, at);
    t.intValue = value;
    t.intTooLarge = !fits;
    return;
  }
  std::string digits, text;
  bool isFloat = false, imag = false;
  if (src_[pos_] != '.') scanDigits(isDec, "decimal", digits);
  text = digits;
  if (pos_ < n && src_[pos_] == '.') {
    isFloat = true;
    text += '.';
    ++pos_;
    if (pos_ < n && src_[pos_] == '_') fail(here(), "invalid decimal literal");
    scanDigits(isDec, "decimal", text);
  }
  if (pos_ < n && (src_[pos_] | 0x20) == 'e') {
    size_t save = pos_;
    std::string exp = "e";
    ++pos_;
    if (pos_ < n && (src_[pos_] == '+' || src_[pos_] == '-')) exp += src_[pos_++];
    if (pos_ < n && isDec(src_[pos_])) {
      scanDigits(isDec, "decimal", exp);
      text += exp;
      isFloat = true;
    } else if (exp.size() > 1 || src_.substr(save, 4) != "else") {
      fail(here(), "invalid decimal literal");
    } else {
      pos_ = save;  // `1else`: Python reads the number, then the keyword
    }
  }
  if (pos_ < n && (src_[pos_] | 0x20) == 'j') {
    imag = true;
    ++pos_;
  }
  if (pos_ < n && isIdentChar(src_[pos_]) && !keywordFollows())
    fail(here(), imag ? "invalid imaginary literal" : "invalid decimal literal");
  if (!isFloat && !imag && digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != std::string::npos)
    fail(at, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
  Token& t = emit(TokKind::Number, start, at);
  if (!isFloat && !imag) {
    t.intTooLarge = !parseUnsigned(digits, 10, t.intValue);
    return;
  }
  t.num = imag ? NumKind::Imag : NumKind::Float;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), t.floatValue);
  if (ec == std::errc::result_out_of_range) t.floatValue = std::strtod(text.c_str(), nullptr);  // inf or 0
}

void Lexer::scanOperator() {
  size_t start = pos_;
  Pos at = here();
  std::string_view rest = src_.substr(pos_);
  for (std::string_view op : kOps3)
    if (rest.substr(0, 3) == op) {
      pos_ += 3;
      emit(TokKind::Op, start, at);
      return;
    }
  for (std::string_view op : kOps2)
    if (rest.substr(0, 2) == op) {
      pos_ += 2;
      emit(TokKind::Op, start, at);
      return;
    }
  char c = src_[pos_];
  if (kOps1.find(c) == std::string_view::npos) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "invalid non-printable character U+%04X", unsigned(static_cast<unsigned char>(c)));
    fail(at, buf);
  }
  if (c == '(' || c == '[' || c == '{') {
    brackets_.push_back({c, at});
  } else if (c == ')' || c == ']' || c == '}') {
    if (brackets_.empty()) fail(at, std::string("unmatched '") + c + "'");
    const Open& open = brackets_.back();
    char want = open.c == '(' ? ')' : open.c == '[' ? ']' : '}';
    if (c != want) {
      std::string msg = std::string("closing parenthesis '") + c + "' does not match opening parenthesis '" +
                        open.c + "'";
      if (open.at.line != at.line) msg += " on line " + std::to_string(open.at.line);
      fail(at, msg);
    }
    brackets_.pop_back();
  }
  ++pos_;
  emit(TokKind::Op, start, at);
}

}  // namespace detail
}  // namespace kiln::frontend
