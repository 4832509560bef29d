// scan and reduce_combine lowering: combine regions that are associative but not commutative (a linear
// recurrence over (x, index) pairs, "keep the first", a running maximum whose ties keep the later index)
// and sums in several element types, along every axis of 1-D and 2-D tiles in blocked layouts (with
// repeats along the axis) and random axis-ordered layouts, 1 to 8 warps, forwards and reversed; assembled
// for sm_80 and sm_90a and run in the CTA simulator against the interpreter's sequential order. Integral
// data keep float sums exact, so every result must match bit for bit.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "layout/axis_bits.h"
#include "layout/named_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using ir::Elem;
using ir::Scalar;
using layout::LinearLayout;
using Pair = std::vector<Elem>;  // (x) or (x, index)
using Combine = std::function<Pair(const Pair& acc, const Pair& x)>;

struct Region {
  std::string text;  // the combine region, from its argument line to its closing brace
  Combine fn;        // what it computes, on the interpreter's rules
  bool withIndex;
};

Region sumOf(Scalar t) {
  const std::string n = scalarName(t);
  auto fn = [t](const Pair& a, const Pair& b) {
    ir::Op add(ir::Opcode::Add, {});
    ir::ElementwiseFn f;
    ir::decodeElementwise(add, t, f);
    Elem in[2] = {a[0], b[0]}, out{};
    bool dz = false;
    ir::evalElementwise(f, in, out, dz);
    return Pair{out};
  };
  return {"  ^(%a: " + n + ", %b: " + n + "):\n    %s = add %a, %b : " + n + "\n    yield %s\n  }", fn, false};
}

// x_i = a_i * x_{i-1} + b_i as pairs (a, b) of i32, wrapping: associative, not commutative.
Region recurrence() {
  auto fn = [](const Pair& p, const Pair& q) {
    auto w = [](int64_t v) { return ir::intElem(int64_t(int32_t(uint32_t(uint64_t(v))))); };
    return Pair{w(p[0].i * q[0].i), w(p[1].i * q[0].i + q[1].i)};
  };
  return {"  ^(%a1: i32, %b1: i32, %a2: i32, %b2: i32):\n    %a = mul %a1, %a2 : i32\n    %m = mul %b1, %a2 : i32\n"
          "    %b = add %m, %b2 : i32\n    yield %a, %b\n  }",
          fn, true};
}

Region keepFirst(Scalar t) {
  const std::string n = scalarName(t);
  return {"  ^(%a: " + n + ", %b: " + n + "):\n    yield %a\n  }", [](const Pair& a, const Pair&) { return a; }, false};
}

// (value, index): the strictly greater value wins, a tie keeps the later index (Triton's test cummax).
Region runningMax() {
  auto fn = [](const Pair& p, const Pair& q) { return p[0].f > q[0].f ? p : q; };
  return {"  ^(%v1: f32, %i1: i32, %v2: f32, %i2: i32):\n    %gt = cmp %v1, %v2 {pred = \"gt\"} : i1\n"
          "    %mv = select %gt, %v1, %v2 : f32\n    %mi = select %gt, %i1, %i2 : i32\n    yield %mv, %mi\n  }",
          fn, true};
}

struct Case {
  std::vector<int64_t> shape;
  LinearLayout layout;
  int axis;
  int numWarps;
};

// The interpreter's order: acc = x[first]; acc = f(acc, x[next]) along the axis (from the end when reversed).
std::vector<Pair> reference(const std::vector<Pair>& x, const std::vector<int64_t>& shape, int axis, bool scan,
                            bool reverse, const Combine& f) {
  int64_t outer = 1, len = shape[size_t(axis)], inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<Pair> out(scan ? x.size() : size_t(outer * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      Pair acc;
      for (int64_t step = 0; step < len; ++step) {
        const int64_t j = reverse ? len - 1 - step : step, at = (o * len + j) * inner + i;
        acc = step == 0 ? x[size_t(at)] : f(acc, x[size_t(at)]);
        if (scan) out[size_t(at)] = acc;
      }
      if (!scan) out[size_t(o * inner + i)] = acc;
    }
  return out;
}

void check(const Case& c, const std::string& op, bool reverse, Scalar t, const Region& region, double range = 3.0) {
  const bool scan = op == "scan";
  std::string attrs = "axis = " + std::to_string(c.axis) + (reverse ? ", reverse = 1" : "");
  SCOPED_TRACE(op + " " + attrs + " " + scalarName(t) + " warps " + std::to_string(c.numWarps) + " " + c.layout.str() +
               "\n" + region.text);
  ASSERT_TRUE(layout::axisBits(c.layout, c.axis)) << "test layout does not hold the axis in order";
  std::string text = combineKernel(c.shape, scalarName(t), c.layout, op, attrs, region.withIndex, region.text);
  ASSERT_EQ(assembleBoth(text, c.numWarps), "");
  const int64_t n = numelOf(c.shape);
  Bytes x = randomElems(t, n, uint32_t(n * 7 + c.axis), range, true);
  std::vector<Pair> xs;
  for (int64_t i = 0; i < n; ++i)
    xs.push_back(region.withIndex ? Pair{readElem(x, t, i), ir::intElem(i)} : Pair{readElem(x, t, i)});
  std::vector<Pair> want = reference(xs, c.shape, c.axis, scan, reverse, region.fn);
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    Bytes y(want.size() * size_t(elemBytes(t)), 0xEE), z(want.size() * 4, 0xEE);
    SimResult r = simulate(text, {"x", "y", "z"}, {x, y, z}, c.numWarps, target);
    ASSERT_EQ(r.error, "") << r.ptx;
    int bad = 0;
    for (size_t i = 0; i < want.size() && bad < 4; ++i) {
      Elem got = readElem(r.buffers[1], t, int64_t(i));
      bool same = ir::toBits(t, got) == ir::toBits(t, want[i][0]);
      if (region.withIndex) same = same && readElem(r.buffers[2], Scalar::I32, int64_t(i)).i == want[i][1].i;
      if (!same && ++bad)
        ADD_FAILURE() << target.name() << " element " << i << ": got " << (ir::isFloat(t) ? got.f : double(got.i))
                      << ", want " << (ir::isFloat(t) ? want[i][0].f : double(want[i][0].i)) << "\n"
                      << (bad == 1 ? r.ptx : "");
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
      out.push_back({{32, 64}, layout::defaultBlocked({32, 64}, warps, 2, {0, 1}), axis, warps});
      out.push_back({{2, 128}, layout::defaultBlocked({2, 128}, warps, 1, {1, 0}), axis, warps});
      out.push_back({{128, 2}, layout::defaultBlocked({128, 2}, warps, 2, {1, 0}), axis, warps});
      out.push_back({{1, 64}, layout::defaultBlocked({1, 64}, warps, 1, {1, 0}), axis, warps});
    }
  }
  return out;
}

// Random layouts whose bits along the axis come in order (registers, lanes, warps, registers).
std::vector<Case> randomCases(int count) {
  std::mt19937 rng(1234);
  std::vector<Case> out;
  while (int(out.size()) < count) {
    const int warps = 1 << (rng() % 4), axis = int(rng() % 2);
    std::vector<int64_t> shape = {int64_t(1) << (1 + rng() % 5), int64_t(1) << (1 + rng() % 6)};
    LinearLayout l = randomLayout(shape, warps, rng, false);
    if (layout::axisBits(l, axis)) out.push_back({shape, l, axis, warps});
  }
  return out;
}

TEST(OpsScan, SumsForwardAndReversed) {
  for (const Case& c : blockedCases())
    for (bool reverse : {false, true}) check(c, "scan", reverse, reverse ? Scalar::I32 : Scalar::F32, sumOf(reverse ? Scalar::I32 : Scalar::F32));
}

TEST(OpsScan, ElementTypes) {
  Case c{{16, 64}, layout::defaultBlocked({16, 64}, 4, 2, {1, 0}), 1, 4};
  for (Scalar t : {Scalar::I8, Scalar::U16, Scalar::I64, Scalar::F16, Scalar::BF16, Scalar::F64, Scalar::I1})
    for (bool reverse : {false, true}) check(c, "scan", reverse, t, sumOf(t), t == Scalar::I8 ? 100.0 : 3.0);
}

TEST(OpsScan, NonCommutativeCombines) {
  for (const Case& c : blockedCases()) {
    for (bool reverse : {false, true}) check(c, "scan", reverse, Scalar::I32, recurrence());
    check(c, "scan", false, Scalar::F32, runningMax());
    check(c, "scan", true, Scalar::F16, keepFirst(Scalar::F16));
  }
}

TEST(OpsScan, RandomAxisOrderedLayouts) {
  for (const Case& c : randomCases(40)) {
    check(c, "scan", c.numWarps % 2 == 0, Scalar::I32, recurrence());
    check(c, "scan", c.numWarps % 2 != 0, Scalar::F32, runningMax());
  }
}

TEST(OpsReduceCombine, NonCommutativeCombinesKeepTheOrder) {
  for (const Case& c : blockedCases()) {
    check(c, "reduce_combine", false, Scalar::I32, recurrence());
    check(c, "reduce_combine", false, Scalar::F32, runningMax());
    check(c, "reduce_combine", false, Scalar::I16, keepFirst(Scalar::I16));
  }
  for (const Case& c : randomCases(40)) check(c, "reduce_combine", false, Scalar::I32, recurrence());
}

TEST(OpsReduceCombine, ElementTypes) {
  Case c{{64, 16}, layout::defaultBlocked({64, 16}, 8, 4, {1, 0}), 0, 8};
  for (Scalar t : {Scalar::I1, Scalar::U8, Scalar::I64, Scalar::F16, Scalar::F64})
    check(c, "reduce_combine", false, t, sumOf(t), t == Scalar::U8 ? 100.0 : 3.0);
}

}  // namespace
}  // namespace kiln::lower::test
