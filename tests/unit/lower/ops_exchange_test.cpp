// gather and histogram lowering (lower_exchange.cpp): src, index, operand and result in blocked and random
// layouts (with copies in lanes, warps and registers), 1 to 8 warps, several element types; assembled for
// sm_80 and sm_90a and run in the CTA simulator against the interpreter's meaning (index modulo the axis
// size; values outside the bins counted nowhere). Every result must match bit for bit.
#include <gtest/gtest.h>

#include <random>

#include "layout/named_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using ir::Scalar;
using layout::LinearLayout;

struct GatherCase {
  std::vector<int64_t> src, index;
  int axis;
  LinearLayout srcLayout, resultLayout;
  int numWarps;
};

// k(x, i, y): y = gather(x, i, axis), x in srcLayout, i and y in resultLayout.
std::string gatherKernel(const GatherCase& c, const std::string& elem, const std::string& ielem) {
  std::ostringstream s;
  s << "func @k(%x: ptr<" << elem << ">, %i: ptr<" << ielem << ">, %y: ptr<" << elem << ">) {\n";
  s << pointersIn("a", "x", c.src, elem, c.srcLayout);
  s << "  %v = load %a_p : " << tileType(c.src, elem, c.srcLayout) << "\n";
  s << pointersIn("b", "i", c.index, ielem, c.resultLayout);
  s << "  %w = load %b_p : " << tileType(c.index, ielem, c.resultLayout) << "\n";
  s << "  %g = gather %v, %w {axis = " << c.axis << "} : " << tileType(c.index, elem, c.resultLayout) << "\n";
  s << pointersIn("c", "y", c.index, elem, c.resultLayout) << "  store %c_p, %g\n  return\n}\n";
  return s.str();
}

void checkGather(const GatherCase& c, Scalar t, Scalar it) {
  SCOPED_TRACE(scalarName(t) + " by " + scalarName(it) + ", axis " + std::to_string(c.axis) + ", warps " +
               std::to_string(c.numWarps) + "\nsrc " + c.srcLayout.str() + "\nresult " + c.resultLayout.str());
  const std::string text = gatherKernel(c, scalarName(t), scalarName(it));
  ASSERT_EQ(assembleBoth(text, c.numWarps), "");
  const int64_t n = numelOf(c.src), m = numelOf(c.index);
  Bytes x = randomElems(t, n, uint32_t(n * 5 + c.axis), 4.0, false);
  Bytes idx = randomElems(it, m, uint32_t(m * 3 + 1), 100.0, true);  // many outside [0, size)
  std::vector<int64_t> stride(c.src.size(), 1);
  for (size_t d = c.src.size() - 1; d-- > 0;) stride[d] = stride[d + 1] * c.src[d + 1];
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    Bytes y(size_t(m) * size_t(elemBytes(t)), 0xEE);
    SimResult r = simulate(text, {"x", "i", "y"}, {x, idx, y}, c.numWarps, target);
    ASSERT_EQ(r.error, "") << r.ptx;
    int bad = 0;
    for (int64_t i = 0; i < m && bad < 4; ++i) {
      int64_t rest = i, off = 0;
      for (size_t d = c.index.size(); d-- > 0;) {
        int64_t coord = rest % c.index[d];
        rest /= c.index[d];
        if (int(d) == c.axis) coord = int64_t(readElem(idx, it, i).u & uint64_t(c.src[d] - 1));
        off += coord * stride[d];
      }
      if (ir::toBits(t, readElem(r.buffers[2], t, i)) != ir::toBits(t, readElem(x, t, off)) && ++bad)
        ADD_FAILURE() << target.name() << " element " << i << (bad == 1 ? "\n" + r.ptx : "");
    }
  }
}

TEST(OpsGather, BlockedLayouts) {
  for (int warps : {1, 4, 8}) {
    checkGather({{32}, {64}, 0, layout::defaultBlocked({32}, warps, 1, {0}), layout::defaultBlocked({64}, warps, 2, {0}),
                 warps}, Scalar::F32, Scalar::I32);
    checkGather({{16, 8}, {32, 8}, 0, layout::defaultBlocked({16, 8}, warps, 4, {1, 0}),
                 layout::defaultBlocked({32, 8}, warps, 1, {0, 1}), warps}, Scalar::F16, Scalar::I64);
    checkGather({{8, 32}, {8, 4}, 1, layout::defaultBlocked({8, 32}, warps, 2, {1, 0}),
                 layout::defaultBlocked({8, 4}, warps, 1, {1, 0}), warps}, Scalar::I8, Scalar::U8);
    checkGather({{4, 4}, {8, 4}, 0, layout::defaultBlocked({4, 4}, warps, 1, {1, 0}),
                 layout::defaultBlocked({8, 4}, warps, 1, {1, 0}), warps}, Scalar::F64, Scalar::I16);
  }
}

TEST(OpsGather, RandomLayouts) {
  std::mt19937 rng(99);
  for (int k = 0; k < 24; ++k) {
    const int warps = 1 << (rng() % 4), axis = int(rng() % 2);
    std::vector<int64_t> src = {int64_t(1) << (rng() % 5), int64_t(1) << (rng() % 6)}, index = src;
    index[size_t(axis)] = int64_t(1) << (rng() % 6);
    checkGather({src, index, axis, randomLayout(src, warps, rng), randomLayout(index, warps, rng), warps},
                k % 2 ? Scalar::F32 : Scalar::I16, k % 3 ? Scalar::I32 : Scalar::I64);
  }
}

// k(x, h): h = histogram(x) with x in layout l and h in layout rl.
void checkHistogram(int64_t n, int64_t bins, const LinearLayout& l, const LinearLayout& rl, int warps, Scalar t) {
  SCOPED_TRACE(scalarName(t) + " " + std::to_string(n) + " into " + std::to_string(bins) + ", warps " +
               std::to_string(warps) + "\n" + l.str() + "\n" + rl.str());
  const std::string elem = scalarName(t);
  std::ostringstream s;
  s << "func @k(%x: ptr<" << elem << ">, %h: ptr<i32>) {\n" << pointersIn("a", "x", {n}, elem, l);
  s << "  %v = load %a_p : " << tileType({n}, elem, l) << "\n";
  s << "  %c = histogram %v : " << tileType({bins}, "i32", rl) << "\n";
  s << pointersIn("b", "h", {bins}, "i32", rl) << "  store %b_p, %c\n  return\n}\n";
  ASSERT_EQ(assembleBoth(s.str(), warps), "");
  std::mt19937 rng(uint32_t(n + bins));
  Bytes x(size_t(n) * size_t(elemBytes(t)));
  std::vector<int32_t> want(size_t(bins), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = int64_t(rng() % uint32_t(bins + 4)) - (ir::isSigned(t) ? 2 : 0);  // some outside the bins
    writeElem(x, t, i, ir::normalize(t, ir::intElem(v)));
    const ir::Elem e = readElem(x, t, i);
    if (ir::isSigned(t) ? e.i >= 0 && e.i < bins : e.u < uint64_t(bins)) ++want[size_t(e.u)];
  }
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    Bytes h(size_t(bins) * 4, 0xEE);
    SimResult r = simulate(s.str(), {"x", "h"}, {x, h}, warps, target);
    ASSERT_EQ(r.error, "") << r.ptx;
    for (int64_t b = 0; b < bins; ++b)
      ASSERT_EQ(readElem(r.buffers[1], Scalar::I32, b).i, want[size_t(b)]) << target.name() << " bin " << b << "\n"
                                                                            << r.ptx;
  }
}

TEST(OpsHistogram, BlockedLayouts) {
  for (int warps : {1, 4, 8})
    for (Scalar t : {Scalar::I32, Scalar::U8, Scalar::I64, Scalar::I16}) {
      checkHistogram(256, 16, layout::defaultBlocked({256}, warps, 4, {0}), layout::defaultBlocked({16}, warps, 1, {0}),
                     warps, t);
      checkHistogram(8, 512, layout::defaultBlocked({8}, warps, 1, {0}), layout::defaultBlocked({512}, warps, 2, {0}),
                     warps, t);
      checkHistogram(1, 1, layout::defaultBlocked({1}, warps, 1, {0}), layout::defaultBlocked({1}, warps, 1, {0}),
                     warps, t);
    }
}

TEST(OpsHistogram, RandomLayouts) {
  std::mt19937 rng(7);
  for (int k = 0; k < 16; ++k) {
    const int warps = 1 << (rng() % 4);
    const int64_t n = int64_t(1) << (rng() % 11), bins = int64_t(1) << (rng() % 10);
    checkHistogram(n, bins, randomLayout({n}, warps, rng), randomLayout({bins}, warps, rng), warps,
                   k % 2 ? Scalar::I32 : Scalar::U16);
  }
}

}  // namespace
}  // namespace kiln::lower::test
