// Example kernels end to end without a GPU: Tile IR (ptxas_inputs) -> layouts -> PTX, run for program 0
// by the lock-step CTA simulator of the conversion/reduction tests (ops_sim.h), against references
// computed here. This checks the pieces together: vector accesses, masks, loops carrying pointer
// tiles, while/if, scalar loads, conversions, reductions and mma.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

class CodegenSimWarps : public ::testing::TestWithParam<int> {};

TEST_P(CodegenSimWarps, VectorAdd) {
  SimRun r(lowerInput("vector_add_1024", GetParam()));
  std::vector<float> x = randomFloats(1024, 1), y = randomFloats(1024, 2), out(1024, -7.0f);
  r.buffer("x_ptr", x);
  r.buffer("y_ptr", y);
  uint64_t ob = r.buffer("output_ptr", out);
  r.param("n_elements", 1000);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  std::vector<float> got = r.read<float>(ob);
  for (int i = 0; i < 1024; ++i) EXPECT_EQ(got[i], i < 1000 ? x[i] + y[i] : -7.0f) << i;
}

TEST(CodegenSim, Transpose) {
  SimRun r(lowerInput("transpose_32_16"));  // BLOCK_M 32, BLOCK_N 16
  const int M = 20, N = 13;              // x[M, N] row-major, y[N, M] row-major
  std::vector<float> x = randomFloats(M * N, 3), y(N * M, -1.0f);
  r.buffer("x_ptr", x);
  uint64_t yb = r.buffer("y_ptr", y);
  for (auto [n, v] : std::vector<std::pair<const char*, uint64_t>>{
           {"M", M}, {"N", N}, {"stride_xm", N}, {"stride_xn", 1}, {"stride_ym", M}, {"stride_yn", 1}})
    r.param(n, v);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  std::vector<float> got = r.read<float>(yb);
  for (int n = 0; n < N; ++n)
    for (int m = 0; m < M; ++m) EXPECT_EQ(got[n * M + m], x[m * N + n]) << m << ", " << n;
}

TEST(CodegenSim, ArgmaxOfARow) {
  SimRun r(lowerInput("argmax_128"));
  std::vector<float> x = randomFloats(300, 4);
  x[77] = 5.0f;
  x[90] = 5.0f;  // a tie: the smaller index wins
  std::vector<int32_t> idx(1, -1);
  std::vector<float> mx(1, 0.0f);
  r.buffer("x_ptr", x);
  uint64_t ib = r.buffer("index_ptr", idx), mb = r.buffer("max_ptr", mx);
  r.param("n_cols", 100);
  r.param("stride", 100);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  EXPECT_EQ(r.read<int32_t>(ib)[0], 77);
  EXPECT_EQ(r.read<float>(mb)[0], 5.0f);
}

TEST(CodegenSim, SegmentSumLoopsOverItsSegment) {
  SimRun r(lowerInput("segment_sum"));  // BLOCK_SIZE 64
  std::vector<float> values = randomFloats(400, 5);
  std::vector<int32_t> offsets{3, 203};  // segment 0: values[3:203], four blocks, the last partial
  std::vector<float> out(1, 0.0f);
  r.buffer("values_ptr", values);
  r.buffer("seg_offsets_ptr", offsets);
  uint64_t ob = r.buffer("out_ptr", out);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  double want = 0;
  for (int i = 3; i < 203; ++i) want += values[i];
  EXPECT_NEAR(r.read<float>(ob)[0], want, 1e-4);
}

// Runs a hand-written kernel (x_ptr, out_ptr, n_blocks) that writes one float per block of 256 of x,
// on the simulator (which fails on any race); returns the outputs.
std::vector<float> runPerBlock(const std::string& input, int warps, const std::vector<float>& x, int blocks) {
  SimRun r(lowerInput(input, warps));
  r.buffer("x_ptr", x);
  uint64_t ob = r.buffer("out_ptr", std::vector<float>(size_t(blocks), -1.0f));
  r.param("n_blocks", uint64_t(blocks));
  std::string err = r.sim.run();
  EXPECT_EQ(err, "") << r.k.ptx;
  return err.empty() ? r.read<float>(ob) : std::vector<float>(size_t(blocks), NAN);
}

// One reduction per iteration: its reads of the partials stay pending at the back edge, and the next
// iteration writes the same bytes, so the body ends with a barrier (without it the simulator reports
// the race); a loop with two reductions alternates their scratch and needs none (softmax, below).
// Then reductions in both branches of an if inside a loop followed by one after the if, and a
// reduction in a while loop: the pending reads of either branch and of a while body all meet their
// next write behind a barrier.
TEST_P(CodegenSimWarps, ReductionsInLoopsBranchesAndWhileLoops) {
  const int blocks = 5;
  std::vector<float> x = randomFloats(size_t(blocks) * 256, 19);
  auto block = [&](int b) { return std::vector<float>(x.begin() + b * 256, x.begin() + (b + 1) * 256); };
  auto maxOf = [](const std::vector<float>& v) { return *std::max_element(v.begin(), v.end()); };
  std::vector<float> loop = runPerBlock("block_sums_loop", GetParam(), x, blocks);
  std::vector<float> branches = runPerBlock("reductions_in_branches", GetParam(), x, blocks);
  std::vector<float> whileLoop = runPerBlock("reduction_while", GetParam(), x, blocks);
  for (int b = 0; b < blocks; ++b) {
    std::vector<float> v = block(b);
    double sum = 0;
    for (float f : v) sum += f;
    const double first = b % 2 == 0 ? double(maxOf(v)) : sum;
    EXPECT_EQ(loop[size_t(b)], maxOf(v)) << b;
    EXPECT_NEAR(branches[size_t(b)], first - double(*std::min_element(v.begin(), v.end())), 1e-4) << b;
    EXPECT_EQ(whileLoop[size_t(b)], maxOf(v)) << b;
  }
}

TEST(CodegenSim, CollatzWhileLoop) {
  SimRun r(lowerInput("collatz"));
  std::vector<int32_t> start{27}, steps{-1};
  r.buffer("start_ptr", start);
  uint64_t sb = r.buffer("steps_ptr", steps);
  r.param("n", 1);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  EXPECT_EQ(r.read<int32_t>(sb)[0], 111);
}

// tl.map_elementwise with a while loop and a break on each element's values: the loop runs over the
// tile until no element's loop goes on (a reduction across warps decides, every iteration), each
// element keeping its count from where its own loop ended.
int cappedCollatz(int32_t n, int32_t cap) {
  if (n < 1) return -1;
  int steps = 0;
  while (n != 1) {
    if (steps == cap) return -1;
    n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    ++steps;
  }
  return steps;
}

TEST(CodegenSim, PerElementWhileLoopWithBreak) {
  for (ptx::Target target : {ptx::kSm80, ptx::kSm90a}) {
    SimRun r(lowerInput("capped_collatz", 4, 1, target));
    std::vector<int32_t> start(128), steps(128, 99);
    for (int i = 0; i < 128; ++i) start[size_t(i)] = i * 7 % 61 - 3;  // 0 and negatives too
    start[5] = 27;  // 111 steps: past the cap
    r.buffer("start_ptr", start);
    uint64_t sb = r.buffer("steps_ptr", steps);
    r.param("n", 100);  // the last 28 are masked off
    r.param("cap", 100);
    ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
    std::vector<int32_t> got = r.read<int32_t>(sb);
    for (int i = 0; i < 128; ++i)
      EXPECT_EQ(got[size_t(i)], i < 100 ? cappedCollatz(start[size_t(i)], 100) : 99) << "element " << i;
  }
}

TEST(CodegenSim, SearchsortedScalarLoadsInAWhileLoop) {
  std::vector<int32_t> sorted;
  for (int i = 0; i < 777; ++i) sorted.push_back(i / 3 - 100);
  for (int32_t q : {-200, -100, 0, 17, 158, 500}) {
    SimRun r(lowerInput("searchsorted_i32"));
    r.buffer("sorted_ptr", sorted);
    r.param("n_sorted", sorted.size());
    r.buffer("query_ptr", std::vector<int32_t>{q});
    uint64_t ob = r.buffer("out_ptr", std::vector<int32_t>{-1});
    ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
    int32_t want = int32_t(std::lower_bound(sorted.begin(), sorted.end(), q) - sorted.begin());
    EXPECT_EQ(r.read<int32_t>(ob)[0], want) << q;
  }
}

// Random fp16 A [M, K] (row stride lda) and B stored column-major (B[k, n] at n*ldb + k) from `seed`,
// a zeroed C [M, ldc], all bound with the matmul kernel's sizes and strides; returns C's address.
uint64_t setUpMatmul(SimRun& r, int M, int N, int K, int lda, int ldb, int ldc, uint32_t seed, std::vector<uint16_t>& a,
                     std::vector<uint16_t>& b) {
  std::vector<float> af = randomFloats(size_t(M) * lda, seed), bf = randomFloats(size_t(N) * ldb, seed + 1);
  std::vector<uint16_t> c(size_t(M) * ldc, 0);
  a.resize(af.size());
  b.resize(bf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(af[i])));
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(bf[i])));
  r.buffer("a_ptr", a);
  r.buffer("b_ptr", b);
  uint64_t cb = r.buffer("c_ptr", c);
  for (auto [n, v] : std::vector<std::pair<const char*, uint64_t>>{{"M", M}, {"N", N}, {"K", K}, {"stride_am", lda},
                                                                    {"stride_ak", 1}, {"stride_bk", 1}, {"stride_bn", ldb},
                                                                    {"stride_cm", ldc}, {"stride_cn", 1}})
    r.param(n, v);
  return cb;
}

// Also software-pipelined (num_stages 2..4; the K loop runs 3 times, the last one masked): the hinted
// kernel's A and B tiles go through cp.async, and a wait or barrier too few shows as wrong values or a race.
TEST_P(CodegenSimWarps, MatmulTileOnTensorCores) {
  for (int stages = 1; stages <= 4; ++stages)
  for (const char* input : {"matmul_32", "matmul_hints", "matmul_pipelined"}) {
    SCOPED_TRACE(std::string(input) + " stages " + std::to_string(stages));
    SimRun r(lowerInput(input, GetParam(), stages));  // 32 x 32 x 32 blocks, fp16 operands, fp32 accumulation, fp16 C
    const bool hints = std::string(input) == "matmul_hints", aligned = std::string(input) == "matmul_pipelined";
    const bool pipelined = r.k.ptx.find("cp.async.c") != std::string::npos;
    EXPECT_EQ(pipelined, aligned && stages > 1) << "only the aligned kernel's loads can be copied 4 to 16 bytes at a time";
    const int M = aligned ? 48 : 40, N = aligned ? 32 : 36, K = 80;
    const int lda = hints || aligned ? 96 : K + 3, ldb = hints || aligned ? 80 : K, ldc = hints || aligned ? 48 : N;
    // A[m, k] at m*lda + k; B[k, n] at n*ldb + k (column-major); C[m, n] at m*ldc + n.
    std::vector<uint16_t> a, b;
    uint64_t cb = setUpMatmul(r, M, N, K, lda, ldb, ldc, 6, a, b);
    ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
    std::vector<uint16_t> got = r.read<uint16_t>(cb);
    for (int m = 0; m < 32; ++m)
      for (int n = 0; n < 32; ++n) {
        double want = 0;
        for (int k = 0; k < K; ++k)
          want += ir::fromBits(ir::Scalar::F16, a[size_t(m * lda + k)]).f * ir::fromBits(ir::Scalar::F16, b[size_t(n * ldb + k)]).f;
        if (hints && want < 0) want *= 0.01;  // matmul_hints applies leaky_relu
        double g = ir::fromBits(ir::Scalar::F16, got[size_t(m * ldc + n)]).f;
        ASSERT_NEAR(g, want, 1e-2 + 2e-3 * std::fabs(want)) << m << ", " << n;
      }
    for (int m = 32; m < M; ++m) EXPECT_EQ(got[size_t(m * ldc)], 0) << "row " << m << " belongs to another program";
  }
}

// One warp over a 16 x 128 block: sixteen n-tiles, so B's fragments are ordered n-tile first and one
// ldmatrix.x4 loads two n-tiles of one k-slice (named_layouts.cpp); unpipelined and pipelined.
TEST(CodegenSim, MatmulWideWarpTile) {
  for (int stages : {1, 3}) {
    SCOPED_TRACE("stages " + std::to_string(stages));
    SimRun r(lowerInput("matmul_wide", 1, stages));
    EXPECT_EQ(r.k.ptx.find("cp.async.c") != std::string::npos, stages > 1);
    const int M = 16, N = 136, K = 80, lda = 96, ldb = 80, ldc = 144;
    std::vector<uint16_t> a, b;
    uint64_t cb = setUpMatmul(r, M, N, K, lda, ldb, ldc, 16, a, b);
    ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
    std::vector<uint16_t> got = r.read<uint16_t>(cb);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < 128; ++n) {
        double want = 0;
        for (int k = 0; k < K; ++k)
          want += ir::fromBits(ir::Scalar::F16, a[size_t(m * lda + k)]).f * ir::fromBits(ir::Scalar::F16, b[size_t(n * ldb + k)]).f;
        double g = ir::fromBits(ir::Scalar::F16, got[size_t(m * ldc + n)]).f;
        ASSERT_NEAR(g, want, 1e-2 + 2e-3 * std::fabs(want)) << m << ", " << n;
      }
    for (int m = 0; m < M; ++m) EXPECT_EQ(got[size_t(m * ldc + 128)], 0) << "column 128 belongs to another program";
  }
}

// The persistent softmax loop asks for num_stages 2 (tl.range): its row load goes through cp.async into
// shared memory a row ahead and is read back with `other` (-inf) where the mask is off. Program 0 of a
// one-program grid walks every row; rows are shorter than the block, so the select matters.
TEST_P(CodegenSimWarps, PersistentSoftmaxPrefetchesRows) {
  SimRun r(lowerInput("softmax_256", GetParam()));
  EXPECT_NE(r.k.ptx.find("cp.async.ca"), std::string::npos) << "the row load is pipelined";
  const int rows = 5, cols = 200, ld = 211;
  std::vector<float> x = randomFloats(size_t(rows) * ld, 11), y(size_t(rows) * ld, -7.0f);
  r.buffer("input_ptr", x);
  uint64_t yb = r.buffer("output_ptr", y);
  for (auto [n, v] : std::vector<std::pair<const char*, uint64_t>>{
           {"input_row_stride", ld}, {"output_row_stride", ld}, {"n_rows", rows}, {"n_cols", cols}})
    r.param(n, v);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  std::vector<float> got = r.read<float>(yb);
  for (int i = 0; i < rows; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j) mx = std::max(mx, double(x[size_t(i * ld + j)]));
    for (int j = 0; j < cols; ++j) sum += std::exp(double(x[size_t(i * ld + j)]) - mx);
    for (int j = 0; j < ld; ++j) {
      float g = got[size_t(i * ld + j)];
      if (j >= cols) {
        EXPECT_EQ(g, -7.0f) << i << ", " << j << ": past the row";
        continue;
      }
      double want = std::exp(double(x[size_t(i * ld + j)]) - mx) / sum;
      ASSERT_NEAR(g, want, 1e-5 * want + 1e-7) << i << ", " << j;
    }
  }
}

// Layer norm with aligned columns (N:16): each mask `cols < N` is one predicate per 16 columns, shared
// by every register of the block (perRegister's constancy sharing); rows of 160 take three chunks of
// 64, the last one half masked.
TEST_P(CodegenSimWarps, LayerNormAlignedColumnsSharesMasks) {
  SimRun r(lowerInput("layernorm_hints", GetParam()));  // BLOCK_SIZE 64
  const int cols = 160, ld = 176;
  auto half = [](float f) { return uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(f))); };
  auto single = [](uint16_t h) { return float(ir::fromBits(ir::Scalar::F16, h).f); };
  std::vector<uint16_t> x, w, b, y(size_t(ld), half(-7.0f));
  for (float f : randomFloats(size_t(ld), 31)) x.push_back(half(f));
  for (float f : randomFloats(size_t(ld), 32)) w.push_back(half(f));
  for (float f : randomFloats(size_t(ld), 33)) b.push_back(half(f));
  r.buffer("X", x);
  r.buffer("W", w);
  r.buffer("B", b);
  uint64_t yb = r.buffer("Y", y);
  uint64_t mb = r.buffer("Mean", std::vector<float>(1, 0.0f)), sb = r.buffer("Rstd", std::vector<float>(1, 0.0f));
  const float eps = 1e-5f;
  uint32_t epsBits = 0;
  std::memcpy(&epsBits, &eps, 4);
  r.param("stride", ld);
  r.param("N", cols);
  r.param("eps", epsBits);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  double m = 0, v = 0;
  for (int j = 0; j < cols; ++j) m += single(x[size_t(j)]);
  m /= cols;
  for (int j = 0; j < cols; ++j) v += (single(x[size_t(j)]) - m) * (single(x[size_t(j)]) - m);
  const double rstd = 1 / std::sqrt(v / cols + eps);
  EXPECT_NEAR(r.read<float>(mb)[0], m, 1e-5);
  EXPECT_NEAR(r.read<float>(sb)[0], rstd, 1e-4 * rstd);
  std::vector<uint16_t> got = r.read<uint16_t>(yb);
  for (int j = 0; j < ld; ++j) {
    if (j >= cols) {
      EXPECT_EQ(got[size_t(j)], half(-7.0f)) << j << ": past the row";
      continue;
    }
    double want = (single(x[size_t(j)]) - m) * rstd * single(w[size_t(j)]) + single(b[size_t(j)]);
    EXPECT_NEAR(single(got[size_t(j)]), want, 4e-3 * std::abs(want) + 2e-3) << j;
  }
}

INSTANTIATE_TEST_SUITE_P(CodegenSim, CodegenSimWarps, ::testing::Values(1, 4, 8));

// Mean and variance of a row: masked load, two sums, division by a scalar, a select.
TEST(CodegenSim, RowStatistics) {
  SimRun r(lowerInput("row_stats"));  // BLOCK_SIZE 256
  const int cols = 200;
  std::vector<float> x = randomFloats(256, 8), mean(1, 0.0f), var(1, 0.0f);
  r.buffer("x_ptr", x);
  uint64_t mb = r.buffer("mean_ptr", mean), vb = r.buffer("var_ptr", var);
  r.param("n_cols", cols);
  r.param("stride", 256);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  double m = 0, v = 0;
  for (int j = 0; j < cols; ++j) m += x[size_t(j)];
  m /= cols;
  for (int j = 0; j < cols; ++j) v += (x[size_t(j)] - m) * (x[size_t(j)] - m);
  v /= cols;
  EXPECT_NEAR(r.read<float>(mb)[0], m, 1e-5);
  EXPECT_NEAR(r.read<float>(vb)[0], v, 1e-5);
}

TEST(CodegenSim, IntegerHash) {
  SimRun r(lowerInput("hash_3_128"));  // ROUNDS 3, BLOCK_SIZE 128
  std::vector<uint32_t> x(128), h(128, 7), s(128, 7);
  for (uint32_t i = 0; i < 128; ++i) x[i] = i * 2654435761u;
  r.buffer("x_ptr", x);
  uint64_t hb = r.buffer("hash_ptr", h), sb = r.buffer("xorshift_ptr", s);
  r.param("n", 100);
  ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
  std::vector<uint32_t> gh = r.read<uint32_t>(hb), gs = r.read<uint32_t>(sb);
  for (uint32_t i = 0; i < 128; ++i) {
    uint32_t v = ((x[i] >> 16) ^ x[i]) * 0x45d9f3bu;
    v = ((v >> 16) ^ v) * 0x45d9f3bu;
    v = (v >> 16) ^ v;
    uint32_t z = x[i] | 1;
    for (int k = 0; k < 3; ++k) z ^= z << 13, z ^= z >> 17, z ^= z << 5;
    EXPECT_EQ(gh[i], i < 100 ? v : 7u) << i;
    EXPECT_EQ(gs[i], i < 100 ? z : 7u) << i;
  }
}

}  // namespace
}  // namespace kiln::lower::test
