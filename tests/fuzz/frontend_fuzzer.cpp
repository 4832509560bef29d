// libFuzzer harness: any text as a kernel source through kiln::compile (front end, sema, the Tile IR
// passes and their verification). The kernel is the text's first @jit function; its signature comes
// from a first line "# kiln-fuzz: KERNEL | SIGNATURE" when there is one (the seeds have it), else from
// its parameters. A user error is the expected answer to most inputs; an internal compiler error (a
// broken invariant, an unexpected exception, "out of memory") aborts: that is a finding.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "frontend/parser.h"
#include "kiln/kiln.h"
#include "support/diagnostic.h"

namespace {

// A signature from the parameters: constexprs 16, names that read as pointers *fp32, the rest i32.
std::string derivedSignature(const kiln::ast::FunctionDef& f) {
  std::string sig;
  for (const kiln::ast::Param& p : f.params) {
    if (!sig.empty()) sig += ", ";
    const bool constexpr_ = p.annotation && p.annotation->name == "constexpr";
    const bool pointer = p.name.find("ptr") != std::string::npos || p.name.find("Ptr") != std::string::npos ||
                         (p.name.size() == 1 && std::string("XYZABCQKVOWxyzabcqkvow").find(p.name) != std::string::npos);
    sig += constexpr_ ? "16" : pointer ? "*fp32" : "i32";
  }
  return sig;
}

// The kernel and signature an input asks for; false when it has no kernel to compile.
bool target(const std::string& text, std::string& kernel, std::string& signature) {
  const std::string header = "# kiln-fuzz:";
  if (text.rfind(header, 0) == 0) {
    const size_t end = text.find('\n');
    const std::string line = text.substr(header.size(), end == std::string::npos ? std::string::npos : end - header.size());
    const size_t bar = line.find('|');
    if (bar != std::string::npos) {
      auto trim = [](std::string s) {
        s.erase(0, s.find_first_not_of(' '));
        s.erase(s.find_last_not_of(' ') + 1);
        return s;
      };
      kernel = trim(line.substr(0, bar));
      signature = trim(line.substr(bar + 1));
      return true;
    }
  }
  try {
    auto module = kiln::frontend::parseModule(kiln::makeSource("fuzz.py", text));
    if (module->functions.empty()) return false;
    kernel = module->functions.front()->name;
    signature = derivedSignature(*module->functions.front());
    return true;
  } catch (const kiln::CompileError&) {
    return false;  // compile() below reports the same error; nothing deeper to reach
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string kernel = "k", signature = "i32";
  if (!target(text, kernel, signature)) kernel = "k";  // still parsed: the front end's errors are exercised
  kiln::Result<kiln::Kernel> k = kiln::compile(kiln::Source::fromString(text, "fuzz.py"), kernel, signature);
  if (!k.ok() && k.error().internal) {
    std::fprintf(stderr, "internal compiler error for kernel '%s', signature '%s':\n%s\n", kernel.c_str(),
                 signature.c_str(), k.error().text.c_str());
    std::abort();
  }
  return 0;
}
