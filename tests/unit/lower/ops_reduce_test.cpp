// reduce lowering: every kind along every axis of 1-D and 2-D tiles in blocked and mma layouts with 1, 4
// and 8 warps, assembled for sm_80 and sm_90a and run in the CTA simulator against the interpreter's
// rules (integral data, so float sums are exact in any order; NaN, signed zeros and ties included).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "layout/named_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using ir::Elem;
using ir::Scalar;
using layout::LinearLayout;

// argmax/argmin's order: NaN never wins, -0.0 below +0.0 (the interpreter's `better`).
bool better(bool isMax, Scalar t, Elem cand, Elem best) {
  if (ir::isFloat(t)) {
    double c = cand.f, b = best.f;
    if (std::isnan(c)) return false;
    if (std::isnan(b)) return true;
    if (c == b) return std::signbit(c) != std::signbit(b) && std::signbit(c) != isMax;
    return isMax ? c > b : c < b;
  }
  if (ir::isSigned(t)) return isMax ? cand.i > best.i : cand.i < best.i;
  return isMax ? cand.u > best.u : cand.u < best.u;
}

// The interpreter's reduction, in index order.
std::vector<Elem> reference(const std::vector<Elem>& x, Scalar from, Scalar to, const std::vector<int64_t>& shape, int axis,
                            const std::string& kind) {
  int64_t outer = 1, len = shape[size_t(axis)], inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<Elem> out;
  ir::ElementwiseFn fn;
  if (kind == "sum" || kind == "max" || kind == "min") {
    ir::Op op(kind == "sum" ? ir::Opcode::Add : kind == "max" ? ir::Opcode::Max : ir::Opcode::Min, {});
    ir::decodeElementwise(op, to, fn);
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return x[size_t((o * len + k) * inner + i)]; };
      if (kind == "argmax" || kind == "argmin") {
        int64_t best = 0;
        for (int64_t k = 1; k < len; ++k)
          if (better(kind == "argmax", from, at(k), at(best))) best = k;
        out.push_back(ir::intElem(best));
        continue;
      }
      Elem r = ir::convert(from, to, at(0));
      bool dz = false;
      for (int64_t k = 1; k < len; ++k) {
        Elem a[2] = {r, ir::convert(from, to, at(k))};
        ir::evalElementwise(fn, a, r, dz);
      }
      out.push_back(r);
    }
  return out;
}

struct Case {
  std::vector<int64_t> shape;
  LinearLayout layout;
  int axis;
  int numWarps;
};

// Integral data in [-range, range) with NaNs and signed zeros sprinkled in for the float max/min kinds.
Bytes data(Scalar t, int64_t n, uint32_t seed, bool specials, double range) {
  Bytes b = randomElems(t, n, seed, range, true);
  if (specials && ir::isFloat(t))
    for (int64_t i = 0; i < n; ++i) {
      if ((i * 7 + seed) % 11 == 0) writeElem(b, t, i, ir::floatElem(std::nan("")));
      if ((i * 5 + seed) % 13 == 0) writeElem(b, t, i, ir::floatElem((i & 1) ? -0.0 : 0.0));
    }
  return b;
}

void checkReduce(const Case& c, Scalar from, Scalar to, const std::string& kind, double range = 4.0) {
  SCOPED_TRACE(kind + " " + scalarName(from) + "->" + scalarName(to) + " axis " + std::to_string(c.axis) + " warps " +
               std::to_string(c.numWarps) + " layout " + c.layout.str());
  std::string text = reduceKernel(c.shape, scalarName(from), scalarName(to), c.layout, c.axis, kind);
  ASSERT_EQ(assembleBoth(text, c.numWarps), "");
  const int64_t n = numelOf(c.shape);
  Bytes x = data(from, n, uint32_t(n + c.axis), kind != "sum", range);
  std::vector<Elem> xe;
  for (int64_t i = 0; i < n; ++i) xe.push_back(readElem(x, from, i));
  std::vector<Elem> want = reference(xe, from, to, c.shape, c.axis, kind);
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    SimResult r = simulate(text, {"x", "y"}, {x, Bytes(want.size() * size_t(elemBytes(to)), 0xEE)}, c.numWarps, target);
    ASSERT_EQ(r.error, "") << r.ptx;
    int bad = 0;
    for (size_t i = 0; i < want.size() && bad < 5; ++i) {
      Elem got = readElem(r.buffers[1], to, int64_t(i));
      bool same = ir::toBits(to, got) == ir::toBits(to, want[i]) || (ir::isFloat(to) && std::isnan(got.f) && std::isnan(want[i].f));
      if (!same) {
        ++bad;
        ADD_FAILURE() << target.name() << " result " << i << ": got " << (ir::isFloat(to) ? got.f : double(got.i)) << ", want "
                      << (ir::isFloat(to) ? want[i].f : double(want[i].i)) << "\n"
                      << (bad == 1 ? r.ptx : "");
      }
    }
  }
}

std::vector<Case> cases1d() {
  std::vector<Case> out;
  for (int warps : {1, 4, 8})
    for (int64_t n : {8, 128, 1024})
      for (int vec : {1, 4}) out.push_back({{n}, layout::defaultBlocked({n}, warps, vec, {0}), 0, warps});
  return out;
}

std::vector<Case> cases2d() {
  std::vector<Case> out;
  for (int warps : {1, 4, 8})
    for (int axis : {0, 1}) {
      out.push_back({{32, 64}, layout::defaultBlocked({32, 64}, warps, 4, {1, 0}), axis, warps});
      out.push_back({{32, 64}, layout::defaultBlocked({32, 64}, warps, 4, {0, 1}), axis, warps});
      out.push_back({{4, 16}, layout::defaultBlocked({4, 16}, warps, 2, {1, 0}), axis, warps});
      std::vector<int32_t> wpc{warps >= 2 ? 2 : 1, 1};
      wpc[1] = warps / wpc[0];
      out.push_back({{64, 32}, layout::mmaV2Accumulator({64, 32}, wpc), axis, warps});
    }
  return out;
}

TEST(OpsReduce, Sum1d) {
  for (const Case& c : cases1d()) {
    checkReduce(c, Scalar::F32, Scalar::F32, "sum");
    checkReduce(c, Scalar::I8, Scalar::I32, "sum");
  }
}

TEST(OpsReduce, MaxMin1d) {
  for (const Case& c : cases1d()) {
    checkReduce(c, Scalar::F32, Scalar::F32, "max");
    checkReduce(c, Scalar::I32, Scalar::I32, "min");
  }
}

TEST(OpsReduce, ArgMaxMin1d) {
  for (const Case& c : cases1d()) {
    checkReduce(c, Scalar::F32, Scalar::I32, "argmax");
    checkReduce(c, Scalar::F32, Scalar::I32, "argmin");
    checkReduce(c, Scalar::I16, Scalar::I32, "argmax");
  }
}

TEST(OpsReduce, EveryKind2d) {
  for (const Case& c : cases2d()) {
    checkReduce(c, Scalar::F32, Scalar::F32, "sum");
    checkReduce(c, Scalar::F32, Scalar::F32, "max");
    checkReduce(c, Scalar::F32, Scalar::F32, "min");
    checkReduce(c, Scalar::F32, Scalar::I32, "argmax");
    checkReduce(c, Scalar::F32, Scalar::I32, "argmin");
  }
}

TEST(OpsReduce, ElementTypes) {
  Case c2{{16, 32}, layout::defaultBlocked({16, 32}, 4, 4, {1, 0}), 1, 4};
  Case c1{{256}, layout::defaultBlocked({256}, 4, 2, {0}), 0, 4};
  for (const Case& c : {c1, c2}) {
    checkReduce(c, Scalar::F16, Scalar::F16, "sum");
    checkReduce(c, Scalar::F16, Scalar::F32, "sum");
    checkReduce(c, Scalar::BF16, Scalar::BF16, "max");
    checkReduce(c, Scalar::F16, Scalar::F16, "min");
    checkReduce(c, Scalar::F64, Scalar::F64, "sum");
    checkReduce(c, Scalar::F64, Scalar::I32, "argmin");
    checkReduce(c, Scalar::BF16, Scalar::I32, "argmax");
    checkReduce(c, Scalar::U8, Scalar::U8, "max", 200.0);
    checkReduce(c, Scalar::I64, Scalar::I64, "sum", 1e12);
    checkReduce(c, Scalar::U16, Scalar::I32, "argmin", 60000.0);
    checkReduce(c, Scalar::I8, Scalar::I8, "sum", 100.0);  // wraps at 8 bits
    checkReduce(c, Scalar::I1, Scalar::I1, "max");
    checkReduce(c, Scalar::I1, Scalar::I32, "sum");
    checkReduce(c, Scalar::F8E4M3, Scalar::F8E4M3, "max");
  }
}

TEST(OpsReduce, AllNanAndTies) {
  // Every element NaN: max is NaN and argmax is index 0; all equal: argmin is index 0.
  Case c{{64, 16}, layout::defaultBlocked({64, 16}, 4, 1, {0, 1}), 0, 4};
  std::string text = reduceKernel(c.shape, "f32", "i32", c.layout, 0, "argmax");
  Bytes x(64 * 16 * 4);
  for (int i = 0; i < 64 * 16; ++i) writeElem(x, Scalar::F32, i, ir::floatElem(i % 16 < 8 ? std::nan("") : 1.0));
  SimResult r = simulate(text, {"x", "y"}, {x, Bytes(16 * 4, 0xEE)}, 4);
  ASSERT_EQ(r.error, "");
  for (int i = 0; i < 16; ++i) EXPECT_EQ(readElem(r.buffers[1], Scalar::I32, i).i, 0) << i;
  text = reduceKernel(c.shape, "f32", "f32", c.layout, 0, "max");
  r = simulate(text, {"x", "y"}, {x, Bytes(16 * 4, 0xEE)}, 4);
  ASSERT_EQ(r.error, "");
  for (int i = 0; i < 16; ++i) EXPECT_EQ(std::isnan(readElem(r.buffers[1], Scalar::F32, i).f), i < 8) << i;
}

TEST(OpsReduce, RandomLayouts) {
  // Coordinate bits dealt at random to registers, lanes and warps (with copies): every kind, every axis.
  std::mt19937 rng(77);
  const char* kinds[] = {"sum", "max", "argmin", "argmax", "min"};
  for (int i = 0; i < 40; ++i) {
    int warps = 1 << (rng() % 4);
    std::vector<int64_t> shape = i % 4 == 0 ? std::vector<int64_t>{int64_t(32) << (rng() % 3)}
                                            : std::vector<int64_t>{int64_t(4) << (rng() % 3), int64_t(8) << (rng() % 3)};
    LinearLayout l = randomLayout(shape, warps, rng, false);
    int axis = int(rng() % shape.size());
    std::string kind = kinds[i % 5];
    Scalar from = i % 2 ? Scalar::F32 : Scalar::I32;
    Scalar to = kind.substr(0, 3) == "arg" ? Scalar::I32 : from;
    checkReduce({shape, l, axis, warps}, from, to, kind);
    if (HasFatalFailure() || HasFailure()) return;
  }
}

TEST(OpsReduce, InstructionsPerStage) {
  // 1-D 1024 over 4 warps, 4 per thread in 2 chunks: a register tree, 5 butterfly steps, 2 warp bits.
  LinearLayout l = layout::defaultBlocked({1024}, 4, 4, {0});
  std::string b = body(emit(reduceKernel({1024}, "f32", "f32", l, 0, "sum"), {}, ptx::kSm80, 4).ptx);
  EXPECT_EQ(count(b, "shfl.sync.bfly"), 5);
  EXPECT_EQ(count(b, "bar.sync"), 1);  // between the partials' store and their reads; none after them
  EXPECT_EQ(count(b, "st.shared"), 1);
  EXPECT_EQ(count(b, "ld.shared"), 4);
  // Along an axis held by one thread's registers: no shuffles, no shared memory.
  LinearLayout rows = layout::defaultBlocked({16, 8}, 4, 8, {1, 0});
  b = body(emit(reduceKernel({16, 8}, "f32", "f32", rows, 1, "max"), {}, ptx::kSm80, 4).ptx);
  EXPECT_EQ(count(b, "shfl"), 0);
  EXPECT_EQ(count(b, "bar.sync"), 0);
  EXPECT_EQ(count(b, "max.f32"), 7);
}

}  // namespace
}  // namespace kiln::lower::test
