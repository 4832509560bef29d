// The tokenizer of Tile IR text (internal to src/ir). Types are not tokens: the parser reads them
// character by character (tensor<64x32xf16> does not split into sensible tokens).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/types.h"
#include "support/source.h"

namespace kiln::ir {

enum class TokKind { Eof, ValueName, FuncName, Ident, Int, Float, String, Punct };

struct Token {
  TokKind kind = TokKind::Eof;
  std::string text;   // ValueName/FuncName: without the sigil; String: decoded; Int/Float/Ident/Punct: as written
  size_t offset = 0;  // of the first character
  int line = 0;
  bool endsLine = false;  // only blanks or a comment follow it on its line (tells a region's '{')

  bool is(char punct) const { return kind == TokKind::Punct && text[0] == punct; }
};

class Lexer {
 public:
  explicit Lexer(std::shared_ptr<const SourceFile> file);

  // Lexes the token starting at or after `pos` (skipping blanks and comments) and moves `pos` past it.
  Token next(size_t& pos) const;

  const std::string& text() const { return file_->text; }
  int lineOf(size_t offset) const;
  SourceLoc loc(size_t offset) const;
  [[noreturn]] void error(size_t offset, const std::string& message) const;

 private:
  std::shared_ptr<const SourceFile> file_;
  std::vector<size_t> lineStarts_;
};

// "'foo'", "end of file", ...: how a token is named in an error message.
std::string describe(const Token& t);

// The type whose text starts at `pos` (text_types.cpp); moves `pos` past it. Errors go through lex.
Type readType(const Lexer& lex, size_t& pos);

}  // namespace kiln::ir
