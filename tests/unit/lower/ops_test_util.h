// Running the conversion, reduction and dot test kernels: emit PTX, assemble it for sm_80 and sm_90a
// (no spills), and run it in the CTA simulator on given buffers. Element helpers for the buffers.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "ir/scalar_eval.h"
#include "ops_kernels.h"
#include "ops_sim.h"

namespace kiln::lower::test {

using Bytes = std::vector<uint8_t>;

struct SimResult {
  std::string error;           // "" when the run finished
  std::vector<Bytes> buffers;  // after the run, in parameter order
  std::string ptx;
  int64_t sharedBytes = 0;
};

// Emits `text` for `target` and simulates it with one buffer per pointer parameter (named `params`).
inline SimResult simulate(const std::string& text, const std::vector<std::string>& params, const std::vector<Bytes>& buffers,
                          int numWarps, const ptx::Target& target = ptx::kSm80) {
  SimResult r;
  Emitted e = emit(text, {}, target, numWarps);
  r.ptx = e.ptx;
  r.sharedBytes = e.info.sharedBytes;
  CtaSim sim(e.ptx, numWarps * 32, e.info.sharedBytes);
  std::vector<uint64_t> bases;
  for (size_t i = 0; i < params.size(); ++i) {
    bases.push_back(sim.addBuffer(buffers.at(i)));
    sim.setParam("k_" + params[i], bases.back());
  }
  r.error = sim.run();
  for (uint64_t b : bases) r.buffers.push_back(sim.buffer(b));
  return r;
}

// Assembles `text` for sm_80 and sm_90a: "" when both assemble without spills.
inline std::string assembleBoth(const std::string& text, int numWarps) {
  if (!havePtxas()) return "";
  std::string out;
  for (const ptx::Target& t : {ptx::kSm80, ptx::kSm90a}) {
    std::string p = assembleProblems(emit(text, {}, t, numWarps).ptx, t.name());
    if (!p.empty()) out += p + "\n";
  }
  return out;
}

// ---- elements in byte buffers

inline int elemBytes(ir::Scalar t) { return t == ir::Scalar::I1 ? 1 : ir::bitWidth(t) / 8; }

inline ir::Elem readElem(const Bytes& b, ir::Scalar t, int64_t i) {
  uint64_t bits = 0;
  int eb = elemBytes(t);
  std::memcpy(&bits, b.data() + i * eb, size_t(eb));
  if (t == ir::Scalar::I1) return ir::intElem(bits != 0);
  return ir::fromBits(t, bits);
}

inline void writeElem(Bytes& b, ir::Scalar t, int64_t i, ir::Elem v) {
  uint64_t bits = t == ir::Scalar::I1 ? uint64_t(v.i != 0) : ir::toBits(t, v);
  std::memcpy(b.data() + i * elemBytes(t), &bits, size_t(elemBytes(t)));
}

// n elements of type t: floats uniform in [-range, range) rounded to t (small integers when `integral`),
// integers uniform over [-range, range) wrapped to t.
inline Bytes randomElems(ir::Scalar t, int64_t n, uint32_t seed, double range = 4.0, bool integral = false) {
  std::mt19937 rng(seed);
  Bytes b(size_t(n * elemBytes(t)));
  std::uniform_real_distribution<double> u(-range, range);
  for (int64_t i = 0; i < n; ++i) {
    double x = u(rng);
    if (integral || ir::isInt(t)) x = std::floor(x);
    ir::Elem e = ir::isFloat(t) ? ir::floatElem(ir::roundTo(t, x)) : ir::normalize(t, ir::intElem(int64_t(x)));
    writeElem(b, t, i, e);
  }
  return b;
}

inline std::string scalarName(ir::Scalar t) { return std::string(ir::name(t)); }

// A random register layout of `shape` over numWarps warps: the coordinate bits dealt out at random to
// lanes, warps and registers, some mixed by XOR (swizzle-like bases), zero bases (copies) where there are
// more lane or warp bits than coordinate bits, and sometimes a duplicated register bit. Without `mix`
// every basis moves along one dim only (what reductions need).
inline layout::LinearLayout randomLayout(const std::vector<int64_t>& shape, int numWarps, std::mt19937& rng, bool mix = true) {
  const int rank = int(shape.size());
  std::vector<layout::Basis> bits;
  for (int d = 0; d < rank; ++d)
    for (int64_t v = 1; v < shape[size_t(d)]; v *= 2) {
      layout::Basis b(size_t(rank), 0);
      b[size_t(d)] = int32_t(v);
      bits.push_back(b);
    }
  std::shuffle(bits.begin(), bits.end(), rng);
  for (size_t i = 1; i < bits.size(); ++i)
    if (mix && rng() % 4 == 0) {
      size_t j = rng() % i;
      for (int d = 0; d < rank; ++d) bits[i][size_t(d)] ^= bits[j][size_t(d)];
    }
  const int warpBits = std::countr_zero(unsigned(numWarps));
  layout::Basis zero(size_t(rank), 0);
  std::vector<layout::Basis> lanes, warps, regs;
  size_t next = 0;
  auto take = [&](std::vector<layout::Basis>& into, int n) {
    for (int i = 0; i < n; ++i) into.push_back(next < bits.size() && rng() % 8 != 0 ? bits[next++] : zero);
  };
  take(lanes, 5);
  take(warps, warpBits);
  while (next < bits.size()) regs.push_back(bits[next++]);
  if (rng() % 4 == 0) regs.insert(regs.begin() + ptrdiff_t(rng() % (regs.size() + 1)), regs.empty() ? zero : regs[rng() % regs.size()]);
  std::vector<layout::OutDim> outs;
  for (int d = 0; d < rank; ++d) outs.push_back({layout::dimName(d), int32_t(shape[size_t(d)])});
  return layout::LinearLayout({{"register", regs}, {"lane", lanes}, {"warp", warps}}, outs);
}


}  // namespace kiln::lower::test
