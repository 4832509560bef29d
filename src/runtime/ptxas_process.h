// Running NVIDIA's ptxas executable safely: finding it, a child process started without a shell whose
// output is captured and which is killed after a timeout, and a private temporary directory that is
// removed on every path. compileToCubin (cubin.h) builds its ptxas backend on these.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

// How a child process ended.
struct ProcessResult {
  enum class Status {
    Exited,      // exitCode holds its status
    Signaled,    // killed by signal `signal` (not by us)
    TimedOut,    // still running at the deadline: killed with SIGKILL and reaped
    NotStarted,  // posix_spawn failed; whyNotStarted says why
  };
  Status status = Status::NotStarted;
  int exitCode = -1;
  int signal = 0;
  std::string output;         // stdout and stderr interleaved as written (at most kMaxProcessOutput)
  std::string whyNotStarted;  // or why it could not be waited for
};

// Output past this is read and dropped, so a chatty child never blocks on a full pipe.
constexpr size_t kMaxProcessOutput = size_t(16) << 20;

// Runs argv (argv[0] is the executable's path; no PATH search, no shell, so nothing in the arguments
// is ever interpreted) with stdin from /dev/null and stdout + stderr into one pipe. Waits at most
// `timeout`; then the child is killed. Never throws for the child's failures: they are in the result.
ProcessResult runProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// One line for the user: "exit status 255", "killed by signal 11", "did not finish within 120 s", ...
std::string describe(const ProcessResult& result, std::chrono::milliseconds timeout);

// A fresh private directory (mkdtemp, mode 0700) under $TMPDIR (else /tmp), removed with everything in
// it when the object dies. Throws CudaError (CompileFailed) when it cannot be created.
class TempDirectory {
 public:
  explicit TempDirectory(const std::string& prefix);  // the directory is named <prefix>XXXXXX
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  ~TempDirectory();

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

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

// What one ptxas run gave.
struct PtxasRun {
  ProcessResult process;
  std::string log;                 // its output, with the temporary directory's name taken out
  std::vector<std::uint8_t> cubin;  // the output file (empty if it wrote none)
};

// Runs `ptxas args... <dir>/kernel.ptx -o <dir>/kernel.cubin` on ptx in a fresh TempDirectory, which is
// gone when this returns or throws. Throws CudaError (CompileFailed) only when the input cannot be
// written; how ptxas ended is in the result.
PtxasRun runPtxas(const std::string& ptxas, const std::string& ptx, const std::vector<std::string>& args,
                  std::chrono::milliseconds timeout);

// The same lookup without the per-process memo; defaultInstall replaces /usr/local/cuda/bin/ptxas (for
// tests of the PATH search on machines that have the default install).
PtxasLocation locatePtxasUncached(const std::string& defaultInstall = "/usr/local/cuda/bin/ptxas");

}  // namespace kiln::runtime
