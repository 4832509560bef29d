// examples/vector_add.py: add_kernel on the interpreter against a double-precision sum, for
// sizes around the block (1, a partial block, exactly one block, several with a tail), with and
// without the ":16" alignment/divisibility hints, with and without the Tile IR passes.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

void checkAdd(const kiln::Kernel& k, int64_t block, int64_t n) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", BLOCK_SIZE = " + std::to_string(block));
  KT_RNG(rng);
  auto x = rng.f32(n, -100, 100), y = rng.f32(n, -100, 100);
  std::vector<float> out(n);
  poison(out);
  ASSERT_TRUE(run(k, {cdiv(n, block)}, {Arg::buffer(x), Arg::buffer(y), Arg::buffer(out), Arg::integer(n)}));
  std::vector<double> ref(n);
  for (int64_t i = 0; i < n; ++i) ref[i] = static_cast<double>(x[i]) + y[i];
  EXPECT_TRUE(allClose(toDouble(out), ref, kF32));
}

TEST(VectorAdd, Sizes) {
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024");
  ASSERT_TRUE(k);
  for (int64_t n : {1, 1000, 1024, 3000, 5 * 1024}) checkAdd(*k, 1024, n);
}

TEST(VectorAdd, SmallBlock) {
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 64");
  ASSERT_TRUE(k);
  for (int64_t n : {1, 63, 64, 65, 1000}) checkAdd(*k, 64, n);
}

TEST(VectorAdd, AlignmentHints) {
  // ":16" promises 16-byte aligned pointers and n divisible by 16, so only such n are used.
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024");
  ASSERT_TRUE(k);
  for (int64_t n : {16, 1024, 2048 + 16, 4096}) checkAdd(*k, 1024, n);
}

TEST(VectorAdd, WithoutPasses) {
  kiln::CompileOptions opt;
  opt.optimize = false;
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 256", opt);
  ASSERT_TRUE(k);
  for (int64_t n : {1, 300}) checkAdd(*k, 256, n);
}

TEST(VectorAdd, Params) {
  // The constexpr BLOCK_SIZE is not a runtime parameter.
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->name(), "add_kernel");
  ASSERT_EQ(k->params().size(), 4u);
  EXPECT_EQ(k->params()[0].name, "x_ptr");
  EXPECT_TRUE(k->params()[0].pointer);
  EXPECT_EQ(k->params()[0].type, "ptr<f32>");
  EXPECT_EQ(k->params()[3].name, "n_elements");
  EXPECT_FALSE(k->params()[3].pointer);
  EXPECT_EQ(k->params()[3].type, "i32");
  EXPECT_NE(k->ir().find("func @add_kernel("), std::string::npos) << k->ir();
}

TEST(VectorAdd, Float16) {
  // The same kernel specialised for fp16: the sum is computed in fp16 (one rounding).
  auto k = compileExample("vector_add.py", "add_kernel", "*fp16, *fp16, *fp16, i32, 128");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  const int64_t n = 300;
  // Multiples of 2^-8 below 10 in magnitude: their sum is exact in float, so rounding it once
  // to fp16 gives the correctly rounded fp16 sum.
  auto x = rng.f16(n, -10, 10), y = rng.f16(n, -10, 10);
  for (auto* v : {&x, &y})
    for (auto& h : *v) h = floatToHalf(std::round(halfToFloat(h) * 256.0f) / 256.0f);
  std::vector<uint16_t> out(n);
  poison(out);
  ASSERT_TRUE(run(*k, {cdiv(n, 128)}, {Arg::buffer(x), Arg::buffer(y), Arg::buffer(out), Arg::integer(n)}));
  std::vector<uint16_t> ref(n);
  for (int64_t i = 0; i < n; ++i) ref[i] = floatToHalf(halfToFloat(x[i]) + halfToFloat(y[i]));
  EXPECT_TRUE(allEqual(out, ref));
}

TEST(VectorAdd, BFloat16) {
  auto k = compileExample("vector_add.py", "add_kernel", "*bf16, *bf16, *bf16, i32, 128");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  const int64_t n = 200;
  // Multiples of 2^-4 below 16 in magnitude: the float sum is exact, one rounding gives bf16's.
  std::vector<uint16_t> x(n), y(n), out(n), ref(n);
  for (auto* v : {&x, &y})
    for (auto& h : *v) h = floatToBf16(static_cast<float>(std::round(rng.uniform(-16, 16) * 16) / 16));
  poison(out);
  ASSERT_TRUE(run(*k, {cdiv(n, 128)}, {Arg::buffer(x), Arg::buffer(y), Arg::buffer(out), Arg::integer(n)}));
  for (int64_t i = 0; i < n; ++i) ref[i] = floatToBf16(bf16ToFloat(x[i]) + bf16ToFloat(y[i]));
  EXPECT_TRUE(allEqual(out, ref));
}

TEST(VectorAdd, RandomSizes) {
  // Sizes drawn from the seeded generator: a failure reproduces with the printed seed.
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 512");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  for (int i = 0; i < 5; ++i) checkAdd(*k, 512, rng.integer(1, 5000));
}

}  // namespace
}  // namespace kt
