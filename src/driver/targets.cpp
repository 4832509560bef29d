// supportedArchs and checkArch (kiln.h): the GPU targets from sm_80 up, as the compiler can emit them
// (ptx::Target) and the installed ptxas can assemble them (support/ptxas_targets.h).
#include <optional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "ptx/builder.h"
#include "support/ptxas_targets.h"

namespace kiln {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<std::string> supportedArchs() {
  std::vector<std::string> out;
  for (const std::string& t : support::ptxasTargets())
    if (ptx::Target::parse(t)) out.push_back(t);  // from sm_80 up
  return out;
}

std::optional<std::string> checkArch(const std::string& arch) {
  if (!ptx::Target::parse(arch))
    return "unknown GPU target '" + arch + "': kiln compiles for sm_<capability>[a] from sm_80 up (sm_80, sm_86, "
           "sm_89, sm_90a, sm_100, ...)";
  // One short ptxas run answers the common case; the full list (ptxas's help text, slow to read) is
  // only read to name the known targets when ptxas refuses this one.
  if (support::ptxasAcceptsTarget(arch).value_or(true)) return std::nullopt;
  const std::vector<std::string> known = supportedArchs();
  if (known.empty()) return std::nullopt;  // no ptxas to ask: PTX for any such target can be emitted
  for (const std::string& k : known)
    if (k == arch) return std::nullopt;
  return "the installed ptxas cannot assemble for '" + arch + "' (it knows " + joined(known) + ")";
}

}  // namespace kiln
