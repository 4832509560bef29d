// dot lowering and dotLayout: mma.sync (f16, bf16, tf32, i8) and FMA at several shapes and warp counts,
// assembled for sm_80 and sm_90a and run in the CTA simulator, whose mma.sync follows the PTX fragment
// formulas independently of kiln's layouts. Integral data keep every sum exact in any order, so the
// results must equal the interpreter's bit for bit; a non-integral f32 case checks the FMA order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "layout/conversions.h"
#include "layout/named_layouts.h"
#include "assign/dot_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using ir::Elem;
using ir::Scalar;
using layout::LinearLayout;

struct DotCase {
  DotShapes sh;
  Scalar in, acc;
  std::string precision;
  int numWarps;
};

std::string caseName(const DotCase& c) {
  return scalarName(c.in) + "->" + scalarName(c.acc) + " a " + shapeText(c.sh.a) + " b " + shapeText(c.sh.b) + " warps " +
         std::to_string(c.numWarps) + (c.precision.empty() ? "" : " " + c.precision);
}

std::unique_ptr<ir::Module> bare(const DotCase& c) {
  return ir::parseModule(makeSource("dot.tir", bareDot(c.sh, scalarName(c.in), scalarName(c.acc), c.precision)));
}

const ir::Op& dotOf(const ir::Module& m) {
  for (const auto& op : m.functions.at(0)->body.ops)
    if (op->opcode == ir::Opcode::Dot) return *op;
  throw std::runtime_error("no dot");
}

// The interpreter's dot: operands converted to the accumulator type (f32 truncated to tf32 first when
// asked), then c = fma(a, b, c) in k order, rounded to the accumulator type each step.
std::vector<Elem> reference(const DotCase& c, const Bytes& a, const Bytes& b, const Bytes& acc) {
  const int r = int(c.sh.c.size());
  const int64_t B = r == 3 ? c.sh.c[0] : 1, M = c.sh.a[size_t(r - 2)], K = c.sh.a[size_t(r - 1)], N = c.sh.b[size_t(r - 1)];
  const bool tf32 = c.precision.empty() || c.precision == "tf32";
  auto prep = [&](const Bytes& buf, int64_t i) {
    Elem v = readElem(buf, c.in, i);
    if (c.in == Scalar::F32 && tf32) v.f = ir::truncateToTF32(v.f);
    return c.in == c.acc ? v : ir::convert(c.in, c.acc, v);
  };
  std::vector<Elem> out;
  for (int64_t bb = 0; bb < B; ++bb)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        Elem s = readElem(acc, c.acc, (bb * M + m) * N + n);
        for (int64_t k = 0; k < K; ++k) {
          Elem x = prep(a, (bb * M + m) * K + k), y = prep(b, (bb * K + k) * N + n);
          if (ir::isFloat(c.acc)) s.f = ir::fmaTo(c.acc, x.f, y.f, s.f);
          else s = ir::normalize(c.acc, ir::intElem(int64_t(s.u + x.u * y.u)));
        }
        out.push_back(s);
      }
  return out;
}

// Runs the case on sm_80 and sm_90a; returns the sm_80 PTX body. `a` replaces A's random elements.
std::string checkDot(const DotCase& c, bool integral = true, const Bytes* a0 = nullptr) {
  SCOPED_TRACE(caseName(c));
  auto m = bare(c);
  const ir::Op& dot = dotOf(*m);
  std::string body80;
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    LinearLayout la = dotLayout(0, dot, c.numWarps, target), lb = dotLayout(1, dot, c.numWarps, target),
                 lc = dotLayout(2, dot, c.numWarps, target);
    std::string text = dotKernel(c.sh, scalarName(c.in), scalarName(c.acc), c.precision, la, lb, lc);
    Emitted e = emit(text, {}, target, c.numWarps);
    if (havePtxas()) {
      std::string p = assembleProblems(e.ptx, target.name());
      EXPECT_EQ(p, "");
    }
    if (target == ptx::kSm80) body80 = body(e.ptx);
    Bytes a = a0 ? *a0 : randomElems(c.in, numelOf(c.sh.a), 1, integral ? 4.0 : 1.0, integral);
    Bytes b = randomElems(c.in, numelOf(c.sh.b), 2, integral ? 4.0 : 1.0, integral);
    Bytes acc = randomElems(c.acc, numelOf(c.sh.c), 3, integral ? 8.0 : 1.0, integral);
    std::vector<Elem> want = reference(c, a, b, acc);
    SimResult r = simulate(text, {"pa", "pb", "pc", "pd"}, {a, b, acc, Bytes(acc.size(), 0xEE)}, c.numWarps, target);
    EXPECT_EQ(r.error, "") << r.ptx;
    if (!r.error.empty()) return body80;
    int bad = 0;
    for (size_t i = 0; i < want.size() && bad < 5; ++i) {
      Elem got = readElem(r.buffers[3], c.acc, int64_t(i));
      if (ir::toBits(c.acc, got) != ir::toBits(c.acc, want[i])) {
        ++bad;
        ADD_FAILURE() << target.name() << " element " << i << ": got " << (ir::isFloat(c.acc) ? got.f : double(got.i))
                      << ", want " << (ir::isFloat(c.acc) ? want[i].f : double(want[i].i));
      }
    }
  }
  return body80;
}

TEST(OpsDot, MmaF16AndBf16) {
  for (Scalar in : {Scalar::F16, Scalar::BF16})
    for (auto [m, n, k, warps] : {std::tuple{16, 8, 16, 1}, {16, 8, 16, 4}, {64, 64, 32, 4}, {32, 64, 64, 8},
                                  {128, 32, 16, 8}, {32, 32, 32, 2}, {128, 128, 32, 8}}) {
      std::string b = checkDot({{{m, k}, {k, n}, {m, n}}, in, Scalar::F32, "", warps});
      std::vector<int32_t> wpc = mmaWarpsPerCTA(m, n, warps);
      int64_t tiles = std::max<int64_t>(1, m / (16 * wpc[0])) * std::max<int64_t>(1, n / (8 * wpc[1])) * (k / 16);
      EXPECT_EQ(count(b, "mma.sync.aligned.m16n8k16"), tiles);
    }
}

TEST(OpsDot, MmaTf32) {
  for (auto [m, n, k, warps] : {std::tuple{16, 8, 8, 1}, {64, 32, 16, 4}, {32, 64, 32, 8}}) {
    std::string b = checkDot({{{m, k}, {k, n}, {m, n}}, Scalar::F32, Scalar::F32, "", warps});
    EXPECT_GE(count(b, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), 1);
    EXPECT_EQ(count(b, "cvt.rna.tf32"), 0);  // the tensor cores read the f32 bits truncated, as the dot means
  }
  std::string b = checkDot({{{32, 16}, {16, 32}, {32, 32}}, Scalar::F32, Scalar::F32, "tf32", 4});
  EXPECT_GE(count(b, "m16n8k8"), 1);
}

// A's elements are +-(1 + 3 * 2^-12) * 2^e: three quarters of a tf32 step above a tf32 value, so truncation
// (what the dot means, and what mma.sync does with the bits) and rounding to nearest (cvt.rna) differ on
// every one; with integral B every product and sum is exact, whatever order the hardware sums in.
TEST(OpsDot, Tf32OperandsAreTruncated) {
  for (auto [m, n, k, warps] : {std::tuple{16, 8, 8, 1}, {64, 32, 16, 4}, {8, 32, 16, 4}}) {  // the last on FMA
    DotCase c{{{m, k}, {k, n}, {m, n}}, Scalar::F32, Scalar::F32, "tf32", warps};
    Bytes a(size_t(m * k) * 4);
    for (int64_t i = 0; i < m * k; ++i) {
      const float v = float((i % 3 ? 1 : -1) * (1 + 3 * std::ldexp(1.0, -12)) * std::ldexp(1.0, int(i % 4)));
      std::memcpy(a.data() + 4 * i, &v, 4);
    }
    checkDot(c, true, &a);
  }
}

TEST(OpsDot, MmaInt8) {
  for (Scalar in : {Scalar::I8, Scalar::U8})
    for (auto [m, n, k, warps] : {std::tuple{16, 8, 32, 1}, {64, 32, 64, 4}, {32, 64, 32, 8}}) {
      std::string b = checkDot({{{m, k}, {k, n}, {m, n}}, in, Scalar::I32, "", warps});
      EXPECT_GE(count(b, "mma.sync.aligned.m16n8k32"), 1);
    }
}

TEST(OpsDot, Fp8UsesMmaOnlyOnSm89Plus) {
  DotCase c{{{32, 32}, {32, 16}, {32, 16}}, Scalar::F8E4M3, Scalar::F32, "", 4};
  auto m = bare(c);
  EXPECT_FALSE(mmaConfig(dotOf(*m), 4, ptx::kSm80).has_value());
  ASSERT_TRUE(mmaConfig(dotOf(*m), 4, ptx::kSm90a).has_value());
  EXPECT_EQ(mmaConfig(dotOf(*m), 4, ptx::kSm90a)->kind, ptx::MmaKind::E4M3_F32);
}

TEST(OpsDot, FmaPaths) {
  checkDot({{{16, 16}, {16, 16}, {16, 16}}, Scalar::F32, Scalar::F32, "ieee", 4});
  checkDot({{{8, 32}, {32, 8}, {8, 8}}, Scalar::F32, Scalar::F32, "", 4});      // below mma's M: FMA with tf32
  checkDot({{{8, 16}, {16, 32}, {8, 32}}, Scalar::F16, Scalar::F32, "", 2});    // below mma's M
  checkDot({{{16, 8}, {8, 16}, {16, 16}}, Scalar::BF16, Scalar::F32, "", 4});   // below mma's K
  checkDot({{{16, 16}, {16, 16}, {16, 16}}, Scalar::F16, Scalar::F16, "", 4});  // f16 accumulator
  checkDot({{{16, 8}, {8, 8}, {16, 8}}, Scalar::F64, Scalar::F64, "", 1});
  checkDot({{{16, 16}, {16, 16}, {16, 16}}, Scalar::I32, Scalar::I32, "", 4});
  checkDot({{{32, 16}, {16, 32}, {32, 32}}, Scalar::I8, Scalar::I32, "", 4});   // below mma's K (32)
  checkDot({{{2, 16, 8}, {2, 8, 16}, {2, 16, 16}}, Scalar::F32, Scalar::F32, "ieee", 4});  // batched
  checkDot({{{4, 4}, {4, 4}, {4, 4}}, Scalar::F32, Scalar::F32, "ieee", 8});    // fewer elements than threads
  checkDot({{{16, 32}, {32, 16}, {16, 16}}, Scalar::F8E4M3, Scalar::F32, "", 4});  // FMA on sm_80, mma on sm_90a
  checkDot({{{32, 64}, {64, 8}, {32, 8}}, Scalar::F8E5M2, Scalar::F32, "", 2});
}

TEST(OpsDot, FmaKeepsTheInterpretersOrderExactly) {
  // Non-integral f32: every fma rounds, so only the k-order fused chain matches bit for bit.
  std::string b = checkDot({{{32, 32}, {32, 32}, {32, 32}}, Scalar::F32, Scalar::F32, "ieee", 4}, false);
  EXPECT_EQ(count(b, "fma.rn.f32"), 32 * 32 * 32 / 128);
  checkDot({{{8, 64}, {64, 8}, {8, 8}}, Scalar::F16, Scalar::F32, "", 1}, false);  // FMA (M < 16): f16 products exact in f32
}

// ---- dotLayout

TEST(OpsDotLayout, MmaLayoutsAreTheNamedFragments) {
  DotCase c{{{64, 32}, {32, 128}, {64, 128}}, Scalar::F16, Scalar::F32, "", 4};
  auto m = bare(c);
  const ir::Op& dot = dotOf(*m);
  std::optional<MmaConfig> cfg = mmaConfig(dot, 4, ptx::kSm80);
  ASSERT_TRUE(cfg.has_value());
  EXPECT_EQ(cfg->warpsPerCTA, (std::vector<int32_t>{1, 4}));  // 4 M tiles vs 16 N tiles: warps along N
  EXPECT_EQ(dotLayout(2, dot, 4, ptx::kSm80), layout::mmaV2Accumulator({64, 128}, {1, 4}));
  EXPECT_EQ(dotLayout(0, dot, 4, ptx::kSm80), layout::mmaV2Operand(0, {64, 32}, {1, 4}, 16));
  EXPECT_EQ(dotLayout(1, dot, 4, ptx::kSm80), layout::mmaV2Operand(1, {32, 128}, {1, 4}, 16));
}

TEST(OpsDotLayout, WarpGrids) {
  EXPECT_EQ(mmaWarpsPerCTA(128, 128, 4), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(mmaWarpsPerCTA(128, 128, 8), (std::vector<int32_t>{2, 4}));  // 8 M tiles vs 16 N tiles
  EXPECT_EQ(mmaWarpsPerCTA(16, 8, 4), (std::vector<int32_t>{4, 1}));  // one tile: extra warps repeat along M
  EXPECT_EQ(mmaWarpsPerCTA(16, 256, 8), (std::vector<int32_t>{1, 8}));
  EXPECT_EQ(mmaWarpsPerCTA(256, 16, 8), (std::vector<int32_t>{8, 1}));
  for (int w : {1, 2, 4, 8, 16, 32})
    for (int64_t mm : {16, 64, 256})
      for (int64_t nn : {8, 32, 256}) {
        std::vector<int32_t> g = mmaWarpsPerCTA(mm, nn, w);
        EXPECT_EQ(g[0] * g[1], w);
      }
}

TEST(OpsDotLayout, ChainedDotsPutWarpsAlongM) {
  // s = q k; p = cast(s); o = p v: with all warps along M, s's accumulator is p's A fragment as is.
  const char* text = R"(func @attn(%x: ptr<f32>) {
  %q = constant {value = 0.0} : tensor<64x16xf16>
  %k = constant {value = 0.0} : tensor<16x32xf16>
  %v = constant {value = 0.0} : tensor<32x16xf16>
  %z = constant {value = 0.0} : tensor<64x32xf32>
  %y = constant {value = 0.0} : tensor<64x16xf32>
  %s = dot %q, %k, %z : tensor<64x32xf32>
  %p = cast %s : tensor<64x32xf16>
  %o = dot %p, %v, %y : tensor<64x16xf32>
  %w = dot %q, %v, %y : tensor<64x16xf32>
  return
}
)";
  auto m = ir::parseModule(makeSource("attn.tir", text));
  std::vector<const ir::Op*> dots;
  for (const auto& op : m->functions[0]->body.ops)
    if (op->opcode == ir::Opcode::Dot) dots.push_back(op.get());
  ASSERT_EQ(dots.size(), 3u);
  EXPECT_TRUE(isChainedDot(*dots[0]));
  EXPECT_TRUE(isChainedDot(*dots[1]));
  EXPECT_FALSE(isChainedDot(*dots[2]));  // shares q with the first, but no result flows between them
  for (int warps : {1, 4}) {
    EXPECT_EQ(mmaConfig(*dots[0], warps, ptx::kSm80)->warpsPerCTA, (std::vector<int32_t>{warps, 1}));
    EXPECT_EQ(mmaConfig(*dots[1], warps, ptx::kSm80)->warpsPerCTA, (std::vector<int32_t>{warps, 1}));
    EXPECT_TRUE(layout::registerOnlyConversion(dotLayout(2, *dots[0], warps, ptx::kSm80), dotLayout(0, *dots[1], warps, ptx::kSm80)));
  }
  EXPECT_EQ(mmaConfig(*dots[1], 8, ptx::kSm80)->warpsPerCTA, (std::vector<int32_t>{4, 2}));  // M = 64 holds 4 warps
}

TEST(OpsDotLayout, FmaOperandsHoldWholeKRows) {
  for (auto [m, n, k, warps] : {std::tuple{64, 64, 16, 4}, {8, 8, 32, 4}, {32, 16, 8, 8}, {16, 64, 4, 1}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    LinearLayout acc = fmaAccumulatorLayout({m, n}, warps);
    LinearLayout a = fmaOperandLayout(0, acc, k), b = fmaOperandLayout(1, acc, k);
    EXPECT_EQ(a.getOutDimSize("dim0"), m);
    EXPECT_EQ(a.getOutDimSize("dim1"), k);
    EXPECT_EQ(b.getOutDimSize("dim0"), k);
    EXPECT_EQ(b.getOutDimSize("dim1"), n);
    EXPECT_EQ(a.getInDimSizeLog2("lane"), 5);
    EXPECT_EQ(b.getInDimSizeLog2("warp"), acc.getInDimSizeLog2("warp"));
    // Every (m, n) a thread accumulates finds a[m, k] and b[k, n] in its own registers, for every k.
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t w = 0; w < warps; ++w) {
        auto owns = [&](const LinearLayout& l, int32_t x, int32_t y) {
          for (int32_t r = 0; r < l.getInDimSize("register"); ++r) {
            std::vector<int32_t> c = l.apply(std::vector<int32_t>{r, lane, w});
            if (c[0] == x && c[1] == y) return true;
          }
          return false;
        };
        for (int32_t r = 0; r < acc.getInDimSize("register"); ++r) {
          std::vector<int32_t> c = acc.apply(std::vector<int32_t>{r, lane, w});
          for (int32_t kk = 0; kk < k; kk += std::max<int32_t>(1, k / 4)) {
            EXPECT_TRUE(owns(a, c[0], kk));
            EXPECT_TRUE(owns(b, kk, c[1]));
          }
        }
      }
  }
}

TEST(OpsDotLayout, LoweringRejectsOtherLayouts) {
  DotCase c{{{32, 16}, {16, 32}, {32, 32}}, Scalar::F16, Scalar::F32, "", 4};
  LinearLayout blk = layout::defaultBlocked({32, 32}, 4, 4, {1, 0}), a = layout::defaultBlocked({32, 16}, 4, 4, {1, 0}),
               b = layout::defaultBlocked({16, 32}, 4, 4, {1, 0});
  std::string text = dotKernel(c.sh, "f16", "f32", "", a, b, blk);
  EXPECT_THROW(emit(text, {}, ptx::kSm80, 4), InternalError);
}

}  // namespace
}  // namespace kiln::lower::test
