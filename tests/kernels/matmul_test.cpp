// examples/matmul.py: grouped-order matmul with a fused activation against a double-precision
// product. M, N, K that are not multiples of the blocks (1, 17, 100, 130), both activations,
// fp16 operands (exact products, fp32 sums) and fp32 operands (tf32 dot), and the ":16" hints.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

struct Blocks {
  int64_t m, n, k, group;
};

// With `hints`: ":16" on the pointers and the leading dimensions, and the unit strides
// specialised to the literal 1 (Triton's AOT syntax), as a launcher would for contiguous inputs.
std::string signature(const std::string& ab, const Blocks& b, const std::string& act, bool hints = false) {
  const std::string p = hints ? ":16, " : ", ";
  const std::string dims = hints ? "i32, i32, i32, i32:16, 1, 1, i32:16, i32:16, 1, " : "i32, i32, i32, i32, i32, i32, i32, i32, i32, ";
  return "*" + ab + p + "*" + ab + p + "*fp16" + p + dims +
         std::to_string(b.m) + ", " + std::to_string(b.n) + ", " + std::to_string(b.k) + ", " +
         std::to_string(b.group) + ", \"" + act + "\"";
}

// C[M, N] = act(A[M, K] @ B[K, N]); A is row-major with a padded row, B is column-major, so
// every stride argument matters. `fp16` selects the operand type.
void checkMatmul(const kiln::Kernel& k, const Blocks& b, bool fp16, bool leaky, int64_t M, int64_t N, int64_t K,
                 bool hints = false) {
  SCOPED_TRACE("M " + std::to_string(M) + ", N " + std::to_string(N) + ", K " + std::to_string(K));
  KT_RNG(rng);
  // A[m, k] at m*lda + k; B[k, n] at n*ldb + k; C[m, n] at m*ldc + n. Padded leading dimensions,
  // rounded up to multiples of 16 when the signature promises it.
  auto ld = [&](int64_t v) { return hints ? (v + 15) / 16 * 16 + 16 : v; };
  const int64_t lda = ld(K + 3), ldb = ld(K);
  std::vector<double> a(M * lda), bm(N * ldb);
  std::vector<uint16_t> a16, b16;
  std::vector<float> a32, b32;
  if (fp16) {
    a16 = rng.f16(a.size()), b16 = rng.f16(bm.size());
    a = halvesToDouble(a16), bm = halvesToDouble(b16);
  } else {
    a32 = rng.f32(a.size()), b32 = rng.f32(bm.size());
    a = toDouble(a32), bm = toDouble(b32);
  }
  const int64_t ldc = ld(N + 1);
  std::vector<uint16_t> c(M * ldc);
  poison(c);
  Arg A = fp16 ? Arg::buffer(a16) : Arg::buffer(a32), B = fp16 ? Arg::buffer(b16) : Arg::buffer(b32);
  const uint32_t programs = cdiv(M, b.m) * cdiv(N, b.n);
  ASSERT_TRUE(run(k, {programs},
                  {A, B, Arg::buffer(c), Arg::integer(M), Arg::integer(N), Arg::integer(K), Arg::integer(lda),
                   Arg::integer(1), Arg::integer(1), Arg::integer(ldb), Arg::integer(ldc), Arg::integer(1)}));
  std::vector<double> got, ref;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < K; ++kk) s += a[i * lda + kk] * bm[j * ldb + kk];
      if (leaky && s < 0) s *= 0.01;
      ref.push_back(s);
      got.push_back(halfToFloat(c[i * ldc + j]));
    }
  for (int64_t i = 0; i < M; ++i) EXPECT_EQ(c[i * ldc + N], 0xffff) << "padding of row " << i << " written";
  // fp16 operands: exact products and fp32 sums, then one fp16 rounding of the result.
  // fp32 operands: the dot truncates its inputs to tf32 (10-bit mantissa).
  // The 2^-24 floor is fp16's subnormal spacing: tiny results are rounded absolutely.
  const double scale = maxAbs(ref);
  const Tol tol = fp16 ? Tol{1e-2, 1e-3 * scale + 0x1p-24} : Tol{1e-2, 3e-3 * scale + 0x1p-24};
  EXPECT_TRUE(allClose(got, ref, tol));
}

struct Shape {
  int64_t m, n, k;
};
const Shape kShapes[] = {{1, 1, 1}, {17, 33, 100}, {100, 17, 130}, {130, 100, 17}, {64, 64, 64}};

TEST(Matmul, Fp16NoActivation) {
  const Blocks b{32, 32, 32, 4};
  auto k = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, ""));
  ASSERT_TRUE(k);
  for (const Shape& s : kShapes) checkMatmul(*k, b, true, false, s.m, s.n, s.k);
}

TEST(Matmul, Fp16LeakyRelu) {
  const Blocks b{32, 32, 32, 4};
  auto k = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, "leaky_relu"));
  ASSERT_TRUE(k);
  for (const Shape& s : kShapes) checkMatmul(*k, b, true, true, s.m, s.n, s.k);
}

TEST(Matmul, RectangularBlocksGroupedOrder) {
  // 16x64 tiles, K in steps of 16, groups of 2 block-rows: a 9x2 block grid exercises the
  // partial last group of the grouped program order.
  const Blocks b{16, 64, 16, 2};
  auto k = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, "leaky_relu"));
  ASSERT_TRUE(k);
  checkMatmul(*k, b, true, true, 130, 100, 40);
  checkMatmul(*k, b, true, true, 16, 64, 16);  // exactly one tile
}

TEST(Matmul, LargestTile) {
  const Blocks b{128, 128, 32, 8};
  kiln::CompileOptions eightWarps;  // examples/matmul.py's own configuration
  eightWarps.num_warps = 8;
  auto k = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, ""), eightWarps);
  ASSERT_TRUE(k);
  checkMatmul(*k, b, true, false, 128, 128, 96);
  checkMatmul(*k, b, true, false, 129, 3, 33);
}

TEST(Matmul, Fp32OperandsTf32) {
  const Blocks b{32, 32, 16, 4};
  for (const char* act : {"", "leaky_relu"}) {
    SCOPED_TRACE(std::string("ACTIVATION = \"") + act + "\"");
    auto k = compileExample("matmul.py", "matmul_kernel", signature("fp32", b, act));
    ASSERT_TRUE(k);
    checkMatmul(*k, b, false, *act != 0, 17, 33, 100);
    checkMatmul(*k, b, false, *act != 0, 1, 1, 1);
  }
}

TEST(Matmul, AlignmentHints) {
  const Blocks b{32, 32, 32, 4};
  auto k = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, "leaky_relu", true));
  ASSERT_TRUE(k);
  checkMatmul(*k, b, true, true, 48, 80, 64, true);
  checkMatmul(*k, b, true, true, 33, 17, 100, true);
}

TEST(Matmul, RandomShapes) {
  const Blocks b{32, 32, 32, 3};
  auto plain = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, ""));
  auto leaky = compileExample("matmul.py", "matmul_kernel", signature("fp16", b, "leaky_relu"));
  ASSERT_TRUE(plain && leaky);
  KT_RNG(rng);
  for (int i = 0; i < 4; ++i) {
    const bool act = rng.integer(0, 1);
    checkMatmul(act ? *leaky : *plain, b, true, act, rng.integer(1, 150), rng.integer(1, 150), rng.integer(1, 150));
  }
}

}  // namespace
}  // namespace kt
