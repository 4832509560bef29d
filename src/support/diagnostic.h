// Compiler errors as values: a Diagnostic carries the message, where it happened and how to show it.
// Inside the compiler a user error is thrown as CompileError and caught at the API boundary.
#pragma once
#include <exception>
#include <string>
#include <vector>

#include "support/source.h"

namespace kiln {

struct Diagnostic {
  enum class Kind { Error, Internal, Note };
  Kind kind = Kind::Error;
  SourceLoc loc;
  std::string message;
  std::vector<Diagnostic> notes;  // e.g. "in helper called from here"

  // "file:line:col: error: message", then the source line and a caret under the column.
  // Internal errors read "internal compiler error: ..." so they are never mistaken for user errors.
  std::string render() const;
};

// A user error: bad kernel source, bad signature, bad arguments. Caught at the API boundary.
class CompileError : public std::exception {
 public:
  explicit CompileError(Diagnostic d) : diag_(std::move(d)) {}
  CompileError(SourceLoc loc, std::string message)
      : diag_{Diagnostic::Kind::Error, std::move(loc), std::move(message), {}} {}
  const Diagnostic& diag() const { return diag_; }
  Diagnostic& diag() { return diag_; }
  const char* what() const noexcept override { return diag_.message.c_str(); }

 private:
  Diagnostic diag_;
};

// A bug in kiln (a broken invariant), never the user's fault; also caught at the API boundary.
class InternalError : public std::exception {
 public:
  InternalError(SourceLoc loc, std::string message)
      : diag_{Diagnostic::Kind::Internal, std::move(loc), std::move(message), {}} {}
  const Diagnostic& diag() const { return diag_; }
  const char* what() const noexcept override { return diag_.message.c_str(); }

 private:
  Diagnostic diag_;
};

[[noreturn]] inline void fail(const SourceLoc& loc, std::string message) {
  throw CompileError(loc, std::move(message));
}

}  // namespace kiln
