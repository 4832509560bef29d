// Helpers for the pass unit tests: parse IR text, run a pass, verify, and compare printed IR.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ir/text.h"
#include "passes/passes.h"
#include "support/diagnostic.h"

namespace kiln::passes::test {

inline std::unique_ptr<ir::Module> parse(const std::string& text) {
  try {
    return ir::parseModule(makeSource("test.tir", text));
  } catch (const CompileError& e) {
    ADD_FAILURE() << e.diag().render();
    return std::make_unique<ir::Module>();
  }
}

// The canonical printed form of `text` (values renumbered), so expectations may use any names.
inline std::string canonical(const std::string& text) { return ir::print(*parse(text)); }

inline void expectValid(const ir::Function& f, const std::string& when) {
  if (std::optional<Diagnostic> d = ir::verify(f)) ADD_FAILURE() << when << ": " << d->render() << "\n" << ir::print(f);
}

// Runs pass `name` on every function of `text`; the input and the output must verify.
inline std::string run(const std::string& name, const std::string& text) {
  std::unique_ptr<ir::Module> m = parse(text);
  for (auto& f : m->functions) {
    expectValid(*f, "input");
    EXPECT_TRUE(runPass(name, *f));
    expectValid(*f, "after " + name);
  }
  return ir::print(*m);
}

}  // namespace kiln::passes::test

// Expects pass `name` to turn `in` into `out` (both IR text, compared in canonical form).
#define EXPECT_PASS(name, in, out) EXPECT_EQ(::kiln::passes::test::run(name, in), ::kiln::passes::test::canonical(out))
// Expects pass `name` to leave `in` unchanged.
#define EXPECT_UNCHANGED(name, in) EXPECT_PASS(name, in, in)
