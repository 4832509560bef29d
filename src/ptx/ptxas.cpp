// ptxas for the tests: a thin layer over support::runPtxas that checks the architecture name and
// parses the -v resource report into EntryUsage.
#include "ptx/ptxas.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "support/ptxas.h"
#include "support/ptxas_log.h"
#include "support/temp_dir.h"

namespace kiln::ptx {

const EntryUsage* AssembleResult::entry(std::string_view name) const {
  for (const EntryUsage& u : entries)
    if (u.name == name) return &u;
  return nullptr;
}

namespace {

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
  auto known = [](int v) { return v < 0 ? 0 : v; };
  for (const support::KernelResources& k : support::parseResourceUsage(log))
    out.push_back(EntryUsage{k.kernel, known(k.registers), known(k.barriers), known(k.stackFrameBytes),
                             known(k.spillStoreBytes), known(k.spillLoadBytes), known(k.sharedBytes)});
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
