// Compiler warnings: located messages that do not stop compilation (kiln::Kernel::warnings() holds them
// rendered). Errors are Diagnostics, thrown; warnings are collected.
#pragma once
#include <string>

#include "support/source.h"

namespace kiln {

struct CompilerWarning {
  SourceLoc loc;
  std::string message;
  // "file:line:col: warning: message", the source line and a caret, as Diagnostic::render shows errors.
  std::string render() const;
};

}  // namespace kiln
