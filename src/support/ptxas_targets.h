// The GPU targets the installed ptxas can assemble for: the list in its `--help` text (after "Allowed
// values" of --gpu-name), and whether it takes one given target (kiln::checkArch, what `--arch` accepts).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::support {

// The real-GPU targets ("sm_80", "sm_90a", ...) named in ptxas's help text, each once, ordered by
// compute capability with the plain target before its "a" variant. Virtual (compute_), LTO (lto_) and
// family ("f") targets are left out: kiln emits PTX for one real GPU or for a capability and later.
std::vector<std::string> parsePtxasTargets(std::string_view helpText);

// The targets of the ptxas support::findPtxas() finds, asked once per ptxas path and process; empty
// when there is no ptxas or it did not answer `--help`.
std::vector<std::string> ptxasTargets();

// Whether the ptxas support::findPtxas() finds takes `--gpu-name target` (it refuses a target it does not
// know even beside --version, which answers at once); nullopt when there is no ptxas. Asked once per
// ptxas path, target and process. Much cheaper than ptxasTargets(): ptxas writes its help text a byte at
// a time, so reading it through a pipe costs tens of milliseconds.
std::optional<bool> ptxasAcceptsTarget(const std::string& target);

}  // namespace kiln::support
