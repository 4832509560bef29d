// examples/grid2d.py: 2-D grids (program_id(1)) with row and column masks: element-wise add and
// a tiled transpose, on shapes that hang over the tile edges in one or both dimensions.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

class Add2dSig : public ::testing::TestWithParam<const char*> {};

TEST_P(Add2dSig, BothMasks) {
  auto k = compileExample("grid2d.py", "add2d_kernel", GetParam());
  ASSERT_TRUE(k);
  KT_RNG(rng);
  const bool hints = std::string(GetParam()).find(":16") != std::string::npos;
  struct Shape { int64_t m, n; };
  for (Shape s : {Shape{1, 1}, Shape{33, 70}, Shape{32, 64}, Shape{5, 200}}) {
    SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n));
    // Padded row strides; multiples of 16 when the signature promises it.
    const int64_t sx = hints ? 16 * (s.n / 16 + 1) : s.n + 1, sy = hints ? 16 * (s.n / 16 + 2) : s.n + 5,
                  so = hints ? 16 * (s.n / 16 + 1) : s.n + 2;
    auto x = rng.f32(s.m * sx), y = rng.f32(s.m * sy);
    std::vector<float> out(s.m * so);
    poison(out);
    ASSERT_TRUE(run(*k, {cdiv(s.m, 16), cdiv(s.n, 32)},
                    {Arg::buffer(x), Arg::buffer(y), Arg::buffer(out), Arg::integer(s.m), Arg::integer(s.n),
                     Arg::integer(sx), Arg::integer(sy), Arg::integer(so)}));
    std::vector<double> got, ref;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        got.push_back(out[i * so + j]);
        ref.push_back(static_cast<double>(x[i * sx + j]) + y[i * sy + j]);
      }
    EXPECT_TRUE(allClose(got, ref, kF32));
  }
}

INSTANTIATE_TEST_SUITE_P(Grid2d, Add2dSig,
                         ::testing::Values("*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, 16, 32",
                                           "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, i32:16, i32:16, 16, 32"));

template <class T>
void checkTranspose(const kiln::Kernel& k, int64_t bm, int64_t bn, int64_t M, int64_t N, std::vector<T> x) {
  SCOPED_TRACE(std::to_string(M) + " x " + std::to_string(N));
  // x is [M, N] column-major (strides 1, M); y is [N, M] row-major with a padded row.
  const int64_t ldy = M + 3;
  std::vector<T> y(N * ldy), ref(N * ldy);
  poison(y), poison(ref);
  std::vector<Arg> args = {Arg::buffer(x), Arg::buffer(y), Arg::integer(M), Arg::integer(N), Arg::integer(1),
                           Arg::integer(M), Arg::integer(ldy), Arg::integer(1)};
  ASSERT_TRUE(run(k, {cdiv(M, bm), cdiv(N, bn)}, args));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) ref[j * ldy + i] = x[i + j * M];
  // Bitwise comparison, padding included (it must stay poisoned).
  std::vector<uint32_t> gotBits(y.size()), refBits(y.size());
  for (size_t i = 0; i < y.size(); ++i) std::memcpy(&gotBits[i], &y[i], 4), std::memcpy(&refBits[i], &ref[i], 4);
  EXPECT_TRUE(allEqual(gotBits, refBits));
}

TEST(Grid2d, TransposeFloat) {
  auto k = compileExample("grid2d.py", "transpose_kernel", "*fp32, *fp32, i32, i32, i32, i32, i32, i32, 32, 16");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  checkTranspose<float>(*k, 32, 16, 1, 1, rng.f32(1));
  checkTranspose<float>(*k, 32, 16, 33, 70, rng.f32(33 * 70));
  checkTranspose<float>(*k, 32, 16, 64, 16, rng.f32(64 * 16));
}

// Compiled persistent (CompileOptions::persistent): on the GPU at most one wave of programs walks the
// 2-D grid, program_id(1) read from the logical grid Gpu::run passes; the interpreter runs it as written.
TEST(Grid2d, TransposePersistent) {
  kiln::CompileOptions persistent;
  persistent.persistent = true;
  auto k = compileExample("grid2d.py", "transpose_kernel", "*fp32, *fp32, i32, i32, i32, i32, i32, i32, 8, 16",
                          persistent);
  ASSERT_TRUE(k);
  KT_RNG(rng);
  checkTranspose<float>(*k, 8, 16, 1, 1, rng.f32(1));
  checkTranspose<float>(*k, 8, 16, 1000, 70, rng.f32(1000 * 70));   // 125 x 5 programs
  checkTranspose<float>(*k, 8, 16, 4100, 900, rng.f32(4100 * 900));  // 513 x 57: many waves
}

TEST(Grid2d, TransposeInt) {
  auto k = compileExample("grid2d.py", "transpose_kernel", "*i32, *i32, i32, i32, i32, i32, i32, i32, 8, 64");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  checkTranspose<int32_t>(*k, 8, 64, 20, 130, rng.ints<int32_t>(20 * 130, INT32_MIN, INT32_MAX));
}

TEST(Grid2d, TransposeUnitStrideSpecialized) {
  // Triton's AOT "1": the unit strides are specialised to the constant 1 (they stay parameters
  // whose uses see 1), with ":16" on the pointers.
  auto k = compileExample("grid2d.py", "transpose_kernel", "*fp32:16, *fp32:16, i32, i32, 1, i32, i32, 1, 16, 16");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->params().size(), 8u);
  KT_RNG(rng);
  checkTranspose<float>(*k, 16, 16, 40, 17, rng.f32(40 * 17));
}

}  // namespace
}  // namespace kt
