// The tokenizer of Tile IR text: value and function names, identifiers, numbers, strings with C
// escapes, punctuation; `//` comments. Every error is a CompileError at the offending character.
#include "ir/text_lexer.h"

#include <algorithm>
#include <cstdio>

#include "ir/text_syntax.h"
#include "support/diagnostic.h"

namespace kiln::ir {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
std::string charText(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
  return buf;
}
}  // namespace

Lexer::Lexer(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {
  lineStarts_.push_back(0);
  const std::string& t = file_->text;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i] == '\n') lineStarts_.push_back(i + 1);
}

int Lexer::lineOf(size_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  return int(it - lineStarts_.begin());
}

SourceLoc Lexer::loc(size_t offset) const {
  int line = lineOf(offset);
  return SourceLoc{file_, line, int(offset - lineStarts_[size_t(line - 1)]) + 1};
}

void Lexer::error(size_t offset, const std::string& message) const { throw CompileError(loc(offset), message); }

Token Lexer::next(size_t& pos) const {
  const std::string& s = file_->text;
  const size_t n = s.size();
  for (;;) {  // blanks and comments
    while (pos < n && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == '\n')) ++pos;
    if (pos + 1 < n && s[pos] == '/' && s[pos + 1] == '/') {
      while (pos < n && s[pos] != '\n') ++pos;
      continue;
    }
    break;
  }
  Token t;
  t.offset = pos;
  if (pos >= n) {  // point just past the last text, so the error shows a source line
    while (t.offset > 0 && std::string_view(" \t\r\n").find(s[t.offset - 1]) != std::string_view::npos) --t.offset;
    t.line = lineOf(t.offset);
    t.endsLine = true;
    return t;
  }
  t.line = lineOf(pos);

  char c = s[pos];
  if (c == '%' || c == '@') {
    size_t start = ++pos;
    while (pos < n && isValueNameChar(s[pos])) ++pos;
    if (pos == start) error(t.offset, std::string("expected a name after '") + c + "'");
    t.kind = c == '%' ? TokKind::ValueName : TokKind::FuncName;
    t.text = s.substr(start, pos - start);
  } else if (isIdentStart(c)) {
    size_t start = pos;
    while (pos < n && isIdentChar(s[pos])) ++pos;
    t.kind = TokKind::Ident;
    t.text = s.substr(start, pos - start);
  } else if (isDigit(c) || (c == '-' && pos + 1 < n && isDigit(s[pos + 1]))) {
    size_t start = pos++;
    while (pos < n && isDigit(s[pos])) ++pos;
    t.kind = TokKind::Int;
    if (pos < n && s[pos] == '.') {
      t.kind = TokKind::Float;
      ++pos;
      while (pos < n && isDigit(s[pos])) ++pos;
    }
    if (pos < n && (s[pos] == 'e' || s[pos] == 'E')) {
      size_t e = pos + 1;
      if (e < n && (s[e] == '+' || s[e] == '-')) ++e;
      if (e < n && isDigit(s[e])) {
        t.kind = TokKind::Float;
        pos = e;
        while (pos < n && isDigit(s[pos])) ++pos;
      }
    }
    t.text = s.substr(start, pos - start);
  } else if (c == '"') {
    t.kind = TokKind::String;
    ++pos;
    for (;;) {
      if (pos >= n || s[pos] == '\n') error(t.offset, "unterminated string");
      char d = s[pos];
      if (d == '"') break;
      if (d != '\\') {
        t.text += d;
        ++pos;
        continue;
      }
      size_t esc = pos++;
      char e = pos < n ? s[pos++] : '\0';
      switch (e) {
        case 'n': t.text += '\n'; break;
        case 't': t.text += '\t'; break;
        case 'r': t.text += '\r'; break;
        case '0': t.text += '\0'; break;
        case '\\': case '"': case '\'': t.text += e; break;
        case 'x': {
          int hi = pos < n ? hexValue(s[pos]) : -1, lo = pos + 1 < n ? hexValue(s[pos + 1]) : -1;
          if (hi < 0 || lo < 0) error(esc, "\\x needs two hex digits");
          t.text += char(hi * 16 + lo);
          pos += 2;
          break;
        }
        default: error(esc, "unknown escape sequence in string");
      }
    }
    ++pos;  // closing quote
  } else if (std::string_view("=,:{}()[]<>^-").find(c) != std::string_view::npos) {
    t.kind = TokKind::Punct;
    t.text = std::string(1, c);
    ++pos;
  } else {
    error(pos, "unexpected character " + charText(c));
  }

  size_t p = pos;
  while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\r')) ++p;
  t.endsLine = p >= n || s[p] == '\n' || (p + 1 < n && s[p] == '/' && s[p + 1] == '/');
  return t;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokKind::Eof: return "end of file";
    case TokKind::ValueName: return "'%" + t.text + "'";
    case TokKind::FuncName: return "'@" + t.text + "'";
    case TokKind::String: return "a string";
    case TokKind::Ident: case TokKind::Int: case TokKind::Float: case TokKind::Punct: return "'" + t.text + "'";
  }
  return "a token";
}

}  // namespace kiln::ir
