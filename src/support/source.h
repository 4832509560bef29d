// Source text and positions in it: every AST node, IR op and diagnostic carries a SourceLoc.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace kiln {

// One source file (or string) held in memory; shared by every location that points into it.
struct SourceFile {
  std::string name;  // path, or "<string>"
  std::string text;
  // The text is one statement cut out of a larger text at its original place (a nested kernel's def,
  // preceded by blank lines up to its line): the indentation of its first line is the top level.
  bool block = false;

  // The text of 1-based line `line`, without its newline; empty when out of range.
  std::string_view line(int line) const;
};

// A position in a source file; line and col are 1-based, 0 means unknown.
struct SourceLoc {
  std::shared_ptr<const SourceFile> file;
  int line = 0;
  int col = 0;

  bool known() const { return file && line > 0; }
  // "file:line:col", or "<unknown>" when the position is not known.
  std::string str() const;
};

std::shared_ptr<const SourceFile> makeSource(std::string name, std::string text, bool block = false);

}  // namespace kiln
