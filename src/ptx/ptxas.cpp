// ptxas for the tests: a thin layer over support::runPtxas that checks the architecture name and
// parses the -v resource report into EntryUsage.
#include "ptx/ptxas.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "support/ptxas.h"
#include "support/temp_dir.h"

namespace kiln::ptx {

const EntryUsage* AssembleResult::entry(std::string_view name) const {
  for (const EntryUsage& u : entries)
    if (u.name == name) return &u;
  return nullptr;
}

namespace {

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

bool safeArch(const std::string& arch) {
  if (arch.size() < 4 || arch.size() > 16) return false;
  for (char c : arch)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::optional<std::string> findPtxas() {
  support::PtxasLocation loc = support::findPtxas();
  if (!loc.found()) return std::nullopt;
  return loc.path;
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
  std::string exe = options.ptxas;
  if (exe.empty()) {
    support::PtxasLocation loc = support::findPtxas();
    if (!loc.found()) {
      r.log = loc.whyNot() + " (set KILN_PTXAS or CUDA_HOME, or install the CUDA toolkit)";
      return r;
    }
    exe = loc.path;
  }
  if (!safeArch(arch)) {
    r.log = "bad architecture name '" + arch + "'";
    return r;
  }
  std::vector<std::string> args{"-v", "-arch=" + arch};
  args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());
  const std::chrono::milliseconds timeout = std::chrono::seconds(std::max(options.timeoutSeconds, 1));
  support::PtxasRun run;
  try {
    run = support::runPtxas(exe, ptx, args, timeout);
  } catch (const support::OsError& e) {  // no temporary directory or input file: ptxas did not run
    r.log = e.what();
    return r;
  }
  const support::ProcessResult& p = run.process;
  r.found = p.status != support::ProcessResult::Status::NotStarted;
  if (!r.found) {  // an explicit options.ptxas that is missing or not executable
    r.log = "ptxas not found or not started (" + p.whyNotStarted + ")";
    return r;
  }
  r.exitCode = p.status == support::ProcessResult::Status::Exited ? p.exitCode : -1;
  r.ok = r.exitCode == 0;
  r.log = std::move(run.log);
  if (p.status != support::ProcessResult::Status::Exited)
    r.log += (r.log.empty() ? "" : "\n") + exe + ": " + support::describe(p, timeout);
  if (r.ok) {
    r.entries = parsePtxasInfo(r.log);
    r.cubin.assign(run.cubin.begin(), run.cubin.end());
  }
  return r;
}

}  // namespace kiln::ptx
