// The GPU targets the installed ptxas can assemble for, read from its `--help` text (the list after
// "Allowed values" of --gpu-name) once per ptxas: what `--arch` accepts (kiln::checkArch).
#pragma once
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

}  // namespace kiln::support
