// The ptxas executable: the search for it (KILN_PTXAS, CUDA_HOME, CUDA_PATH, the default install, PATH;
// each candidate asked for --version) and one run on PTX text in a private temporary directory.
#include "support/ptxas.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "support/temp_dir.h"

namespace kiln::support {

namespace {

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

PtxasRun runPtxas(const std::string& ptxas, const std::string& ptx, const std::vector<std::string>& args,
                  std::chrono::milliseconds timeout) {
  TempDirectory dir("kiln-ptxas-");
  const std::string in = dir.file("kernel.ptx"), out = dir.file("kernel.cubin");
  if (!writeWhole(in, ptx))
    throw OsError("PTX -> cubin: cannot write " + in + ": " + std::strerror(errno), "write");
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

}  // namespace kiln::support
