// Launch-argument prints and each thread's recent launches (driver/recent_launches.h).
#include "driver/recent_launches.h"

#include <algorithm>
#include <cstring>

namespace kiln {

uint64_t ArgPrint::dtypeWord() const {
  uint64_t w = 0;
  std::memcpy(&w, dtype, sizeof w);
  return w;
}

bool printArgs(std::span<const LaunchArg> args, ArgPrint* out) {
  using K = LaunchArg::Kind;
  for (size_t i = 0; i < args.size(); ++i) {
    const LaunchArg& a = args[i];
    ArgPrint& p = out[i];
    p = ArgPrint{};
    p.kind = uint64_t(a.kind);
    if (a.dtype.size() > sizeof p.dtype) return false;
    std::memcpy(p.dtype, a.dtype.data(), a.dtype.size());
    switch (a.kind) {
      case K::Pointer:
        // The key reads the address only through its divisibility hint (":16", ":8" or none).
        p.bits = (a.address % 16 == 0 ? 16 : a.address % 8 == 0 ? 8 : 0) | (a.host ? 1 : 0);
        break;
      case K::Int: case K::UInt: case K::Bool: p.bits = uint64_t(a.i); break;
      case K::Float: std::memcpy(&p.bits, &a.f, sizeof p.bits); break;
      case K::None: break;
      case K::String: case K::Signature: return false;
    }
  }
  return true;
}

bool LaunchPrint::operator==(const LaunchPrint& o) const {
  return printed && o.printed && numArgs == o.numArgs && numWarps == o.numWarps && numStages == o.numStages &&
         fpFusion == o.fpFusion && std::equal(args, args + numArgs, o.args);
}

LaunchPrint printLaunch(std::span<const LaunchArg> args, const LaunchOptions& o) {
  LaunchPrint p;
  p.numArgs = args.size();
  p.numWarps = o.num_warps;
  p.numStages = o.num_stages;
  p.fpFusion = o.enable_fp_fusion;
  p.printed = args.size() <= kPrintedArgs && printArgs(args, p.args);
  return p;
}

namespace {

constexpr size_t kRecentLaunches = 4;  // a few kernels launched in turn all hit

struct RecentLaunch {
  uint64_t function = 0;  // 0: empty (function ids start at 1)
  LaunchPrint print;
  void* variant = nullptr;
};

RecentLaunch* recentLaunches() {
  thread_local RecentLaunch recent[kRecentLaunches];
  return recent;
}

}  // namespace

void* recentLaunch(uint64_t function, const LaunchPrint& p) {
  if (!p.printed) return nullptr;
  const RecentLaunch* recent = recentLaunches();
  for (size_t k = 0; k < kRecentLaunches; ++k)
    if (recent[k].function == function && recent[k].print == p) return recent[k].variant;
  return nullptr;
}

void rememberLaunch(uint64_t function, const LaunchPrint& p, void* variant) {
  if (!p.printed) return;
  thread_local size_t next = 0;  // round robin over the entries
  recentLaunches()[next++ % kRecentLaunches] = RecentLaunch{function, p, variant};
}

}  // namespace kiln
