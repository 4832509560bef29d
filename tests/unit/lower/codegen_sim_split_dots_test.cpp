// f32 matmuls with input_precision tf32x3, bf16x3 and bf16x6 (bench/kernels/matmul_f32.py), whose dots
// split_dots rewrites into tf32 or bf16 dots of the operands' parts, end to end in the CTA simulator on
// sm_90a and sm_80, unpipelined and three stages deep, B K-major and N-major. Awkward sizes: M and N of
// 80 against 64x64 tiles, K = 80 (not a multiple of BLOCK_K 32). Each result is checked against the
// parts' products summed exactly (what is left is the f32 sums' rounding) and against the exact f32
// product at the precision the mode promises.
#include <cmath>
#include <cstring>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

struct Case {
  const char* input;
  const char* precision;
  bool kMajor;
};

const Case kCases[] = {
    {"matmul_split_tf32x3_kmajor", "tf32x3", true},
    {"matmul_split_tf32x3_nmajor", "tf32x3", false},
    {"matmul_split_bf16x3_kmajor", "bf16x3", true},
    {"matmul_split_bf16x6_nmajor", "bf16x6", false},
};

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float f32(double x) { return float(x); }

// x's parts as the split defines them (docs/semantics.md, dot), each as the value its dot reads: the
// tf32 dots truncate their operands to tf32 (the big part is one already).
std::vector<double> partsOf(float x, const std::string& precision) {
  if (precision == "tf32x3") {
    const float big = f32(ir::roundToTF32(x));
    return {big, ir::truncateToTF32(double(x - big))};
  }
  std::vector<double> parts;
  float rest = x;
  for (int i = 0; i < (precision == "bf16x6" ? 3 : 2); ++i) {
    const float part = f32(ir::roundTo(ir::Scalar::BF16, double(rest)));
    parts.push_back(part);
    rest = rest - part;
  }
  return parts;
}

// The products a split precision sums: (part of a, part of b).
std::vector<std::pair<int, int>> productsOf(const std::string& precision) {
  if (precision == "tf32x3") return {{1, 0}, {0, 1}, {0, 0}};
  if (precision == "bf16x3") return {{1, 0}, {0, 1}, {0, 0}};
  return {{1, 1}, {2, 0}, {0, 2}, {1, 0}, {0, 1}, {0, 0}};
}

TEST(CodegenSimSplitDots, MatchTheirPartsProducts) {
  for (const Case& c : kCases)
    for (ptx::Target target : {ptx::kSm90a, ptx::kSm80})
      for (int stages : {1, 3}) {
        SCOPED_TRACE(std::string(c.input) + (target.sm == 90 ? " sm_90a" : " sm_80") + " stages " +
                     std::to_string(stages));
        SimRun r(lowerInput(c.input, 4, stages, target));
        const bool tf32 = std::string(c.precision) == "tf32x3";
        // tf32x3 rounds its big parts with cvt.rna and stays on mma.sync (its operands are computed, and
        // staged tf32 operands are slower on wgmma); the bf16 parts' dots run on wgmma on sm_90a.
        EXPECT_EQ(r.k.ptx.find("cvt.rna.tf32.f32") != std::string::npos, tf32);
        if (tf32 || target.sm != 90) {
          EXPECT_GE(count(r.k.ptx, tf32 ? "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
                                        : "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
                    1);
          EXPECT_EQ(count(r.k.ptx, "wgmma.mma_async"), 0);
        } else {
          EXPECT_GE(count(r.k.ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"), 1);
        }
        const int M = 80, N = 80, K = 80, lda = K + 16, ldb = c.kMajor ? K + 32 : 96, ldc = 96;  // the :16 hints
        std::vector<float> a = randomFloats(size_t(M) * lda, 51), b = randomFloats(size_t(c.kMajor ? N : K) * ldb, 52);
        std::vector<uint32_t> out(size_t(M) * ldc, 0xFFFFFFFFu);  // poison: NaN
        r.buffer("a_ptr", a);
        r.buffer("b_ptr", b);
        const uint64_t cb = r.buffer("c_ptr", out);
        for (auto [name, v] : std::vector<std::pair<const char*, uint64_t>>{
                 {"M", M}, {"N", N}, {"K", K}, {"stride_am", lda}, {"stride_ak", 1},
                 {"stride_bk", c.kMajor ? 1 : ldb}, {"stride_bn", c.kMajor ? ldb : 1}, {"stride_cm", ldc},
                 {"stride_cn", 1}})
          r.param(name, v);
        r.encodeTensorMaps();
        ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
        std::vector<uint32_t> got = r.read<uint32_t>(cb);
        auto bAt = [&](int k, int n) { return size_t(c.kMajor ? n * ldb + k : k * ldb + n); };
        const std::vector<std::pair<int, int>> products = productsOf(c.precision);
        // bf16x3 keeps about 16 bits of each operand; tf32x3 and bf16x6 about f32's 24.
        const double promise = std::string(c.precision) == "bf16x3" ? 0x1p-15 : 0x1p-20;
        for (int m = 0; m < 64; ++m)
          for (int n = 0; n < 64; ++n) {
            double want = 0, exact = 0, size = 0;
            for (int k = 0; k < K; ++k) {
              const float x = a[size_t(m * lda + k)], y = b[bAt(k, n)];
              const std::vector<double> xs = partsOf(x, c.precision), ys = partsOf(y, c.precision);
              for (auto [i, j] : products) want += xs[size_t(i)] * ys[size_t(j)];
              exact += double(x) * double(y);
              size += std::fabs(double(x) * double(y));
            }
            const float g = floatOf(got[size_t(m * ldc + n)]);
            ASSERT_NEAR(g, want, 0x1p-22 * size + 1e-30) << m << ", " << n;
            ASSERT_NEAR(g, exact, promise * size) << m << ", " << n;
          }
        for (int m = 64; m < M; ++m) EXPECT_EQ(got[size_t(m * ldc)], 0xFFFFFFFFu) << "row " << m << " belongs to another program";
      }
}

}  // namespace
}  // namespace kiln::lower::test
