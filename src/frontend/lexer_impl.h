// The tokenizer's internal state, shared by lexer.cpp (layout, names, numbers, operators) and
// lexer_string.cpp (string and f-string literals, escape decoding). Not part of the interface.
#pragma once
#include <string>
#include <vector>

#include "frontend/lexer.h"
#include "support/diagnostic.h"

namespace kiln::frontend::detail {

class Lexer {
 public:
  explicit Lexer(const std::shared_ptr<const SourceFile>& file) : file_(file), src_(file->text) {}
  std::vector<Token> run();

 private:
  struct Pos {
    int line, col;
  };
  struct Open {
    char c;
    Pos at;
  };

  // lexer.cpp
  Pos here() { return {line_, colAt(pos_)}; }
  int colAt(size_t p);
  void consumeNewline();
  [[noreturn]] void fail(Pos at, std::string message) const;
  Token& emit(TokKind kind, size_t start, Pos at);
  void handleIndentation();
  void scanName();
  void scanNumber();
  bool keywordFollows() const;
  void scanDigits(bool (*isDigit)(char), const char* what, std::string& out);
  void scanOperator();

  // lexer_string.cpp
  void scanString(size_t start, Pos at, std::string_view prefix);
  void scanStringBody(char quote, bool triple, Pos quoteAt);
  void scanFStringBody(char quote, bool triple, Pos quoteAt, int level);
  void scanFStringField(char quote, bool triple, Pos quoteAt, int level);
  void scanFormatSpec(char quote, bool triple, Pos quoteAt, int level);
  void scanNestedString(Pos outerQuoteAt, int level);
  std::string decode(std::string_view body, bool bytes, Pos at) const;

  const std::shared_ptr<const SourceFile>& file_;
  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  size_t colPos_ = 0;  // colAt() caches the column of one position of the current line
  int colVal_ = 1;
  std::vector<Token> toks_;
  std::vector<int> indents_{0}, altIndents_{0};  // tab size 8 and tab size 1, as CPython checks
  std::vector<Open> brackets_;
  bool lineHasTokens_ = false;
};

inline bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
inline bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

}  // namespace kiln::frontend::detail
