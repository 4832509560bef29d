// examples/reductions.py: row-wise argmax (ties resolve to the first index), mean and variance
// through a tuple-returning @jit helper, and a ragged segmented sum driven by scalar loads.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

void checkArgmax(const kiln::Kernel& k, int64_t rows, int64_t cols, int64_t stride, bool ties) {
  SCOPED_TRACE("rows " + std::to_string(rows) + ", cols " + std::to_string(cols) + (ties ? ", with ties" : ""));
  KT_RNG(rng);
  std::vector<float> x = rng.f32(rows * stride, -100, 100);
  if (ties)
    for (auto& v : x) v = static_cast<float>(rng.integer(-3, 3));  // the max repeats within a row
  std::vector<int32_t> idx(rows), refIdx(rows);
  std::vector<float> mx(rows), refMx(rows);
  poison(idx), poison(mx);
  ASSERT_TRUE(run(k, {static_cast<uint32_t>(rows)},
                  {Arg::buffer(x), Arg::buffer(idx), Arg::buffer(mx), Arg::integer(cols), Arg::integer(stride)}));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = &x[r * stride];
    refIdx[r] = static_cast<int32_t>(std::max_element(row, row + cols) - row);  // first maximum
    refMx[r] = row[refIdx[r]];
  }
  EXPECT_TRUE(allEqual(idx, refIdx)) << "argmax";
  EXPECT_TRUE(allEqual(mx, refMx)) << "max";
}

TEST(Reductions, Argmax) {
  auto k = compileExample("reductions.py", "argmax_kernel", "*fp32, *i32, *fp32, i32, i32, 128");
  ASSERT_TRUE(k);
  checkArgmax(*k, 1, 1, 1, false);
  checkArgmax(*k, 6, 100, 103, false);
  checkArgmax(*k, 6, 128, 128, false);
  checkArgmax(*k, 9, 100, 100, true);
  checkArgmax(*k, 4, 128, 130, true);
}

TEST(Reductions, ArgmaxAlignmentHints) {
  auto k = compileExample("reductions.py", "argmax_kernel", "*fp32:16, *i32:16, *fp32:16, i32, i32:16, 64");
  ASSERT_TRUE(k);
  checkArgmax(*k, 7, 50, 64, false);
  checkArgmax(*k, 7, 64, 80, true);
}

TEST(Reductions, ArgmaxNegativeRows) {
  // All values negative: the -inf padding of the masked lanes must never win.
  auto k = compileExample("reductions.py", "argmax_kernel", "*fp32, *i32, *fp32, i32, i32, 64");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  auto x = rng.f32(3 * 10, -50, -1);
  std::vector<int32_t> idx(3);
  std::vector<float> mx(3);
  poison(idx), poison(mx);
  ASSERT_TRUE(run(*k, {3}, {Arg::buffer(x), Arg::buffer(idx), Arg::buffer(mx), Arg::integer(10), Arg::integer(10)}));
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(idx[r], std::max_element(&x[r * 10], &x[r * 10 + 10]) - &x[r * 10]) << "row " << r;
    EXPECT_EQ(mx[r], *std::max_element(&x[r * 10], &x[r * 10 + 10])) << "row " << r;
  }
}

class RowStatsSig : public ::testing::TestWithParam<const char*> {};

TEST_P(RowStatsSig, MeanAndVarTupleHelper) {
  auto k = compileExample("reductions.py", "row_stats_kernel", GetParam());
  ASSERT_TRUE(k);
  KT_RNG(rng);
  for (int64_t cols : {1, 50, 256}) {
    SCOPED_TRACE("cols " + std::to_string(cols));
    const int64_t rows = 5, stride = 16 * (cols / 16 + 1);  // a multiple of 16, for the ":16" variant
    auto x = rng.f32(rows * stride, -2, 6);
    std::vector<float> mean(rows), var(rows);
    poison(mean), poison(var);
    ASSERT_TRUE(run(*k, {static_cast<uint32_t>(rows)},
                    {Arg::buffer(x), Arg::buffer(mean), Arg::buffer(var), Arg::integer(cols), Arg::integer(stride)}));
    std::vector<double> refMean(rows), refVar(rows), meanScale(rows), varScale(rows);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) refMean[r] += x[r * stride + j], meanScale[r] += std::fabs(x[r * stride + j]);
      refMean[r] /= cols, meanScale[r] /= cols;
      for (int64_t j = 0; j < cols; ++j) refVar[r] += (x[r * stride + j] - refMean[r]) * (x[r * stride + j] - refMean[r]);
      refVar[r] /= cols;
      varScale[r] = meanScale[r] * meanScale[r];  // the fp32 mean's error is relative to mean |x|
    }
    EXPECT_TRUE(allClose(toDouble(mean), refMean, Tol{1e-5, 0}, meanScale)) << "mean";
    EXPECT_TRUE(allClose(toDouble(var), refVar, Tol{1e-5, 0}, varScale)) << "var";
  }
}

INSTANTIATE_TEST_SUITE_P(Reductions, RowStatsSig,
                         ::testing::Values("*fp32, *fp32, *fp32, i32, i32, 256",
                                           "*fp32:16, *fp32:16, *fp32:16, i32, i32:16, 256"));

class SegmentSumSig : public ::testing::TestWithParam<const char*> {};

TEST_P(SegmentSumSig, ScalarLoads) {
  auto k = compileExample("reductions.py", "segment_sum_kernel", GetParam());
  ASSERT_TRUE(k);
  KT_RNG(rng);
  // Ragged segments: empty ones, shorter than, equal to and several times the block.
  std::vector<int32_t> offsets = {0};
  for (int64_t len : {0, 1, 63, 64, 65, 0, 200})
    offsets.push_back(offsets.back() + static_cast<int32_t>(len));
  for (int i = 0; i < 10; ++i) offsets.push_back(offsets.back() + static_cast<int32_t>(rng.integer(0, 300)));
  const int64_t segs = static_cast<int64_t>(offsets.size()) - 1;
  auto values = rng.f32(offsets.back(), -1, 1);
  std::vector<float> out(segs);
  poison(out);
  ASSERT_TRUE(run(*k, {static_cast<uint32_t>(segs)}, {Arg::buffer(values), Arg::buffer(offsets), Arg::buffer(out)}));
  std::vector<double> ref(segs), scale(segs);
  for (int64_t s = 0; s < segs; ++s)
    for (int32_t i = offsets[s]; i < offsets[s + 1]; ++i) ref[s] += values[i], scale[s] += std::fabs(values[i]);
  EXPECT_TRUE(allClose(toDouble(out), ref, Tol{1e-5, 0}, scale));
  EXPECT_EQ(out[0], 0.0f) << "an empty segment sums to 0";
}

INSTANTIATE_TEST_SUITE_P(Reductions, SegmentSumSig, ::testing::Values("*fp32, *i32, *fp32, 64", "*fp32:16, *i32:16, *fp32:16, 64"));

}  // namespace
}  // namespace kt
