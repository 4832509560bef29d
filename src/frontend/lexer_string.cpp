// String literals: quotes, prefixes (r b u f and their pairs), triple quotes, escape decoding
// for plain literals, and f-strings scanned far enough to find where they end (PEP 701 nesting).
#include <cstdio>

#include "frontend/lexer_impl.h"

namespace kiln::frontend::detail {

namespace {
constexpr int kMaxFStringNesting = 100;

bool hasPrefix(std::string_view prefix, char c) {
  for (char p : prefix)
    if ((p | 0x20) == c) return true;
  return false;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
  return -1;
}
}  // namespace

// `start`/`at`: where the token begins (its prefix); pos_ is at the opening quote.
void Lexer::scanString(size_t start, Pos at, std::string_view prefix) {
  bool raw = hasPrefix(prefix, 'r'), bytes = hasPrefix(prefix, 'b'), fstring = hasPrefix(prefix, 'f');
  Pos quoteAt = here();
  char quote = src_[pos_];
  bool triple = src_.substr(pos_, 3) == std::string(3, quote);
  size_t quoteLen = triple ? 3 : 1;
  pos_ += quoteLen;
  size_t bodyStart = pos_;
  if (fstring)
    scanFStringBody(quote, triple, quoteAt, 0);
  else
    scanStringBody(quote, triple, quoteAt);
  std::string_view body = src_.substr(bodyStart, pos_ - quoteLen - bodyStart);
  std::string normalized;  // Python reads "\r\n" and "\r" in source text as "\n"
  if (body.find('\r') != std::string_view::npos) {
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] != '\r') normalized += body[i];
      else if (i + 1 >= body.size() || body[i + 1] != '\n') normalized += '\n';
    }
    body = normalized;
  }
  for (char c : body)
    if (bytes && static_cast<unsigned char>(c) >= 0x80)
      fail(quoteAt, "bytes can only contain ASCII literal characters");
  Token& t = emit(TokKind::String, start, at);
  t.bytes = bytes;
  t.fstring = fstring;
  if (!fstring) t.value = raw ? std::string(body) : decode(body, bytes, quoteAt);
}

void Lexer::scanStringBody(char quote, bool triple, Pos quoteAt) {
  while (true) {
    if (pos_ >= src_.size())
      fail(quoteAt, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    char c = src_[pos_];
    if (c == '\\') {  // an escaped quote or newline never ends the literal, even in raw strings
      ++pos_;
      if (pos_ < src_.size() && (src_[pos_] == '\n' || src_[pos_] == '\r'))
        consumeNewline();
      else if (pos_ < src_.size())
        ++pos_;
    } else if (c == '\n' || c == '\r') {
      if (!triple) fail(quoteAt, "unterminated string literal");
      consumeNewline();
    } else if (c == quote && (!triple || src_.substr(pos_, 3) == std::string(3, quote))) {
      pos_ += triple ? 3 : 1;
      return;
    } else {
      ++pos_;
    }
  }
}

// The literal text of an f-string: `{{`/`}}` are literal braces, `{` opens a replacement field.
void Lexer::scanFStringBody(char quote, bool triple, Pos quoteAt, int level) {
  while (true) {
    if (pos_ >= src_.size())
      fail(quoteAt, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    char c = src_[pos_];
    if (c == '\\') {
      ++pos_;
      if (pos_ < src_.size() && (src_[pos_] == '\n' || src_[pos_] == '\r'))
        consumeNewline();
      else if (pos_ < src_.size() && src_[pos_] != '{' && src_[pos_] != '}')
        ++pos_;
    } else if (c == '\n' || c == '\r') {
      if (!triple) fail(quoteAt, "unterminated string literal");
      consumeNewline();
    } else if (c == quote && (!triple || src_.substr(pos_, 3) == std::string(3, quote))) {
      pos_ += triple ? 3 : 1;
      return;
    } else if (c == '{' && src_.substr(pos_, 2) != "{{") {
      ++pos_;
      scanFStringField(quote, triple, quoteAt, level + 1);
    } else {
      pos_ += (c == '{' || c == '}') && pos_ + 1 < src_.size() && src_[pos_ + 1] == c ? 2 : 1;
    }
  }
}

// A replacement field `{expr!r:spec}` after its `{`: brackets and nested strings are skipped
// until the `}` that closes it.
void Lexer::scanFStringField(char quote, bool triple, Pos quoteAt, int level) {
  if (level > kMaxFStringNesting) fail(here(), "f-string nested too deeply");
  int depth = 0;
  while (true) {
    if (pos_ >= src_.size())
      fail(quoteAt, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    char c = src_[pos_];
    if (c == '\'' || c == '"') {
      scanNestedString(quoteAt, level);
    } else if (c == '\n' || c == '\r') {
      consumeNewline();
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth, ++pos_;
    } else if (c == ')' || c == ']') {
      depth = depth > 0 ? depth - 1 : 0;
      ++pos_;
    } else if (c == '}') {
      ++pos_;
      if (depth == 0) return;
      --depth;
    } else if (c == ':' && depth == 0) {
      ++pos_;
      scanFormatSpec(quote, triple, quoteAt, level);
      return;
    } else {
      ++pos_;
    }
  }
}

// A format spec after `:`, up to the `}` that closes the field; it may hold nested fields.
void Lexer::scanFormatSpec(char quote, bool triple, Pos quoteAt, int level) {
  while (true) {
    if (pos_ >= src_.size())
      fail(quoteAt, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    char c = src_[pos_];
    if (c == '{') {
      ++pos_;
      scanFStringField(quote, triple, quoteAt, level + 1);
    } else if (c == '}') {
      ++pos_;
      return;
    } else if (c == '\n' || c == '\r') {
      if (!triple) fail(quoteAt, "unterminated string literal");
      consumeNewline();
    } else if (c == quote && !triple) {
      fail(here(), "f-string: expecting '}'");
    } else {
      ++pos_;
    }
  }
}

// A string literal inside a replacement field; its prefix letters were already passed over.
void Lexer::scanNestedString(Pos outerQuoteAt, int level) {
  size_t p = pos_;
  while (p > 0 && isIdentChar(src_[p - 1]) && pos_ - p < 2) --p;
  std::string_view prefix = src_.substr(p, pos_ - p);
  if (p > 0 && isIdentChar(src_[p - 1])) prefix = {};
  Pos quoteAt = here();
  char quote = src_[pos_];
  bool triple = src_.substr(pos_, 3) == std::string(3, quote);
  pos_ += triple ? 3 : 1;
  if (hasPrefix(prefix, 'f'))
    scanFStringBody(quote, triple, quoteAt, level);
  else
    scanStringBody(quote, triple, quoteAt);
}

// Python's escape sequences for str and bytes literals. Unknown escapes keep their backslash
// (Python warns but accepts them). `\N{name}` in a str is an error: kiln has no Unicode name table,
// and keeping the text as written would make a different string than Python's (or accept a name
// Python rejects).
std::string Lexer::decode(std::string_view body, bool bytes, Pos at) const {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;
      case '\r':
        if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
        break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        uint32_t v = 0;
        size_t k = 0;
        for (; k < 3 && i + k < body.size() && body[i + k] >= '0' && body[i + k] <= '7'; ++k)
          v = v * 8 + uint32_t(body[i + k] - '0');
        i += k - 1;
        if (bytes) out += char(v & 0xFF);
        else appendUtf8(out, v);
        break;
      }
      case 'N': {
        if (bytes) {  // not an escape in bytes: the backslash stays, as in Python
          out += "\\N";
          break;
        }
        size_t close = i + 1 < body.size() && body[i + 1] == '{' ? body.find('}', i + 2) : std::string_view::npos;
        if (close == std::string_view::npos || close == i + 2) fail(at, "malformed \\N character escape");
        fail(at, "the escape \\N{" + std::string(body.substr(i + 2, close - i - 2)) +
                     "} names a Unicode character, which kiln cannot look up: write the character itself or "
                     "its \\uXXXX escape");
      }
      case 'x': case 'u': case 'U': {
        size_t len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (e != 'x' && bytes) {
          out += '\\';
          out += e;
          break;
        }
        uint32_t v = 0;
        for (size_t k = 1; k <= len; ++k) {
          int h = i + k < body.size() ? hexValue(body[i + k]) : -1;
          if (h < 0) {
            const char* shape = e == 'x' ? "\\xXX" : e == 'u' ? "\\uXXXX" : "\\UXXXXXXXX";
            fail(at, std::string("truncated ") + shape + " escape");
          }
          v = v * 16 + uint32_t(h);
        }
        i += len;
        if (v > 0x10FFFF) fail(at, "illegal Unicode character in \\U escape");
        if (bytes) out += char(v);
        else appendUtf8(out, v);
        break;
      }
      default:
        out += '\\';
        out += e;
    }
  }
  return out;
}

}  // namespace kiln::frontend::detail
