// examples/softmax.py: the persistent-row softmax against a double-precision softmax, with
// rows > programs (each program loops), n_cols < BLOCK_SIZE (masked lanes), a single element,
// padded row strides, and the ":16" hinted signature.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

struct SoftmaxCase {
  int64_t rows, cols, block, programs, in_stride, out_stride;
};

void checkSoftmax(const kiln::Kernel& k, const SoftmaxCase& c) {
  SCOPED_TRACE("rows " + std::to_string(c.rows) + ", cols " + std::to_string(c.cols) + ", programs " +
               std::to_string(c.programs));
  KT_RNG(rng);
  auto x = rng.f32(c.rows * c.in_stride, -8, 8);
  std::vector<float> y(c.rows * c.out_stride);
  poison(y);
  ASSERT_TRUE(run(k, {static_cast<uint32_t>(c.programs)},
                  {Arg::buffer(y), Arg::buffer(x), Arg::integer(c.in_stride), Arg::integer(c.out_stride),
                   Arg::integer(c.rows), Arg::integer(c.cols)}));
  std::vector<double> got, ref;
  for (int64_t r = 0; r < c.rows; ++r) {
    const float* row = &x[r * c.in_stride];
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < c.cols; ++j) mx = std::max(mx, static_cast<double>(row[j]));
    for (int64_t j = 0; j < c.cols; ++j) sum += std::exp(row[j] - mx);
    for (int64_t j = 0; j < c.cols; ++j) {
      ref.push_back(std::exp(row[j] - mx) / sum);
      got.push_back(y[r * c.out_stride + j]);
    }
    // The padding between rows of the output is not the kernel's to write.
    for (int64_t j = c.cols; j < c.out_stride; ++j)
      EXPECT_EQ(bitsOf(y[r * c.out_stride + j]), 0xffffffffu) << "row " << r << " padding " << j << " written";
  }
  EXPECT_TRUE(allClose(got, ref, kF32));
}

TEST(Softmax, SmallBlock) {
  auto k = compileExample("softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 16, 2");
  ASSERT_TRUE(k);
  checkSoftmax(*k, {1, 1, 16, 1, 1, 1});      // one element: softmax is exactly 1
  checkSoftmax(*k, {3, 16, 16, 3, 16, 16});   // exactly one block per row
  checkSoftmax(*k, {10, 5, 16, 3, 7, 9});     // rows > programs, cols < block, padded strides
}

TEST(Softmax, WideRows) {
  auto k = compileExample("softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 1024, 3");
  ASSERT_TRUE(k);
  // tl.range(..., num_stages=num_stages) reaches the loop as its pipelining depth.
  EXPECT_NE(k->ir().find("num_stages = 3"), std::string::npos) << k->ir();
  checkSoftmax(*k, {7, 781, 1024, 4, 781, 781});
  checkSoftmax(*k, {2, 1024, 1024, 8, 1030, 1024});  // more programs than rows
}

TEST(Softmax, AlignmentHints) {
  auto k = compileExample("softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32, 128, 4");
  ASSERT_TRUE(k);
  checkSoftmax(*k, {9, 100, 128, 4, 112, 128});
}

TEST(Softmax, RandomShapes) {
  auto k = compileExample("softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 256, 2");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  for (int i = 0; i < 4; ++i) {
    const int64_t rows = rng.integer(1, 30), cols = rng.integer(1, 256);
    checkSoftmax(*k, {rows, cols, 256, rng.integer(1, 8), cols + rng.integer(0, 5), cols + rng.integer(0, 5)});
  }
}

}  // namespace
}  // namespace kt
