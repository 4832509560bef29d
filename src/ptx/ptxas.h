// kiln::ptx's view of ptxas for the tests: assemble PTX text (through the shared runner in
// support/ptxas.h) and read the per-entry resource usage of `ptxas -v`: registers, spills, stack,
// shared memory, barriers. Every kernel of the tests is assembled for sm_80 and sm_90a with it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ptx {

struct EntryUsage {
  std::string name;
  int registers = 0;
  int barriers = 0;
  int stackBytes = 0;
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int sharedBytes = 0;  // static shared memory (dynamic smem is sized at launch)
};

struct AssembleResult {
  bool found = false;  // a ptxas executable was found and started
  bool ok = false;     // ptxas exited 0
  int exitCode = -1;   // -1: did not run or did not exit normally (signal, timeout)
  std::string log;     // ptxas's stdout and stderr, temporary paths taken out (or why it did not run)
  std::vector<EntryUsage> entries;
  std::string cubin;   // the ELF image when ok

  const EntryUsage* entry(std::string_view name) const;
};

struct AssembleOptions {
  std::string ptxas;                   // executable; empty: findPtxas()
  std::vector<std::string> extraArgs;  // e.g. "-O3", "-lineinfo", "-maxrregcount=128"
  int timeoutSeconds = 120;
};

// The path of support::findPtxas() (KILN_PTXAS alone when set, else CUDA_HOME/bin, CUDA_PATH/bin,
// /usr/local/cuda/bin, PATH); nullopt when none is usable.
std::optional<std::string> findPtxas();

// Assembles `ptx` for `arch` ("sm_80", "sm_90a"): ptxas -v -arch=ARCH EXTRA... FILE -o CUBIN, through
// support::runPtxas (no shell, a timeout, a private temporary directory removed afterwards).
AssembleResult assemble(const std::string& ptx, const std::string& arch, const AssembleOptions& options = {});

// Reads the resource lines of `ptxas -v` output (exposed for tests).
std::vector<EntryUsage> parsePtxasInfo(std::string_view log);

}  // namespace kiln::ptx
