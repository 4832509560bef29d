// The pass registry: names to pass functions, for kiln-opt and --dump-after.
#include "passes/passes.h"

namespace kiln::passes {

namespace {
struct Entry {
  const char* name;
  void (*run)(ir::Function&);
};
constexpr Entry kPasses[] = {
    {"canonicalize", canonicalize},
    {"cse", cse},
    {"dce", dce},
    {"licm", licm},
    {"unroll", unroll},
    {"contract", contract},
    {"dot_accumulate", dotAccumulate},
    {"remat", remat},
    {"split_dots", splitDots},
};
}  // namespace

bool runPass(std::string_view name, ir::Function& fn) {
  for (const Entry& e : kPasses)
    if (name == e.name) {
      e.run(fn);
      return true;
    }
  return false;
}

std::vector<std::string> passNames() {
  std::vector<std::string> out;
  for (const Entry& e : kPasses) out.push_back(e.name);
  return out;
}

}  // namespace kiln::passes
