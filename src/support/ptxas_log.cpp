// Parsing ptxas' -v resource report (support/ptxas_log.h).
#include "support/ptxas_log.h"

#include <cctype>
#include <cstdlib>

namespace kiln::support {
namespace {

// The number written just before `word` in line ("12 registers" -> 12), or -1.
int numberBefore(std::string_view line, std::string_view word) {
  size_t at = line.find(word);
  if (at == std::string_view::npos) return -1;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == end || end - begin > 9) return -1;
  return std::atoi(std::string(line.substr(begin, end - begin)).c_str());
}

// The name after `marker` in line, up to a quote, space, ':' or CR; empty if absent.
std::string nameAfter(std::string_view line, std::string_view marker) {
  size_t at = line.find(marker);
  if (at == std::string_view::npos) return {};
  std::string_view name = line.substr(at + marker.size());
  return std::string(name.substr(0, name.find_first_of("' :\r")));
}

}  // namespace

std::vector<KernelResources> parseResourceUsage(std::string_view log) {
  std::vector<KernelResources> kernels;
  KernelResources* current = nullptr;
  auto find = [&](const std::string& name) -> KernelResources* {
    for (KernelResources& k : kernels)
      if (k.kernel == name) return &k;
    return nullptr;
  };
  while (!log.empty()) {
    const size_t nl = log.find('\n');
    const std::string_view line = log.substr(0, nl);
    log.remove_prefix(nl == std::string_view::npos ? log.size() : nl + 1);
    if (std::string name = nameAfter(line, "Compiling entry function '"); !name.empty()) {
      current = find(name);
      if (!current) {
        kernels.push_back(KernelResources{name});
        current = &kernels.back();
      }
      continue;
    }
    if (line.find("Function properties for ") != std::string_view::npos) {  // ptxas: k; nvJitLink: 'k':
      std::string name = nameAfter(line, "Function properties for ");
      if (name.empty()) name = nameAfter(line, "Function properties for '");
      current = find(name);  // null for a non-entry .func: its numbers are not a kernel's
      continue;
    }
    if (!current) continue;
    auto set = [&](int& field, std::string_view word) {
      if (int v = numberBefore(line, word); v >= 0) field = v;
    };
    set(current->registers, "registers");
    set(current->barriers, "barriers");
    set(current->stackFrameBytes, "bytes stack frame");
    set(current->spillStoreBytes, "bytes spill stores");
    set(current->spillLoadBytes, "bytes spill loads");
    set(current->sharedBytes, "bytes smem");
  }
  return kernels;
}

}  // namespace kiln::support
