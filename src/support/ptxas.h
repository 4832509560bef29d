// NVIDIA's ptxas executable, the one runner kiln has: finding it (the documented search order) and
// running it on PTX text in a private temporary directory. The runtime's ptxas backend (cubin.h) and
// kiln::ptx::assemble (ptx/ptxas.h, for the tests) are both built on it.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace kiln::support {

// The ptxas executable kiln runs: KILN_PTXAS if set (then it is the only one tried, so a wrong value
// never silently picks another ptxas), else $CUDA_HOME/bin/ptxas, $CUDA_PATH/bin/ptxas,
// /usr/local/cuda/bin/ptxas and the directories of PATH. A candidate must be an executable regular
// file that answers `--version` like ptxas (exit 0, "ptxas" or "Cuda compilation tools" in the text).
struct PtxasLocation {
  std::string path;                // empty when none was found
  std::string version;             // its `--version` output (identifies it in cache keys)
  std::vector<std::string> tried;  // every candidate with why it was rejected, in order
  bool found() const { return !path.empty(); }
  std::string whyNot() const;      // "ptxas not found (tried ...)" for error messages
};

// The lookup, done once per process for each value of the variables it reads (KILN_PTXAS, CUDA_HOME,
// CUDA_PATH, PATH), so a changed environment is honoured; thread-safe.
PtxasLocation findPtxas();

// The same lookup without the per-process memo; defaultInstall replaces /usr/local/cuda/bin/ptxas (for
// tests of the PATH search on machines that have the default install).
PtxasLocation locatePtxasUncached(const std::string& defaultInstall = "/usr/local/cuda/bin/ptxas");

// What one ptxas run gave.
struct PtxasRun {
  ProcessResult process;
  std::string log;                  // its output, with the temporary directory's name taken out
  std::vector<std::uint8_t> cubin;  // the output file, read only when ptxas exited 0 (empty if none)
};

// Runs `ptxas args... <dir>/kernel.ptx -o <dir>/kernel.cubin` on ptx in a fresh TempDirectory
// (temp_dir.h), which is gone when this returns or throws. Throws OsError (temp_dir.h) only when the
// directory cannot be made or the input cannot be written; how ptxas ended is in the result.
PtxasRun runPtxas(const std::string& ptxas, const std::string& ptx, const std::vector<std::string>& args,
                  std::chrono::milliseconds timeout);

}  // namespace kiln::support
