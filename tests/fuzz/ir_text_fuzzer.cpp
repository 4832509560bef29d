// libFuzzer harness: any text as Tile IR through the parser, the verifier and, for IR that verifies, the
// compiler's pass pipeline with the verifier after every pass (what kiln-opt does). A parse or verify
// error is the expected answer to most inputs; an internal error, or IR that a pass leaves invalid,
// aborts: that is a finding.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ir/text.h"
#include "passes/passes.h"
#include "support/diagnostic.h"

namespace {

// The Tile IR passes in the order kiln::compile runs them (src/driver/compile.cpp).
const char* const kPipeline[] = {"canonicalize", "cse", "licm", "canonicalize", "contract", "dce"};

[[noreturn]] void finding(const std::string& what, const kiln::Diagnostic& d) {
  std::fprintf(stderr, "%s:\n%s\n", what.c_str(), d.render().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto module = kiln::ir::parseModule(kiln::makeSource("fuzz.tir", text));
    for (auto& f : module->functions) {
      if (kiln::ir::verify(*f)) continue;  // invalid input, said so: the passes only take verified IR
      for (const char* pass : kPipeline) {
        kiln::passes::runPass(pass, *f);
        if (auto d = kiln::ir::verify(*f)) finding(std::string("invalid IR after pass '") + pass + "'", *d);
      }
    }
  } catch (const kiln::CompileError&) {
    // a located error in the text: the expected answer
  } catch (const kiln::InternalError& e) {
    finding("internal compiler error", e.diag());
  }
  return 0;
}
