// Lexical rules shared by the IR printer and parser (internal to src/ir), so that what one writes
// the other reads: value-name characters, float literals, string escapes.
#pragma once
#include <string>

namespace kiln::ir {

// Characters of a `%name` or `@name` after the sigil.
bool isValueNameChar(char c);
// A float attribute literal that reads back bit-exactly: always has a '.', an exponent, or is
// inf / -inf / nan.
std::string formatFloatLiteral(double d);
// A double-quoted string with C escapes; bytes outside printable ASCII are written as \xHH.
std::string quoteString(const std::string& s);

}  // namespace kiln::ir
