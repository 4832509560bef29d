// Parser for kernel signatures in Triton's AOT syntax ("*fp32:16, i32, 1024"): one entry per
// parameter, each a pointer type, a scalar type or a literal, with an optional ":16" hint, or a tuple
// of such values ("(*fp32:16, (1, None))", a NamedTuple "Tensor(ptr=*fp32, shape=(i32, i32))").
#include "sema/signature.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "support/diagnostic.h"

namespace kiln::sema {

std::optional<ir::Scalar> dtypeFromTritonName(std::string_view n) {
  using S = ir::Scalar;
  static constexpr struct {
    std::string_view name;
    S type;
  } kNames[] = {
      {"fp8e4nv", S::F8E4M3}, {"fp8e5", S::F8E5M2}, {"fp8e4b15", S::F8E4B15}, {"fp8e4b8", S::F8E4B8},
      {"fp8e5b16", S::F8E5B16}, {"fp16", S::F16}, {"bf16", S::BF16},
      {"fp32", S::F32},       {"fp64", S::F64},
  };
  for (const auto& k : kNames)
    if (k.name == n) return k.type;
  return ir::scalarFromName(n);  // i1..i64, u8..u64 and the IR spellings (f32, f8e4m3 ...)
}

namespace {

// Splits at top-level commas: a comma inside a quoted string literal or a tuple does not separate entries.
std::vector<std::string_view> splitEntries(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  char quote = 0;
  int depth = 0;  // inside a tuple's parentheses
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\' && i + 1 < text.size()) ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (depth > 0) --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Parses one trimmed entry; `index` is 1-based for messages.
class EntryParser {
 public:
  // `where` locates the entry's first character in its source; unknown (line 0) when there is none.
  EntryParser(std::string_view text, size_t index, SourceLoc where)
      : s_(text), index_(index), where_(std::move(where)) {}

  SigEntry parse() {
    if (s_.empty()) error("empty entry (expected a type such as 'i32' or '*fp32', or a literal)");
    SigEntry e = value();
    e.text = std::string(s_);
    skipSpace();
    if (pos_ < s_.size())
      error("unexpected '" + std::string(s_.substr(pos_)) + "' after '" + std::string(trim(s_.substr(0, pos_))) + "'");
    return e;
  }

 private:
  // One value at pos_: a type, a literal, or a tuple of values (nested entries of a tuple argument).
  SigEntry value() {
    skipSpace();
    SigEntry e;
    const size_t start = pos_;
    if (pos_ >= s_.size()) error("expected a type or a literal at the end");
    char c = s_[pos_];
    if (c == '(') {
      tuple(e, false);
    } else if (c == '*') {
      ++pos_;
      skipSpace();
      std::string_view name = ident();
      if (name.empty()) error("expected a type after '*'");
      auto t = dtypeFromTritonName(name);
      if (!t) error("unknown type '" + std::string(name) + "'");
      e.kind = SigEntry::Kind::Pointer;
      e.type = *t;
      e.divisibility = hint();
      e.divisibleBy16 = e.divisibility == 16;
    } else if (c == '"' || c == '\'') {
      e.kind = SigEntry::Kind::Literal;
      e.litKind = SigEntry::LitKind::Str;
      e.strValue = stringLiteral();
    } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
      number(e);
    } else if (c == '@') {  // a @jit function passed as an argument: its name in the kernel's module
      ++pos_;
      std::string_view name = ident();
      if (name.empty()) error("expected a function name after '@'");
      e.kind = SigEntry::Kind::Literal;
      e.litKind = SigEntry::LitKind::Function;
      e.strValue = std::string(name);
    } else {
      std::string_view name = ident();
      if (name.empty()) error("unexpected '" + std::string(1, c) + "'");
      if (name == "True" || name == "False") {
        e.kind = SigEntry::Kind::Literal;
        e.litKind = SigEntry::LitKind::Bool;
        e.intValue = name == "True";
        e.type = ir::Scalar::I1;
      } else if (name == "None") {
        e.kind = SigEntry::Kind::Literal;
        e.litKind = SigEntry::LitKind::None;
      } else if (name == "tl" && pos_ < s_.size() && s_[pos_] == '.') {  // a dtype value: "tl.fp16"
        ++pos_;
        std::string_view type = ident();
        auto t = dtypeFromTritonName(type);
        if (!t) error("unknown dtype 'tl." + std::string(type) + "'");
        e.kind = SigEntry::Kind::Literal;
        e.litKind = SigEntry::LitKind::DType;
        e.type = *t;
      } else if (pos_ < s_.size() && s_[pos_] == '(') {  // a NamedTuple: "Tensor(ptr=*fp32, shape=(i32, i32))"
        e.tupleName = std::string(name);
        tuple(e, true);
      } else {
        auto t = dtypeFromTritonName(name);
        if (!t) error("unknown type '" + std::string(name) + "'");
        e.kind = SigEntry::Kind::Scalar;
        e.type = *t;
        e.divisibility = hint();
        e.divisibleBy16 = e.divisibility == 16;
        if (e.divisibility > 1 && (!ir::isInt(*t) || *t == ir::Scalar::I1))
          error("the ':" + std::to_string(e.divisibility) + "' hint applies to pointers and integers, not to '" +
                std::string(name) + "'");
      }
    }
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == ':') {
      if (e.kind == SigEntry::Kind::Literal) error("a literal cannot carry a ':' hint");
      if (e.kind == SigEntry::Kind::Tuple) error("a tuple cannot carry a ':' hint (its elements can)");
    }
    e.text = std::string(trim(s_.substr(start, pos_ - start)));
    return e;
  }

  // A tuple at pos_ ('('): "(a, b)", "(a,)", "()"; `named`: "(field=a, ...)" after the class name.
  void tuple(SigEntry& e, bool named) {
    const size_t open = pos_++;
    e.kind = SigEntry::Kind::Tuple;
    bool comma = false;
    skipSpace();
    while (pos_ < s_.size() && s_[pos_] != ')') {
      if (named) {
        std::string_view field = ident();
        skipSpace();
        if (field.empty() || pos_ >= s_.size() || s_[pos_] != '=')
          error("expected 'field=' in the NamedTuple '" + e.tupleName + "(...)'");
        ++pos_;
        e.fields.emplace_back(field);
      }
      e.elts.push_back(value());
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        comma = true;
        skipSpace();
      } else if (pos_ < s_.size() && s_[pos_] != ')') {
        error("expected ',' or ')' in the tuple '" + std::string(trim(s_.substr(open))) + "', got '" +
              std::string(s_.substr(pos_)) + "'");
      }
    }
    if (pos_ >= s_.size()) error("'(' is not closed");
    ++pos_;
    if (!named && e.elts.size() == 1 && !comma)
      error("a one-element tuple is written '(x,)', with a comma (as in Python)");
  }

  std::string_view s_;
  size_t index_;
  SourceLoc where_;
  size_t pos_ = 0;

  [[noreturn]] void error(const std::string& msg) const {
    throw CompileError(where_, "signature entry " + std::to_string(index_) + " ('" + std::string(s_) +
                                        "'): " + msg);
  }

  void skipSpace() {
    while (pos_ < s_.size() && isSpace(s_[pos_])) ++pos_;
  }

  std::string_view ident() {
    size_t start = pos_;
    while (pos_ < s_.size() && isIdentChar(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  // An optional ":16" (Triton's hint) or ":8" (kiln's) after a type: its divisibility, else 1.
  int hint() {
    skipSpace();
    if (pos_ >= s_.size() || s_[pos_] != ':') return 1;
    ++pos_;
    skipSpace();
    std::string_view v = ident();
    if (v == "16") return 16;
    if (v == "8") return 8;
    if (v.empty()) error("expected '16' or '8' after ':'");
    error("unsupported hint ':" + std::string(v) + "' (':16' and ':8', divisible by 16 or 8, are the hints)");
  }

  std::string stringLiteral() {
    char quote = s_[pos_++];
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) break;
        char n = s_[pos_++];
        switch (n) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case '0': out += '\0'; break;
          default: out += n; break;  // \\, \', \" and unknown escapes keep the character
        }
      } else {
        out += c;
      }
    }
    if (pos_ >= s_.size()) error("unterminated string literal");
    ++pos_;  // closing quote
    return out;
  }

  void number(SigEntry& e) {
    size_t start = pos_;
    while (pos_ < s_.size() && !isSpace(s_[pos_]) && s_[pos_] != ':' && s_[pos_] != ',' && s_[pos_] != ')') ++pos_;
    std::string tok(s_.substr(start, pos_ - start));
    e.kind = SigEntry::Kind::Literal;
    bool isFloat = tok.find_first_of(".eEn") != std::string::npos;  // "inf"/"nan" contain 'n'
    const char* begin = tok.c_str();
    char* end = nullptr;
    errno = 0;
    if (!isFloat) {
      long long v = std::strtoll(begin, &end, 10);
      if (end == begin || *end) error("malformed integer literal '" + tok + "'");
      if (errno == ERANGE) error("integer literal '" + tok + "' does not fit in 64 bits");
      e.litKind = SigEntry::LitKind::Int;
      e.intValue = v;
      e.type = (v >= INT32_MIN && v <= INT32_MAX) ? ir::Scalar::I32 : ir::Scalar::I64;
    } else {
      double v = std::strtod(begin, &end);
      if (end == begin || *end) error("malformed number '" + tok + "'");
      e.litKind = SigEntry::LitKind::Float;
      e.floatValue = v;
      e.type = ir::Scalar::F32;
    }
  }
};

}  // namespace

Signature parseSignature(std::string_view text, const std::shared_ptr<const SourceFile>& shownAs) {
  Signature sig;
  sig.text = std::string(text);
  if (trim(text).empty()) return sig;  // a kernel without parameters
  std::vector<std::string_view> parts = splitEntries(text);
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view entry = trim(parts[i]);
    SourceLoc where;
    if (shownAs) {  // line and column of the entry's first character (an empty one: where it would be)
      size_t offset = size_t(entry.data() - text.data());
      if (entry.empty()) offset = size_t(parts[i].data() - text.data());
      std::string_view before = text.substr(0, offset);
      size_t lineStart = before.rfind('\n');
      lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
      int line = int(std::count(before.begin(), before.end(), '\n')) + 1;
      where = SourceLoc{shownAs, line, int(offset - lineStart) + 1};
    }
    sig.entries.push_back(EntryParser(entry, i + 1, where).parse());
  }
  return sig;
}

Signature parseSignature(std::string_view text) { return parseSignature(text, nullptr); }

}  // namespace kiln::sema
