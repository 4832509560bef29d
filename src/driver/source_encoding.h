// PEP 263 coding declarations in kernel files the C++ side reads itself (Source::fromFile: the CLI, the
// C++ API). kiln's front end reads UTF-8; a file declared latin-1 is converted rather than misread.
#pragma once
#include <optional>
#include <string>

namespace kiln {

// Converts `text` to UTF-8 according to a `coding` comment on its first or second line: UTF-8 and
// ASCII (or no declaration) leave it as it is, latin-1 (ISO-8859-1 and its aliases) is converted.
// Any other declared encoding leaves it unchanged and returns the message saying so.
std::optional<std::string> decodeDeclaredEncoding(std::string& text);

}  // namespace kiln
