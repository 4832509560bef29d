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

namespace {

// Prints `a` at out[n] (a tuple: a marker with its size, then its elements), advancing n; false when it
// does not print or needs more than `cap` entries in all.
bool printOne(const LaunchArg& a, ArgPrint* out, size_t& n, size_t cap) {
  using K = LaunchArg::Kind;
  if (n >= cap) return false;
  ArgPrint& p = out[n++];
  p = ArgPrint{};
  // A tl.constexpr(v) tuple element keys as a literal, an equal plain one as a type: kept apart.
  p.kind = uint64_t(a.kind) | (a.isConstexpr ? 0x100 : 0);
  if (a.dtype.size() > sizeof p.dtype) return false;
  std::memcpy(p.dtype, a.dtype.data(), a.dtype.size());
  switch (a.kind) {
    case K::Pointer:
      // The key reads the address only through its divisibility hint (":16", ":8" or none).
      p.bits = (a.address % 16 == 0 ? 16 : a.address % 8 == 0 ? 8 : 0) | (a.host ? 1 : 0);
      return true;
    case K::Int: case K::UInt: case K::Bool: p.bits = uint64_t(a.i); return true;
    case K::Float: std::memcpy(&p.bits, &a.f, sizeof p.bits); return true;
    case K::None: return true;
    case K::Tuple:
      if (!a.s.empty()) return false;  // a NamedTuple's class and fields are text: the key compares them
      p.bits = a.count;
      for (uint32_t i = 0; i < a.count; ++i)
        if (!printOne(a.elems[i], out, n, cap)) return false;
      return true;
    case K::String: case K::Signature: return false;
  }
  return false;
}

}  // namespace

bool printArgs(std::span<const LaunchArg> args, ArgPrint* out) {
  size_t n = 0;
  for (const LaunchArg& a : args)
    if (!printOne(a, out, n, args.size())) return false;
  return true;
}

bool LaunchPrint::operator==(const LaunchPrint& o) const {
  return printed && o.printed && numArgs == o.numArgs && numWarps == o.numWarps && numStages == o.numStages &&
         fpFusion == o.fpFusion && std::equal(args, args + numArgs, o.args);
}

LaunchPrint printLaunch(std::span<const LaunchArg> args, const LaunchOptions& o) {
  LaunchPrint p;
  p.numWarps = o.num_warps;
  p.numStages = o.num_stages;
  p.fpFusion = o.enable_fp_fusion;
  size_t n = 0;
  p.printed = true;
  for (const LaunchArg& a : args)
    if (!printOne(a, p.args, n, kPrintedArgs)) {
      p.printed = false;
      break;
    }
  p.numArgs = n;
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
