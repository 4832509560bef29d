// sort lowering (tl.sort, tl.topk): along every axis of 1-D and 2-D tiles in blocked layouts (axis bits in
// registers, lanes and warps, with repeats) and random axis-ordered layouts with copies, 1 to 8 warps,
// ascending and descending, top k from 1 to n, in integer and float types (fp8 too) with ties, NaN and -0.0;
// assembled for sm_80 and sm_90a and run in the CTA simulator bit for bit against Triton's network.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "layout/axis_bits.h"
#include "layout/named_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using ir::Elem;
using ir::Scalar;
using layout::LinearLayout;

// Triton's sort_impl on one line, as triton/language/standard.py builds it from reshapes and xor sums:
// bitonic stages whose order alternates with index bit `stage` up to the last one, then top-k halvings
// (max or min of the elements k apart) each followed by a merge of log2(k) rounds.
struct Network {
  Scalar t;
  bool descending;

  bool greater(Elem a, Elem b) const {
    ir::ElementwiseFn gt{ir::Opcode::Cmp, t, 4, false};
    Elem in[2] = {a, b}, out{};
    bool dz = false;
    ir::evalElementwise(gt, in, out, dz);
    return out.u != 0;
  }

  std::vector<Elem> rounds(std::vector<Elem> h, int stage, int flipBit) const {
    for (int j = stage - 1; j >= 0; --j) {
      std::vector<Elem> next(h.size());
      for (size_t i = 0; i < h.size(); ++i) {
        const bool flip = flipBit < 0 ? descending : (i >> flipBit & 1) != 0;
        const bool right = (i >> j & 1) != 0;
        const Elem y = h[i ^ (size_t(1) << j)];
        next[i] = greater(h[i], y) != (flip != right) ? y : h[i];
      }
      h = std::move(next);
    }
    return h;
  }

  std::vector<Elem> top(std::vector<Elem> h, int64_t k) const {
    const int logN = std::countr_zero(h.size()), logK = std::countr_zero(uint64_t(k));
    for (int s = 1; s <= logK; ++s) h = rounds(h, s, s < logN ? s : -1);
    for (int i = logK + 1; i <= logN; ++i) {
      std::vector<Elem> half(h.size() / 2);
      ir::ElementwiseFn pick{descending ? ir::Opcode::Max : ir::Opcode::Min, t, 0, false};
      for (size_t j = 0; j < half.size(); ++j) {
        const size_t lo = ((j >> logK) << (logK + 1)) | (j & size_t(k - 1));
        Elem in[2] = {h[lo], h[lo + size_t(k)]};
        bool dz = false;
        ir::evalElementwise(pick, in, half[j], dz);
      }
      h = rounds(half, logK, i < logN ? logK : -1);
    }
    return h;
  }
};

struct Case {
  std::vector<int64_t> shape;
  LinearLayout layout;
  int axis;
  int numWarps;
};

std::string sortKernel(const Case& c, const std::string& elem, int64_t k, bool descending) {
  std::vector<int64_t> rs = c.shape;
  rs[size_t(c.axis)] = k;
  const LinearLayout rl = k == c.shape[size_t(c.axis)] ? c.layout : layout::truncateDim(c.layout, c.axis, int32_t(k));
  std::ostringstream s;
  s << "func @k(%x: ptr<" << elem << ">, %y: ptr<" << elem << ">) {\n" << pointersIn("a", "x", c.shape, elem, c.layout);
  s << "  %v = load %a_p : " << tileType(c.shape, elem, c.layout) << "\n";
  s << "  %r = sort %v {axis = " << c.axis << ", descending = " << (descending ? 1 : 0)
    << "} : " << tileType(rs, elem, rl) << "\n";
  s << pointersIn("b", "y", rs, elem, rl) << "  store %b_p, %r\n  return\n}\n";
  return s.str();
}

void check(const Case& c, Scalar t, int64_t k, bool descending) {
  const std::string text = sortKernel(c, scalarName(t), k, descending);
  SCOPED_TRACE(text);
  ASSERT_TRUE(layout::axisBits(c.layout, c.axis)) << "test layout does not hold the axis in order";
  ASSERT_EQ(assembleBoth(text, c.numWarps), "");
  const int64_t n = numelOf(c.shape), len = c.shape[size_t(c.axis)];
  Bytes x = randomElems(t, n, uint32_t(n * 13 + k), ir::isFloat(t) ? 3.0 : 100.0, true);
  if (ir::isFloat(t))
    for (int64_t i = 0; i < n; i += 5) writeElem(x, t, i, ir::floatElem(i % 3 ? -0.0 : std::nan("")));
  int64_t inner = 1;
  for (size_t d = size_t(c.axis) + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
  const int64_t outer = n / (len * inner);
  std::vector<Elem> want(size_t(outer * k * inner));
  const Network net{t, descending};
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<Elem> line;
      for (int64_t j = 0; j < len; ++j) line.push_back(readElem(x, t, (o * len + j) * inner + i));
      line = net.top(line, k);
      for (int64_t j = 0; j < k; ++j) want[size_t((o * k + j) * inner + i)] = line[size_t(j)];
    }
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    SimResult r = simulate(text, {"x", "y"}, {x, Bytes(want.size() * size_t(elemBytes(t)), 0xEE)}, c.numWarps, target);
    ASSERT_EQ(r.error, "") << r.ptx;
    int bad = 0;
    for (size_t i = 0; i < want.size() && bad < 4; ++i) {
      const uint64_t got = ir::toBits(t, readElem(r.buffers[1], t, int64_t(i)));
      if (got != ir::toBits(t, want[i]) && ++bad)
        ADD_FAILURE() << target.name() << " element " << i << ": bits " << got << ", want " << ir::toBits(t, want[i]);
    }
  }
}

std::vector<Case> blockedCases() {
  std::vector<Case> out;
  for (int warps : {1, 4, 8}) {
    out.push_back({{128}, layout::defaultBlocked({128}, warps, 1, {0}), 0, warps});
    out.push_back({{1024}, layout::defaultBlocked({1024}, warps, 4, {0}), 0, warps});  // repeats along the axis
    for (int axis : {0, 1}) {
      out.push_back({{32, 64}, layout::defaultBlocked({32, 64}, warps, 4, {1, 0}), axis, warps});
      out.push_back({{2, 128}, layout::defaultBlocked({2, 128}, warps, 1, {1, 0}), axis, warps});
      out.push_back({{1, 64}, layout::defaultBlocked({1, 64}, warps, 1, {1, 0}), axis, warps});
    }
  }
  return out;
}

TEST(OpsSort, SortsAlongEveryAxis) {
  for (const Case& c : blockedCases())
    for (bool descending : {false, true})
      check(c, descending ? Scalar::I32 : Scalar::F32, c.shape[size_t(c.axis)], descending);
}

TEST(OpsSort, TopKOfEverySize) {
  for (const Case& c : blockedCases()) {
    const int64_t n = c.shape[size_t(c.axis)];
    for (int64_t k : {int64_t(1), n / 4})
      if (k >= 1 && k < n) check(c, Scalar::F32, k, true);
    if (n > 1) check(c, Scalar::I32, n / 2, false);
  }
}

TEST(OpsSort, ElementTypes) {
  Case c{{8, 64}, layout::defaultBlocked({8, 64}, 4, 2, {1, 0}), 1, 4};
  for (Scalar t : {Scalar::I8, Scalar::U16, Scalar::I64, Scalar::U64, Scalar::F16, Scalar::BF16, Scalar::F64,
                   Scalar::F8E4M3, Scalar::F8E5M2})
    for (bool descending : {false, true}) {
      check(c, t, 64, descending);
      if (!ir::isFloat(t) || ir::bitWidth(t) > 8) check(c, t, 8, descending);  // fp8 max needs sm_89
    }
}

TEST(OpsSort, RandomAxisOrderedLayouts) {
  std::mt19937 rng(4321);
  int done = 0;
  while (done < 40) {
    const int warps = 1 << (rng() % 4), axis = int(rng() % 2);
    std::vector<int64_t> shape = {int64_t(1) << (rng() % 5), int64_t(1) << (1 + rng() % 6)};
    LinearLayout l = randomLayout(shape, warps, rng, false);
    if (!layout::axisBits(l, axis)) continue;
    const int64_t n = shape[size_t(axis)];
    check({shape, l, axis, warps}, Scalar::F32, done % 2 ? n : std::max<int64_t>(1, n / 4), done % 3 != 0);
    ++done;
  }
}

}  // namespace
}  // namespace kiln::lower::test
