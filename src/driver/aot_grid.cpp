// Grid expressions of `kiln aot --grid` (aot_grid.h): a small recursive-descent parser over integers,
// names, + - * // / % unary minus, parentheses and cdiv/min/max, that writes each dimension as C.
#include "driver/aot_grid.h"

#include <cctype>

namespace kiln::aot {

namespace {

struct GridError {
  size_t column;  // 1-based
  std::string message;
};

class GridParser {
 public:
  GridParser(const std::string& text, const std::vector<GridName>& names, const std::string& prefix)
      : s_(text), names_(names), prefix_(prefix) {}

  std::vector<std::string> dims() {
    std::vector<std::string> out;
    skip();
    if (pos_ == s_.size()) fail(pos_, "the grid is empty");
    // "(a, b, c)" and "a, b, c" are the same grid; "(n + 1) // 2" is one expression in parentheses.
    bool wrapped = s_[pos_] == '(' && enclosesAll(pos_);
    if (wrapped) ++pos_;
    for (;;) {
      skip();
      if (wrapped && peek() == ')' && !out.empty()) break;  // "(a,)"
      if (out.size() == 3) fail(pos_, "a grid has at most three dimensions");
      out.push_back(expr());
      skip();
      if (peek() != ',') break;
      ++pos_;
      skip();
      if (pos_ == s_.size()) break;  // "a, b,"
    }
    skip();
    if (wrapped) {
      if (peek() != ')') fail(pos_, "expected ',' or ')'");
      ++pos_;
      skip();
    }
    if (pos_ != s_.size()) fail(pos_, std::string("unexpected '") + s_[pos_] + "'");
    while (out.size() < 3) out.push_back("(int64_t)1");
    return out;
  }

 private:
  const std::string& s_;
  const std::vector<GridName>& names_;
  const std::string& prefix_;
  size_t pos_ = 0;
  int depth_ = 0;

  [[noreturn]] void fail(size_t at, const std::string& message) { throw GridError{at + 1, message}; }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  // Whether the '(' at `open` closes at the end of the text and holds a top-level comma.
  bool enclosesAll(size_t open) const {
    int depth = 0;
    bool comma = false;
    for (size_t i = open; i < s_.size(); ++i) {
      if (s_[i] == '(') ++depth;
      if (s_[i] == ')' && --depth == 0) {
        size_t rest = i + 1;
        while (rest < s_.size() && std::isspace(static_cast<unsigned char>(s_[rest]))) ++rest;
        return rest == s_.size() && comma;
      }
      if (s_[i] == ',' && depth == 1) comma = true;
    }
    return false;
  }

  std::string call(const char* helper, const std::string& a, const std::string& b, bool checked) {
    return prefix_ + "_" + helper + "_(" + a + ", " + b + (checked ? ", &kiln_aot_ok)" : ")");
  }

  std::string expr() {
    std::string left = term();
    for (;;) {
      skip();
      char c = peek();
      if (c != '+' && c != '-') return left;
      ++pos_;
      left = "(" + left + " " + c + " " + term() + ")";
    }
  }

  std::string term() {
    std::string left = unary();
    for (;;) {
      skip();
      char c = peek();
      if (c == '*') {
        ++pos_;
        left = "(" + left + " * " + unary() + ")";
      } else if (c == '/') {
        pos_ += s_.compare(pos_, 2, "//") == 0 ? 2 : 1;
        left = call("div", left, unary(), true);
      } else if (c == '%') {
        ++pos_;
        left = call("mod", left, unary(), true);
      } else {
        return left;
      }
    }
  }

  std::string unary() {
    // Each nesting level (parenthesis, call, unary sign) recurses: bound it so no input runs the stack out.
    if (++depth_ > 200) fail(pos_, "the expression nests too deeply");
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    skip();
    if (peek() == '-') {
      ++pos_;
      return "(-" + unary() + ")";
    }
    if (peek() == '+') {
      ++pos_;
      return unary();
    }
    return primary();
  }

  std::string primary() {
    skip();
    const size_t start = pos_;
    char c = peek();
    if (c == '(') {
      ++pos_;
      std::string inner = expr();
      skip();
      if (peek() != ')') fail(pos_, peek() == ',' ? "a tuple can only be the whole grid" : "expected ')'");
      ++pos_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '_') ++pos_;
      std::string digits;
      for (size_t i = start; i < pos_; ++i)
        if (s_[i] != '_') digits += s_[i];
      if (std::isalpha(static_cast<unsigned char>(peek()))) fail(pos_, "expected an integer");
      if (digits.size() > 18) fail(start, "the integer " + digits + " is too large");
      return "(int64_t)" + digits;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      skip();
      if (peek() == '(') return function(name, start);
      return reference(name, start);
    }
    if (c == '\0') fail(pos_, "the expression ends early");
    fail(pos_, std::string("unexpected '") + c + "'");
  }

  std::string function(const std::string& name, size_t at) {
    if (name != "cdiv" && name != "min" && name != "max")
      fail(at, "unknown function '" + name + "' (a grid can call cdiv, min and max)");
    ++pos_;  // '('
    std::string a = expr();
    skip();
    if (peek() != ',') fail(pos_, name + "() takes two arguments");
    ++pos_;
    std::string b = expr();
    skip();
    if (peek() != ')') fail(pos_, name + "() takes two arguments");
    ++pos_;
    return call(name.c_str(), a, b, name == "cdiv");
  }

  std::string reference(const std::string& name, size_t at) {
    for (const GridName& n : names_) {
      if (n.name != name) continue;
      if (!n.whyNot.empty()) fail(at, "'" + name + "' " + n.whyNot);
      if (n.value) return "(int64_t)" + std::to_string(*n.value);
      return "(int64_t)" + n.cName;
    }
    std::string known;
    for (const GridName& n : names_)
      if (n.whyNot.empty()) known += (known.empty() ? "" : ", ") + n.name;
    fail(at, "unknown name '" + name + "' (the grid can use " + (known.empty() ? "no names" : known) + ")");
  }
};

}  // namespace

std::optional<std::vector<std::string>> parseGrid(const std::string& text, const std::vector<GridName>& names,
                                                  const std::string& prefix, std::string& error) {
  try {
    return GridParser(text, names, prefix).dims();
  } catch (const GridError& e) {
    error = "--grid '" + text + "', column " + std::to_string(e.column) + ": " + e.message;
    return std::nullopt;
  }
}

std::string gridHelpers(const std::string& p, const std::vector<std::string>& dims) {
  std::string all;
  for (const std::string& d : dims) all += d;
  auto uses = [&](const char* helper) { return all.find(p + "_" + helper + "_(") != std::string::npos; };
  const bool cdiv = uses("cdiv");
  // Rounding down (Python's // and %) agrees with C's truncation for the non-negative values grids use,
  // and makes a negative operand give the answer a Python user expects.
  std::string c;
  if (uses("div") || cdiv)
    c += "static inline int64_t " + p + "_div_(int64_t a, int64_t b, int *ok) {\n"
         "  int64_t q;\n"
         "  if (b == 0 || (a == INT64_MIN && b == -1)) { *ok = 0; return 0; }\n"
         "  q = a / b;\n"
         "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
         "}\n";
  if (uses("mod"))
    c += "static inline int64_t " + p + "_mod_(int64_t a, int64_t b, int *ok) {\n"
         "  int64_t r;\n"
         "  if (b == 0) { *ok = 0; return 0; }\n"
         "  if (b == -1) return 0;\n"
         "  r = a % b;\n"
         "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
         "}\n";
  if (cdiv)
    c += "static inline int64_t " + p + "_cdiv_(int64_t a, int64_t b, int *ok) {\n"
         "  return " + p + "_div_(a + b - 1, b, ok);\n"
         "}\n";
  if (uses("min")) c += "static inline int64_t " + p + "_min_(int64_t a, int64_t b) { return a < b ? a : b; }\n";
  if (uses("max")) c += "static inline int64_t " + p + "_max_(int64_t a, int64_t b) { return a > b ? a : b; }\n";
  return c;
}

}  // namespace kiln::aot
