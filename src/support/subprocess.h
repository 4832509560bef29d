// A child process started without a shell: its output captured (stdout and stderr in one pipe), stdin
// empty, and killed after a timeout. The ptxas runner (support/ptxas.h) is built on it.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace kiln::support {

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

}  // namespace kiln::support
