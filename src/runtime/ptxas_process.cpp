// Child processes without a shell (posix_spawn, a pipe, poll with a deadline, SIGKILL after it),
// private temporary directories, and the search for the ptxas executable.
#include "runtime/ptxas_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "runtime/cuda_error.h"

extern char** environ;

namespace kiln::runtime {

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

bool writeWhole(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  return ::close(fd) == 0 && done == text.size();
}

// The file's bytes; empty when it is missing or unreadable.
std::vector<std::uint8_t> readWhole(const std::string& path) {
  std::vector<std::uint8_t> data;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return data;
  std::uint8_t buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.insert(data.end(), buffer, buffer + n);
  }
  ::close(fd);
  return data;
}

std::string envOrEmpty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Why path cannot be run as ptxas, or empty when it can.
std::string unusable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return "not executable";
  return {};
}

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

TempDirectory::TempDirectory(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec || root.empty()) root = "/tmp";
  std::string pattern = (root / (prefix + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    throw CudaError(CudaError::Kind::CompileFailed,
                    "cannot create a temporary directory " + pattern + ": " + std::strerror(errno) +
                        " (set TMPDIR to a writable directory)",
                    {}, "mkdtemp");
  path_ = name.data();
}

TempDirectory::~TempDirectory() {
  std::error_code ec;  // best effort: nothing to report from a destructor
  std::filesystem::remove_all(path_, ec);
}

PtxasRun runPtxas(const std::string& ptxas, const std::string& ptx, const std::vector<std::string>& args,
                  std::chrono::milliseconds timeout) {
  TempDirectory dir("kiln-ptxas-");
  const std::string in = dir.file("kernel.ptx"), out = dir.file("kernel.cubin");
  if (!writeWhole(in, ptx))
    throw CudaError(CudaError::Kind::CompileFailed, "PTX -> cubin: cannot write " + in + ": " + std::strerror(errno),
                    {}, "write");
  std::vector<std::string> argv = {ptxas};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {in, "-o", out});
  PtxasRun run;
  run.process = runProcess(argv, timeout);
  // ptxas names its input by path, and the directory is gone by the time anyone reads the log.
  run.log = std::move(run.process.output);
  run.process.output.clear();
  const std::string prefix = dir.path() + "/";
  for (size_t at = run.log.find(prefix); at != std::string::npos; at = run.log.find(prefix, at))
    run.log.erase(at, prefix.size());
  if (run.process.status == ProcessResult::Status::Exited && run.process.exitCode == 0) run.cubin = readWhole(out);
  return run;
}

std::string PtxasLocation::whyNot() const {
  std::string out = "ptxas not found (tried ";
  for (size_t i = 0; i < tried.size(); ++i) out += (i ? "; " : "") + tried[i];
  return out + (tried.empty() ? "nothing" : "") + ")";
}

PtxasLocation locatePtxasUncached(const std::string& defaultInstall) {
  PtxasLocation loc;
  // Accepts path when it runs as ptxas; otherwise notes why not.
  auto accept = [&](const std::string& path, const std::string& label) {
    std::string why = unusable(path);
    if (why.empty()) {
      ProcessResult r = runProcess({path, "--version"}, std::chrono::seconds(30));
      const bool looksLikePtxas = r.output.find("ptxas") != std::string::npos ||
                                  r.output.find("Cuda compilation tools") != std::string::npos;
      if (r.status == ProcessResult::Status::Exited && r.exitCode == 0 && looksLikePtxas) {
        loc.path = path;
        loc.version = r.output;
        return true;
      }
      why = "`--version` " +
            (r.status == ProcessResult::Status::Exited && r.exitCode == 0 ? "does not name ptxas"
                                                                          : describe(r, std::chrono::seconds(30)));
    }
    loc.tried.push_back(label + path + ": " + why);
    return false;
  };
  if (const std::string env = envOrEmpty("KILN_PTXAS"); !env.empty()) {
    accept(env, "KILN_PTXAS=");
    return loc;
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const std::string home = envOrEmpty(var); !home.empty())
      if (accept(home + "/bin/ptxas", "$" + std::string(var) + "/bin/ptxas = ")) return loc;
  if (accept(defaultInstall, "")) return loc;
  const std::string path = envOrEmpty("PATH");
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = std::min(path.find(':', begin), path.size());
    std::string dir = path.substr(begin, end - begin);
    // An empty entry means the working directory; kiln does not run programs from there unasked.
    // Only executables are tried (a directory without ptxas is not worth a line in the message), and
    // the default install not twice.
    if (!dir.empty() && dir.front() == '/' && dir + "/ptxas" != defaultInstall && unusable(dir + "/ptxas").empty())
      if (accept(dir + "/ptxas", "PATH: ")) return loc;
    begin = end + 1;
  }
  loc.tried.push_back("no ptxas on PATH");
  return loc;
}

PtxasLocation findPtxas() {
  // The memo is keyed by the environment the lookup reads, so setting KILN_PTXAS (or PATH) later in
  // the process takes effect; each distinct environment is searched once.
  static struct {
    std::mutex mutex;
    std::map<std::string, PtxasLocation> byEnvironment;
  } memo;
  std::string key;
  for (const char* var : {"KILN_PTXAS", "CUDA_HOME", "CUDA_PATH", "PATH"}) {
    const char* v = std::getenv(var);
    key += v ? "1" + std::string(v) : "0";
    key += '\0';
  }
  // Held while searching: concurrent first callers wait for one search instead of each running ptxas.
  std::lock_guard<std::mutex> lock(memo.mutex);
  auto it = memo.byEnvironment.find(key);
  if (it == memo.byEnvironment.end()) it = memo.byEnvironment.emplace(key, locatePtxasUncached()).first;
  return it->second;
}

}  // namespace kiln::runtime
