// ptxas's target list (ptxas_targets.h): parsed from `ptxas --help`, memoized per ptxas path.
#include "support/ptxas_targets.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "support/ptxas.h"
#include "support/subprocess.h"

namespace kiln::support {

namespace {

// (capability, has "a") of "sm_90a"; capability -1 for anything that is not sm_<digits>[a].
std::pair<int, bool> targetKey(std::string_view t) {
  if (t.substr(0, 3) != "sm_" || t.size() < 5) return {-1, false};
  std::string_view digits = t.substr(3);
  const bool archSpecific = digits.back() == 'a';
  if (archSpecific) digits.remove_suffix(1);
  int sm = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return {-1, false};
    sm = sm * 10 + (c - '0');
  }
  return {digits.empty() ? -1 : sm, archSpecific};
}

}  // namespace

std::vector<std::string> parsePtxasTargets(std::string_view help) {
  std::vector<std::string> out;
  // Targets are quoted: 'sm_90a'. Quoted words elsewhere in the text are not sm_ names.
  for (size_t open = help.find('\''); open != std::string_view::npos; open = help.find('\'', open + 1)) {
    size_t close = help.find('\'', open + 1);
    if (close == std::string_view::npos) break;
    std::string_view word = help.substr(open + 1, close - open - 1);
    if (targetKey(word).first >= 0 && std::find(out.begin(), out.end(), word) == out.end())
      out.emplace_back(word);
    open = close;
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return targetKey(a) < targetKey(b);
  });
  return out;
}

std::vector<std::string> ptxasTargets() {
  const PtxasLocation where = findPtxas();
  if (!where.found()) return {};
  static struct {
    std::mutex mutex;
    std::map<std::string, std::vector<std::string>> byPath;
  } memo;
  std::lock_guard<std::mutex> lock(memo.mutex);
  auto it = memo.byPath.find(where.path);
  if (it == memo.byPath.end()) {
    ProcessResult r = runProcess({where.path, "--help"}, std::chrono::seconds(30));
    std::vector<std::string> targets;
    if (r.status == ProcessResult::Status::Exited && r.exitCode == 0) targets = parsePtxasTargets(r.output);
    it = memo.byPath.emplace(where.path, std::move(targets)).first;
  }
  return it->second;
}

std::optional<bool> ptxasAcceptsTarget(const std::string& target) {
  const PtxasLocation where = findPtxas();
  if (!where.found()) return std::nullopt;
  static struct {
    std::mutex mutex;
    std::map<std::pair<std::string, std::string>, bool> byPathAndTarget;
  } memo;
  std::lock_guard<std::mutex> lock(memo.mutex);
  auto key = std::make_pair(where.path, target);
  auto it = memo.byPathAndTarget.find(key);
  if (it == memo.byPathAndTarget.end()) {
    ProcessResult r = runProcess({where.path, "--gpu-name", target, "--version"}, std::chrono::seconds(30));
    const bool accepted = r.status == ProcessResult::Status::Exited && r.exitCode == 0;
    it = memo.byPathAndTarget.emplace(std::move(key), accepted).first;
  }
  return it->second;
}

}  // namespace kiln::support
