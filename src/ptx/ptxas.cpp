// ptxas in a subprocess: temp files, posix_spawn (no shell, so no quoting or injection), a timeout,
// and the parse of its -v resource report.
#include "ptx/ptxas.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace kiln::ptx {

const EntryUsage* AssembleResult::entry(std::string_view name) const {
  for (const EntryUsage& u : entries)
    if (u.name == name) return &u;
  return nullptr;
}

namespace {

bool executable(const std::string& path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The integer just before `key` in `line` ("12 registers" -> 12); -1 when absent.
int numberBefore(std::string_view line, std::string_view key) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return -1;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == end) return -1;
  return std::atoi(std::string(line.substr(begin, end - begin)).c_str());
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out.flush());
}

bool safeArch(const std::string& arch) {
  if (arch.size() < 4 || arch.size() > 16) return false;
  for (char c : arch)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Runs argv with stdout and stderr into logPath; returns the exit status, or -1 (not started,
// killed by a signal, or stopped after timeoutSeconds).
int run(const std::vector<std::string>& argv, const std::string& logPath, int timeoutSeconds, std::string& why) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    why = "could not start " + argv[0] + ": " + std::string(std::strerror(rc));
    return -1;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      why = "waitpid failed";
      return -1;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      why = argv[0] + " did not finish within " + std::to_string(timeoutSeconds) + " s";
      return -1;
    }
    std::this_thread::sleep_for(pause);
  }
  if (!WIFEXITED(status)) {
    why = argv[0] + " was stopped by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

}  // namespace

std::optional<std::string> findPtxas() {
  if (const char* env = std::getenv("KILN_PTXAS"); env && executable(env)) return std::string(env);
  if (const char* path = std::getenv("PATH")) {
    std::string_view p = path;
    while (!p.empty()) {
      size_t colon = p.find(':');
      std::string dir(p.substr(0, colon));
      if (!dir.empty() && executable(dir + "/ptxas")) return dir + "/ptxas";
      if (colon == std::string_view::npos) break;
      p.remove_prefix(colon + 1);
    }
  }
  if (executable("/usr/local/cuda/bin/ptxas")) return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

std::vector<EntryUsage> parsePtxasInfo(std::string_view log) {
  std::vector<EntryUsage> out;
  EntryUsage* cur = nullptr;
  while (!log.empty()) {
    size_t nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    log.remove_prefix(nl == std::string_view::npos ? log.size() : nl + 1);
    constexpr std::string_view kCompiling = "Compiling entry function '";
    constexpr std::string_view kProps = "Function properties for ";
    if (size_t at = line.find(kCompiling); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + kCompiling.size());
      out.push_back(EntryUsage{std::string(rest.substr(0, rest.find('\''))), 0, 0, 0, 0, 0, 0});
      cur = &out.back();
    } else if (size_t at2 = line.find(kProps); at2 != std::string_view::npos) {
      std::string_view name = line.substr(at2 + kProps.size());
      while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.remove_suffix(1);
      cur = nullptr;  // a device function's report, unless it names an entry
      for (EntryUsage& u : out)
        if (u.name == name) cur = &u;
    } else if (cur) {
      if (int v = numberBefore(line, "bytes stack frame"); v >= 0) cur->stackBytes = v;
      if (int v = numberBefore(line, "bytes spill stores"); v >= 0) cur->spillStoreBytes = v;
      if (int v = numberBefore(line, "bytes spill loads"); v >= 0) cur->spillLoadBytes = v;
      if (int v = numberBefore(line, "registers"); v >= 0) cur->registers = v;
      if (int v = numberBefore(line, "barriers"); v >= 0) cur->barriers = v;
      if (int v = numberBefore(line, "bytes smem"); v >= 0) cur->sharedBytes = v;
    }
  }
  return out;
}

AssembleResult assemble(const std::string& ptx, const std::string& arch, const AssembleOptions& options) {
  AssembleResult r;
  std::optional<std::string> exe = options.ptxas.empty() ? findPtxas() : std::optional<std::string>(options.ptxas);
  if (!exe || !executable(*exe)) {
    r.log = "ptxas not found (set KILN_PTXAS, put it on PATH or install the CUDA toolkit)";
    return r;
  }
  if (!safeArch(arch)) {
    r.log = "bad architecture name '" + arch + "'";
    return r;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dirTemplate = std::string(tmp && *tmp ? tmp : "/tmp") + "/kiln-ptxas-XXXXXX";
  std::vector<char> buf(dirTemplate.begin(), dirTemplate.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    r.log = "cannot create a temporary directory under " + dirTemplate;
    return r;
  }
  std::string dir = buf.data(), in = dir + "/kernel.ptx", out = dir + "/kernel.cubin", logPath = dir + "/ptxas.log";
  if (!writeFile(in, ptx)) {
    r.log = "cannot write " + in;
  } else {
    std::vector<std::string> argv{*exe, "-v", "-arch=" + arch};
    argv.insert(argv.end(), options.extraArgs.begin(), options.extraArgs.end());
    argv.insert(argv.end(), {in, "-o", out});
    std::string why;
    r.exitCode = run(argv, logPath, options.timeoutSeconds, why);
    r.found = r.exitCode >= 0 || why.find("did not finish") != std::string::npos ||
              why.find("signal") != std::string::npos;
    r.log = readFile(logPath);
    if (!why.empty()) r.log += (r.log.empty() ? "" : "\n") + why;
    r.ok = r.exitCode == 0;
    if (r.ok) {
      r.entries = parsePtxasInfo(r.log);
      r.cubin = readFile(out);
    }
  }
  ::unlink(in.c_str());
  ::unlink(out.c_str());
  ::unlink(logPath.c_str());
  ::rmdir(dir.c_str());
  return r;
}

}  // namespace kiln::ptx
