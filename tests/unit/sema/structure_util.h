// Helpers for the structure tests of sema: parse a kernel from a string, lower it for a signature,
// count ops, and capture the diagnostic of a failing lowering.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frontend/parser.h"
#include "ir/text.h"
#include "sema/sema.h"
#include "sema/signature.h"

namespace kiln::sema::test {

inline const char* kPrelude = "import triton\nimport triton.language as tl\n\n";

// Lowers `kernel` of `src` (prefixed with the usual imports) for `sig`.
inline std::unique_ptr<ir::Module> lowerSource(const std::string& src, const std::string& kernel,
                                               const std::string& sig) {
  auto file = makeSource("test.py", kPrelude + src);
  auto module = frontend::parseModule(file);
  return lowerKernel(*module, kernel, parseSignature(sig));
}

// The diagnostic of a lowering that must fail with a CompileError; a success fails the test.
inline Diagnostic lowerError(const std::string& src, const std::string& kernel, const std::string& sig) {
  try {
    auto m = lowerSource(src, kernel, sig);
    ADD_FAILURE() << "expected a compile error, got IR:\n" << ir::print(*m);
  } catch (const CompileError& e) {
    return e.diag();
  }
  return {};
}

// Line in the test source, counting the first line after the R"( newline as line 1 (the prelude's
// three lines and that newline subtracted).
inline int srcLine(const SourceLoc& l) { return l.line - 4; }
inline int srcLine(const Diagnostic& d) { return srcLine(d.loc); }

inline int countOps(const ir::Block& b, ir::Opcode op) {
  int n = 0;
  for (const auto& o : b.ops) {
    n += o->opcode == op;
    for (const auto& r : o->regions) n += countOps(*r, op);
  }
  return n;
}
inline int countOps(const ir::Module& m, ir::Opcode op) { return countOps(m.functions.at(0)->body, op); }

// The first op of kind `op` in a pre-order walk, or null.
inline const ir::Op* findOp(const ir::Block& b, ir::Opcode op) {
  for (const auto& o : b.ops) {
    if (o->opcode == op) return o.get();
    for (const auto& r : o->regions)
      if (const ir::Op* f = findOp(*r, op)) return f;
  }
  return nullptr;
}
inline const ir::Op* findOp(const ir::Module& m, ir::Opcode op) { return findOp(m.functions.at(0)->body, op); }

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace kiln::sema::test
