// examples/layernorm.py: fp16 layer norm with fp32 statistics against a double-precision
// two-pass reference: rows shorter than, equal to and longer than the block (tail chunk),
// a single element, padded row stride; mean and rstd checked as well as the output.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

struct LnCase {
  int64_t rows, n, stride;
};

// Storage type of x, w, b and y: fp16 or bf16 (the statistics are fp32 either way).
struct Half16 {
  float (*toFloat)(uint16_t);
  uint16_t (*fromFloat)(float);
};
constexpr Half16 kFp16{halfToFloat, floatToHalf}, kBf16{bf16ToFloat, floatToBf16};

std::vector<uint16_t> random16(Rng& rng, const Half16& t, size_t n, double lo, double hi) {
  std::vector<uint16_t> v(n);
  for (auto& h : v) h = t.fromFloat(static_cast<float>(rng.uniform(lo, hi)));
  return v;
}

void checkLayerNorm(const kiln::Kernel& k, const LnCase& c, const Half16& t = kFp16) {
  SCOPED_TRACE("rows " + std::to_string(c.rows) + ", N " + std::to_string(c.n));
  KT_RNG(rng);
  const double eps = 1e-5;
  const auto halfToFloat = t.toFloat;  // shadows the fp16 helper: every conversion follows t
  auto x = random16(rng, t, c.rows * c.stride, -3, 5);  // a nonzero mean
  auto w = random16(rng, t, c.n, -2, 2), b = random16(rng, t, c.n, -1, 1);
  std::vector<uint16_t> y(c.rows * c.stride);
  std::vector<float> mean(c.rows), rstd(c.rows);
  poison(y), poison(mean), poison(rstd);
  ASSERT_TRUE(run(k, {static_cast<uint32_t>(c.rows)},
                  {Arg::buffer(x), Arg::buffer(y), Arg::buffer(w), Arg::buffer(b), Arg::buffer(mean),
                   Arg::buffer(rstd), Arg::integer(c.stride), Arg::integer(c.n), Arg::real(eps)}));
  std::vector<double> gotY, refY, refMean, refRstd, meanScale;
  for (int64_t r = 0; r < c.rows; ++r) {
    const uint16_t* row = &x[r * c.stride];
    double m = 0, v = 0, absSum = 0;
    for (int64_t j = 0; j < c.n; ++j) m += halfToFloat(row[j]), absSum += std::fabs(halfToFloat(row[j]));
    m /= c.n;
    for (int64_t j = 0; j < c.n; ++j) v += (halfToFloat(row[j]) - m) * (halfToFloat(row[j]) - m);
    v /= c.n;
    const double rs = 1 / std::sqrt(v + eps);
    refMean.push_back(m), refRstd.push_back(rs), meanScale.push_back(absSum / c.n);
    for (int64_t j = 0; j < c.n; ++j) {
      refY.push_back((halfToFloat(row[j]) - m) * rs * halfToFloat(w[j]) + halfToFloat(b[j]));
      gotY.push_back(halfToFloat(y[r * c.stride + j]));
    }
  }
  EXPECT_TRUE(allClose(toDouble(mean), refMean, Tol{1e-5, 0}, meanScale)) << "mean";
  EXPECT_TRUE(allClose(toDouble(rstd), refRstd, Tol{1e-5, 0})) << "rstd";
  EXPECT_TRUE(allClose(gotY, refY, kF16)) << "y";
}

TEST(LayerNorm, OneChunk) {
  auto k = compileExample("layernorm.py", "layer_norm_fwd_kernel", "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 128");
  ASSERT_TRUE(k);
  checkLayerNorm(*k, {1, 1, 1});      // a single element normalises to exactly b
  checkLayerNorm(*k, {3, 100, 104});  // partial chunk, padded stride
  checkLayerNorm(*k, {2, 128, 128});  // exactly one chunk
}

TEST(LayerNorm, SeveralChunks) {
  auto k = compileExample("layernorm.py", "layer_norm_fwd_kernel", "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 256");
  ASSERT_TRUE(k);
  checkLayerNorm(*k, {4, 1000, 1000});  // 4 chunks, the last one partial
  checkLayerNorm(*k, {2, 512, 520});    // 2 full chunks
}

TEST(LayerNorm, BFloat16) {
  // The same kernel on bf16 storage: 8-bit mantissas, so the output tolerance is bf16's.
  auto k = compileExample("layernorm.py", "layer_norm_fwd_kernel", "*bf16, *bf16, *bf16, *bf16, *fp32, *fp32, i32, i32, fp32, 128");
  ASSERT_TRUE(k);
  checkLayerNorm(*k, {3, 300, 300}, kBf16);
}

TEST(LayerNorm, AlignmentHints) {
  auto k = compileExample("layernorm.py", "layer_norm_fwd_kernel",
                          "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 64");
  ASSERT_TRUE(k);
  checkLayerNorm(*k, {5, 160, 176});
}

TEST(LayerNorm, RandomShapes) {
  auto k = compileExample("layernorm.py", "layer_norm_fwd_kernel", "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 128");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  for (int i = 0; i < 3; ++i) {
    const int64_t n = rng.integer(1, 1500);
    checkLayerNorm(*k, {rng.integer(1, 6), n, n + rng.integer(0, 9)});
  }
}

}  // namespace
}  // namespace kt
