// fp8 (e4m3, e5m2), 8-bit integer and tf32 matmuls (examples/matmul_lowp.py) on sm_90a's wgmma (tf32
// only with both operands loaded K-major, assign/tf32_dots.h; N-major it stays on mma.sync), end to end
// in the CTA simulator, whose wgmma model (ops_sim_wgmma.h) reads K-major operands only for these types,
// decodes fp8, multiplies 8-bit integers exactly into wrapping s32 sums and reads an f32 as the tf32 it
// truncates to, as the H200 does (bench/results/2026-12-05-h200-tf32-probe.md). Awkward sizes: M and N of 80 against 64x64 tiles, K not a multiple of BLOCK_K (but for tf32's N-major input, BLOCK_K 16);
// B K-major (the slot wgmma reads is the pipeline's) and N-major (staged K-major through registers),
// unpipelined and three stages deep. The same kernels on sm_80 stay on mma.sync.
#include <cmath>
#include <cstring>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

enum class Kind { TF32, E4M3, E5M2, I8 };

struct Case {
  const char* input;
  Kind kind;
  bool kMajor;
  const char* instr;  // the wgmma types suffix; null: the dot stays on mma.sync on sm_90a too
};

const Case kCases[] = {
    {"matmul_lowp_tf32_kmajor", Kind::TF32, true, "k8.f32.tf32.tf32"},
    {"matmul_lowp_tf32_nmajor", Kind::TF32, false, nullptr},  // B along N: mma.sync (tf32_dots.h)
    {"matmul_lowp_e4m3_kmajor", Kind::E4M3, true, "k32.f32.e4m3.e4m3"},
    {"matmul_lowp_e4m3_nmajor", Kind::E4M3, false, "k32.f32.e4m3.e4m3"},
    {"matmul_lowp_e5m2_kmajor", Kind::E5M2, true, "k32.f32.e5m2.e5m2"},
    {"matmul_lowp_i8_kmajor", Kind::I8, true, "k32.s32.s8.s8"},
    {"matmul_lowp_i8_nmajor", Kind::I8, false, "k32.s32.s8.s8"},
};

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// f32 -> tf32 toward zero: what kiln's semantics and the tensor cores do.
float truncateTf32(float f) { return floatOf(bitsOf(f) & ~0x1FFFu); }

// Random operand bytes of `kind` (fp8: every finite encoding; i8: every value), or f32 values.
std::vector<uint8_t> randomOperand(Kind kind, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  if (kind == Kind::TF32) {
    std::vector<float> f = randomFloats(n, seed);
    std::vector<uint8_t> out(4 * n);
    std::memcpy(out.data(), f.data(), out.size());
    return out;
  }
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) {
    do b = uint8_t(rng());
    while ((kind == Kind::E4M3 && (b & 0x7F) == 0x7F) || (kind == Kind::E5M2 && (b & 0x7C) == 0x7C));
  }
  return out;
}

double valueAt(Kind kind, const std::vector<uint8_t>& v, size_t i) {
  switch (kind) {
    case Kind::TF32: {
      float f;
      std::memcpy(&f, v.data() + 4 * i, 4);
      return truncateTf32(f);
    }
    case Kind::E4M3: return ir::fromBits(ir::Scalar::F8E4M3, v[i]).f;
    case Kind::E5M2: return ir::fromBits(ir::Scalar::F8E5M2, v[i]).f;
    case Kind::I8: return double(int8_t(v[i]));
  }
  return 0;
}

TEST(CodegenSimWgmma, LowPrecisionMatmulsMatchTheReference) {
  for (const Case& c : kCases)
    for (int stages : {1, 3}) {
      SCOPED_TRACE(std::string(c.input) + " stages " + std::to_string(stages));
      SimRun r(lowerInput(c.input, 4, stages, ptx::kSm90a));
      if (!c.instr) {
        EXPECT_GE(count(r.k.ptx, "mma.sync"), 1);
        EXPECT_EQ(count(r.k.ptx, "wgmma"), 0);
      } else {
        EXPECT_GE(count(r.k.ptx, std::string("wgmma.mma_async.sync.aligned.m64n64") + c.instr), 1);
        EXPECT_EQ(count(r.k.ptx, "mma.sync"), 0);
        // A K-major fp8 / i8 B in a pipelined loop is read from its slot and its group stays in flight; an
        // N-major B is staged through registers to scratch, and the dot waits for its group at once (as
        // every dot of an unpipelined loop does).
        const bool slotted = stages > 1 && c.kMajor;
        const bool waitsAtOnce =
            r.k.ptx.find("wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;") != std::string::npos;
        EXPECT_EQ(waitsAtOnce, !slotted);
        // (a K-major B is copied with TMA, its box's dims swapped, beside the cp.async loop)
        EXPECT_EQ(r.k.ptx.find("shared::cluster.global") != std::string::npos, slotted);
        if (stages > 1) {
          EXPECT_NE(r.k.ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos);
        }
      }
      const bool integer = c.kind == Kind::I8;
      const int M = 80, N = 80, K = c.kind == Kind::TF32 ? 80 : 208, lda = K + 16, ldb = c.kMajor ? K + 32 : 96, ldc = 96;
      std::vector<uint8_t> a = randomOperand(c.kind, size_t(M) * lda, 41), b = randomOperand(c.kind, size_t(c.kMajor ? N : K) * ldb, 42);
      std::vector<uint32_t> out(size_t(M) * ldc, 0xFFFFFFFFu);  // poison: NaN, or -1
      r.buffer("a_ptr", a);
      r.buffer("b_ptr", b);
      const uint64_t cb = r.buffer("c_ptr", out);
      for (auto [name, v] : std::vector<std::pair<const char*, uint64_t>>{
               {"M", M}, {"N", N}, {"K", K}, {"stride_am", lda}, {"stride_ak", 1},
               {"stride_bk", c.kMajor ? 1 : ldb}, {"stride_bn", c.kMajor ? ldb : 1}, {"stride_cm", ldc}, {"stride_cn", 1}})
        r.param(name, v);
      r.encodeTensorMaps();  // where a pointer-built tile is copied with TMA
      ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
      std::vector<uint32_t> got = r.read<uint32_t>(cb);
      auto bAt = [&](int k, int n) { return size_t(c.kMajor ? n * ldb + k : k * ldb + n); };
      for (int m = 0; m < 64; ++m)
        for (int n = 0; n < 64; ++n) {
          double want = 0, size = 0;
          for (int k = 0; k < K; ++k) {
            const double p = valueAt(c.kind, a, size_t(m * lda + k)) * valueAt(c.kind, b, bAt(k, n));
            want += p;
            size += std::fabs(p);
          }
          const uint32_t g = got[size_t(m * ldc + n)];
          if (integer) {
            ASSERT_EQ(int32_t(g), int32_t(int64_t(want))) << m << ", " << n;
          } else {
            ASSERT_TRUE(std::isfinite(floatOf(g))) << m << ", " << n;
            ASSERT_NEAR(floatOf(g), want, 1e-6 * size + 1e-30) << m << ", " << n;
          }
        }
      for (int m = 64; m < M; ++m) EXPECT_EQ(got[size_t(m * ldc)], 0xFFFFFFFFu) << "row " << m << " belongs to another program";
    }
}

TEST(CodegenSimWgmma, LowPrecisionMatmulsStayOnMmaSyncOnSm80) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.input);
    if (c.kind == Kind::E4M3 || c.kind == Kind::E5M2) continue;  // fp8 mma.sync needs sm_89
    Kernel k = lowerInput(c.input, 4, 3, ptx::kSm80);
    EXPECT_GE(count(k.ptx, "mma.sync"), 1);
    EXPECT_EQ(count(k.ptx, "wgmma"), 0);
  }
}

}  // namespace
}  // namespace kiln::lower::test
