// Child processes without a shell: posix_spawn, one pipe for stdout and stderr, poll with a deadline,
// SIGKILL after it, and the child always reaped.
#include "support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

extern char** environ;

namespace kiln::support {

namespace {

using Clock = std::chrono::steady_clock;

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// The child until it is reaped: if anything between spawn and wait throws, it is killed and reaped
// rather than left running or as a zombie.
struct Child {
  pid_t pid = -1;
  ~Child() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  // Waits (polling, so the deadline holds) until the child ends; false at the deadline.
  bool waitUntil(Clock::time_point deadline, int& status, std::string& error) {
    for (auto pause = std::chrono::microseconds(200);; pause = std::min(pause * 2, decltype(pause)(50000))) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        pid = -1;
        return true;
      }
      if (w < 0 && errno != EINTR) {
        // ECHILD: the host process ignores SIGCHLD, so the child was reaped without a status.
        error = std::string("cannot wait for the child process: ") + std::strerror(errno);
        pid = -1;
        return true;
      }
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(pause);
    }
  }
};

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ProcessResult result;
  if (argv.empty() || argv[0].empty()) {
    result.whyNotStarted = "no executable given";
    return result;
  }
  const Clock::time_point deadline = Clock::now() + timeout;
  int ends[2];
  // O_CLOEXEC: children that other threads spawn meanwhile must not inherit our pipe, or EOF would
  // wait for them too.
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    result.whyNotStarted = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd readEnd{ends[0]}, writeEnd{ends[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, writeEnd.fd, 1);  // dup2 clears O_CLOEXEC on 1 and 2
  posix_spawn_file_actions_adddup2(&actions, writeEnd.fd, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Child child;
  int rc = ::posix_spawn(&child.pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    child.pid = -1;
    result.whyNotStarted = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  writeEnd.reset();  // only the child writes now, so its exit gives EOF

  bool timedOut = false;
  char buffer[1 << 16];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{readEnd.fd, POLLIN, 0};
    int ready = ::poll(&p, 1, int(std::min<std::int64_t>(left.count() + 1, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;       // cannot watch the pipe: wait for the exit (or the deadline) below
    if (ready == 0) continue;  // poll timed out: the loop head decides
    ssize_t n = ::read(readEnd.fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;  // EOF (or a broken pipe): the child closed its output
    size_t keep = std::min(size_t(n), kMaxProcessOutput - std::min(kMaxProcessOutput, result.output.size()));
    result.output.append(buffer, keep);
  }
  readEnd.reset();

  int status = 0;
  std::string waitError;
  if (timedOut || !child.waitUntil(deadline, status, waitError)) {
    ::kill(child.pid, SIGKILL);
    while (::waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    child.pid = -1;
    result.status = ProcessResult::Status::TimedOut;
    return result;
  }
  if (!waitError.empty()) {
    result.whyNotStarted = waitError;
    return result;  // NotStarted is the closest: we cannot say how it ended
  }
  if (WIFEXITED(status)) {
    result.status = ProcessResult::Status::Exited;
    result.exitCode = WEXITSTATUS(status);
  } else {
    result.status = ProcessResult::Status::Signaled;
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return result;
}

std::string describe(const ProcessResult& result, std::chrono::milliseconds timeout) {
  switch (result.status) {
    case ProcessResult::Status::Exited:
      return "exit status " + std::to_string(result.exitCode);
    case ProcessResult::Status::Signaled:
      return "killed by signal " + std::to_string(result.signal) + " (" + ::strsignal(result.signal) + ")";
    case ProcessResult::Status::TimedOut: {
      auto ms = timeout.count();
      return "did not finish within " +
             (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") +
             " and was killed";
    }
    case ProcessResult::Status::NotStarted:
      return result.whyNotStarted;
  }
  return "unknown status";
}

}  // namespace kiln::support
