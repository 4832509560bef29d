// Launch-argument prints and a function's recent launches (driver/recent_launches.h).
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
         fpFusion == o.fpFusion && warpSpecialize == o.warpSpecialize && persistent == o.persistent && maxNReg == o.maxNReg &&
         std::equal(args, args + numArgs, o.args);
}

LaunchPrint printLaunch(std::span<const LaunchArg> args, const LaunchOptions& o) {
  LaunchPrint p;
  p.numWarps = o.num_warps;
  p.numStages = o.num_stages;
  p.fpFusion = o.enable_fp_fusion;
  p.warpSpecialize = o.warp_specialize;
  p.persistent = o.persistent;
  p.maxNReg = o.maxnreg;
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

// p as words that are equal exactly when the prints are (operator==): no padding bytes, so entries can
// be compared word by word through atomics. Returns how many words it wrote.
size_t encode(const LaunchPrint& p, uint64_t* out) {
  size_t n = 0;
  out[n++] = uint64_t(p.numArgs) | uint64_t(p.fpFusion) << 8 | uint64_t(p.warpSpecialize) << 9 |
             uint64_t(p.persistent) << 10 |
             uint64_t(uint32_t(p.maxNReg)) << 32;  // numArgs <= 16
  out[n++] = uint64_t(uint32_t(p.numWarps)) | uint64_t(uint32_t(p.numStages)) << 32;
  for (size_t i = 0; i < p.numArgs; ++i) {
    out[n++] = p.args[i].bits;
    out[n++] = p.args[i].dtypeWord();
    out[n++] = p.args[i].kind;
  }
  return n;
}

}  // namespace

void* RecentLaunches::find(const LaunchPrint& p) const {
  if (!p.printed) return nullptr;
  uint64_t words[kWords];
  const size_t n = encode(p, words);
  for (const Entry& e : entries_) {
    const uint64_t before = e.version.load(std::memory_order_acquire);
    if (before == 0 || (before & 1) || e.numWords.load(std::memory_order_relaxed) != n) continue;
    bool same = true;
    for (size_t k = 0; k < n && same; ++k) same = e.words[k].load(std::memory_order_relaxed) == words[k];
    void* variant = e.variant.load(std::memory_order_relaxed);
    // Orders the reads above before the version's second read: a write they saw any word of has
    // already made the version odd, or moved it on, by then (Boehm's seqlock reader).
    std::atomic_thread_fence(std::memory_order_acquire);
    if (same && e.version.load(std::memory_order_relaxed) == before) return variant;
  }
  return nullptr;
}

void RecentLaunches::remember(const LaunchPrint& p, void* variant) {
  if (!p.printed) return;
  Entry& e = entries_[next_.fetch_add(1, std::memory_order_relaxed) % kEntries];
  uint64_t version = e.version.load(std::memory_order_relaxed);
  if ((version & 1) || !e.version.compare_exchange_strong(version, version + 1, std::memory_order_relaxed))
    return;  // another thread is writing this entry
  // The odd version is visible before any word written below (pairs with find's acquire fence).
  std::atomic_thread_fence(std::memory_order_release);
  uint64_t words[kWords];
  const size_t n = encode(p, words);
  e.numWords.store(n, std::memory_order_relaxed);
  for (size_t k = 0; k < n; ++k) e.words[k].store(words[k], std::memory_order_relaxed);
  e.variant.store(variant, std::memory_order_relaxed);
  e.version.store(version + 2, std::memory_order_release);
}

}  // namespace kiln
