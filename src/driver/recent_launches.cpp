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

namespace {

constexpr size_t kPrintedArgs = 16;    // launches with more arguments build the key
constexpr size_t kRecentLaunches = 4;  // a few kernels launched in turn all hit

struct RecentLaunch {
  uint64_t function = 0;  // 0: empty (function ids start at 1)
  int numWarps = 0, numStages = 0;
  bool fpFusion = true;
  size_t numArgs = 0;
  ArgPrint prints[kPrintedArgs];
  void* variant = nullptr;
};

RecentLaunch* recentLaunches() {
  thread_local RecentLaunch recent[kRecentLaunches];
  return recent;
}

}  // namespace

void* recentLaunch(uint64_t function, std::span<const LaunchArg> args, const LaunchOptions& o) {
  if (args.size() > kPrintedArgs) return nullptr;
  ArgPrint prints[kPrintedArgs];
  if (!printArgs(args, prints)) return nullptr;
  const RecentLaunch* recent = recentLaunches();
  for (size_t k = 0; k < kRecentLaunches; ++k) {
    const RecentLaunch& r = recent[k];
    if (r.function == function && r.numArgs == args.size() && r.numWarps == o.num_warps &&
        r.numStages == o.num_stages && r.fpFusion == o.enable_fp_fusion &&
        std::equal(prints, prints + args.size(), r.prints))
      return r.variant;
  }
  return nullptr;
}

void rememberLaunch(uint64_t function, std::span<const LaunchArg> args, const LaunchOptions& o, void* variant) {
  if (args.size() > kPrintedArgs) return;
  RecentLaunch entry;
  if (!printArgs(args, entry.prints)) return;
  entry.function = function;
  entry.numWarps = o.num_warps;
  entry.numStages = o.num_stages;
  entry.fpFusion = o.enable_fp_fusion;
  entry.numArgs = args.size();
  entry.variant = variant;
  thread_local size_t next = 0;  // round robin over the entries
  recentLaunches()[next++ % kRecentLaunches] = entry;
}

}  // namespace kiln
