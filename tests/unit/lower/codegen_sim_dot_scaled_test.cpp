// tl.dot_scaled on the GPU paths, end to end in the CTA simulator: examples/block_scaled_matmul.py
// (e2m1 x e4m3 and fp16 x e5m2 with e8m0 scales, lowered by sema into bit operations, casts, multiplies,
// reshapes and a bf16 or f16 dot) on sm_80's mma.sync and sm_90a's wgmma, at several num_stages (the dot's operands are
// computed from the loads, so there is nothing to software-pipeline yet). The data keep every
// product and sum exact in f32 (few significant bits, scales near 1), so any summation order must give
// the float64 reference bit for bit; masked tails of M, N and K must add nothing, 0xFF scales give NaN.
#include <cmath>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

double e2m1(unsigned nibble) {
  const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (nibble & 8 ? -1 : 1) * mag[nibble & 7];
}

struct Case {
  ptx::Target target;
  int stages;
  std::string input;  // block_scaled[_hints]: e2m1 x e4m3 (bf16 dot); block_scaled_f16: fp16 x e5m2 (f16 dot)
};

void runCase(const Case& c) {
  SCOPED_TRACE(c.input + " on " + c.target.name() + " stages " + std::to_string(c.stages));
  const bool f16 = c.input == "block_scaled_f16";
  SimRun r(lowerInput(c.input, 4, c.stages, c.target));
  const std::string type = f16 ? ".f16.f16" : ".bf16.bf16";
  if (c.target.sm >= 90)
    EXPECT_NE(r.k.ptx.find("wgmma.mma_async.sync.aligned.m64n64k16.f32" + type), std::string::npos);
  else
    EXPECT_NE(r.k.ptx.find("mma.sync.aligned.m16n8k16.row.col.f32" + type + ".f32"), std::string::npos);
  // Program (0, 0) of a 50 x 40 x 96 product: rows 50..63 and columns 40..63 are masked, and with e2m1's
  // 64-wide K blocks so is the second half of the second block. Leading dimensions are padded.
  const int M = 50, N = 40, K = 96, lda = f16 ? 112 : 64, ldb = 48, ldc = 48, groups = K / 32;
  std::mt19937 rng(7);
  std::vector<uint8_t> a8(size_t(M) * lda), b(size_t(K) * ldb), as(size_t(M) * groups), bs(size_t(N) * groups);
  std::vector<uint16_t> a16(size_t(M) * lda);
  for (uint8_t& x : a8) x = uint8_t(rng());
  // fp16: multiples of 1/4 in [-8, 8); e4m3 and e5m2 magnitudes in [1/2, 8) with any mantissa and sign.
  for (uint16_t& x : a16) x = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(int(rng() % 64) / 4.0 - 8.0)));
  for (uint8_t& x : b) x = f16 ? uint8_t((rng() & 0x83) | ((14 + rng() % 4) << 2)) : uint8_t((rng() & 0x87) | ((6 + rng() % 4) << 3));
  for (uint8_t& x : as) x = uint8_t(126 + rng() % 3);  // 2^-1 .. 2^1
  for (uint8_t& x : bs) x = uint8_t(126 + rng() % 3);
  const int nanRow = 3, nanCol = 5;  // a 0xFF scale makes its 32 elements NaN, and so the row / column
  if (f16) as[size_t(nanRow * groups + 1)] = bs[size_t(nanCol * groups)] = 0xFF;
  std::vector<float> out(size_t(64) * ldc, -1.0f);
  if (f16) r.buffer("a_ptr", a16);
  else r.buffer("a_ptr", a8);
  r.buffer("b_ptr", b);
  r.buffer("a_scale_ptr", as);
  r.buffer("b_scale_ptr", bs);
  const uint64_t cb = r.buffer("c_ptr", out);
  for (auto [name, v] : std::vector<std::pair<const char*, uint64_t>>{
           {"M", M}, {"N", N}, {"K", K}, {"stride_am", lda}, {"stride_bk", ldb}, {"stride_cm", ldc}})
    r.param(name, v);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  std::vector<float> got = r.read<float>(cb);
  auto scale = [](uint8_t s) { return std::ldexp(1.0, s - 127); };
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const float g = got[size_t(m * ldc + n)];
      if (f16 && (m == nanRow || n == nanCol)) {
        ASSERT_TRUE(std::isnan(g)) << m << ", " << n << ": " << g;
        continue;
      }
      double want = 0;
      for (int k = 0; k < K; ++k) {
        double x = f16 ? ir::fromBits(ir::Scalar::F16, a16[size_t(m * lda + k)]).f
                       : e2m1(k % 2 ? a8[size_t(m * lda + k / 2)] >> 4 : a8[size_t(m * lda + k / 2)] & 15u);
        double y = ir::fromBits(f16 ? ir::Scalar::F8E5M2 : ir::Scalar::F8E4M3, b[size_t(k * ldb + n)]).f;
        want += x * scale(as[size_t(m * groups + k / 32)]) * y * scale(bs[size_t(n * groups + k / 32)]);
      }
      ASSERT_EQ(double(g), want) << m << ", " << n;
    }
  for (int m = 0; m < 64; ++m)
    for (int n = N; n < ldc; ++n) ASSERT_EQ(got[size_t(m * ldc + n)], -1.0f) << "masked column " << m << ", " << n;
  for (int m = M; m < 64; ++m) ASSERT_EQ(got[size_t(m * ldc)], -1.0f) << "masked row " << m;
}

TEST(CodegenSimDotScaled, MmaSyncOnSm80) {
  for (int stages : {1, 3}) runCase({ptx::kSm80, stages, "block_scaled"});
  runCase({ptx::kSm80, 2, "block_scaled_hints"});
  runCase({ptx::kSm80, 2, "block_scaled_f16"});
}

TEST(CodegenSimDotScaled, WgmmaOnSm90a) {
  for (int stages : {1, 2}) runCase({ptx::kSm90a, stages, "block_scaled"});
  runCase({ptx::kSm90a, 3, "block_scaled_hints"});
  runCase({ptx::kSm90a, 2, "block_scaled_f16"});
}

}  // namespace
}  // namespace kiln::lower::test
