// The Python tokenizer: source text -> tokens with INDENT/DEDENT/NEWLINE, as CPython's tokenizer
// produces them. Errors that Python's tokenizer reports (unterminated strings, unbalanced brackets,
// bad indentation, malformed numbers) are thrown as CompileError wherever they are in the file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/source.h"

namespace kiln::frontend {

enum class TokKind { Name, Number, String, Op, Newline, Indent, Dedent, End };
enum class NumKind { Int, Float, Imag };

struct Token {
  TokKind kind = TokKind::End;
  std::string_view text;  // the spelling in the source (empty for Newline/Indent/Dedent/End)
  int line = 0, col = 0;        // first character (1-based, columns count characters)
  int endLine = 0, endCol = 0;  // just past the last character

  // Number
  NumKind num = NumKind::Int;
  uint64_t intValue = 0;
  bool intTooLarge = false;  // the literal does not fit in 64 bits
  double floatValue = 0;     // Float, and the imaginary part of Imag

  // String: `value` is the decoded text for plain str and bytes literals; f-strings keep it empty.
  std::string value;
  bool bytes = false, fstring = false;

  bool isOp(std::string_view op) const { return kind == TokKind::Op && text == op; }
  bool isName(std::string_view name) const { return kind == TokKind::Name && text == name; }
};

// Tokenizes the whole file; the last token is End. Tokens view the file's text: keep `file` alive.
std::vector<Token> tokenize(const std::shared_ptr<const SourceFile>& file);

// Python's hard keywords (`if`, `def`, `None`, ...); soft keywords like `match` are not among them.
bool isKeyword(std::string_view name);

}  // namespace kiln::frontend
