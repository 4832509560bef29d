// examples/flash_attention.py: attention forward against a double-precision softmax(QK^T)V,
// causal and not, N_CTX a multiple of the blocks or not (and 1), BLOCK_M larger or smaller than
// BLOCK_N, V stored in a different layout than Q/K/O so every stride argument matters.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

struct AttnCase {
  int64_t z, h, n, d, blockM, blockN;
  bool causal;
  bool hints = false;  // ":16" on pointers and on the strides that are multiples of 16, "1" on unit strides
};

std::string attnSignature(const AttnCase& c) {
  std::string s = c.hints ? "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16" : "*fp16, *fp16, *fp16, fp32, *fp32, *fp16";
  // Per tensor: z, h, n strides (multiples of HEAD_DIM, itself a multiple of 16) then the unit stride.
  for (int t = 0; t < 4; ++t) s += c.hints ? ", i32:16, i32:16, i32:16, 1" : ", i32, i32, i32, i32";
  return s + ", i32, i32, " + std::to_string(c.d) + ", " + std::to_string(c.blockM) + ", " + std::to_string(c.blockN) +
         (c.causal ? ", True" : ", False");
}

void checkAttention(const AttnCase& c) {
  SCOPED_TRACE("Z " + std::to_string(c.z) + ", H " + std::to_string(c.h) + ", N_CTX " + std::to_string(c.n) +
               ", HEAD_DIM " + std::to_string(c.d) + ", BLOCK_M " + std::to_string(c.blockM) + ", BLOCK_N " +
               std::to_string(c.blockN) + (c.causal ? ", causal" : ", not causal"));
  auto k = compileExample("flash_attention.py", "attn_fwd", attnSignature(c));
  ASSERT_TRUE(k);
  KT_RNG(rng);
  const int64_t Z = c.z, H = c.h, N = c.n, D = c.d, total = Z * H * N * D;
  // Q, K, O: [Z, H, N, D] contiguous. V: [Z, N, H, D] in memory (heads interleaved).
  const int64_t sz = H * N * D, sh = N * D, sn = D;
  const int64_t vz = N * H * D, vh = D, vn = H * D;
  auto q = rng.f16(total, -2, 2), kk = rng.f16(total, -2, 2), v = rng.f16(total, -1, 1);
  std::vector<uint16_t> o(total);
  std::vector<float> m(Z * H * N);
  poison(o), poison(m);
  const double smScale = 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<Arg> args = {Arg::buffer(q), Arg::buffer(kk), Arg::buffer(v), Arg::real(smScale), Arg::buffer(m),
                           Arg::buffer(o)};
  for (int64_t s : {sz, sh, sn, int64_t{1}, sz, sh, sn, int64_t{1}, vz, vh, vn, int64_t{1}, sz, sh, sn, int64_t{1}})
    args.push_back(Arg::integer(s));
  args.push_back(Arg::integer(H));
  args.push_back(Arg::integer(N));
  ASSERT_TRUE(run(*k, {cdiv(N, c.blockM), static_cast<uint32_t>(Z * H)}, args));

  // The scale is rounded to fp32 as the kernel receives it.
  const double scale = static_cast<float>(smScale);
  std::vector<double> gotO, refO, gotM, refM;
  std::vector<double> s(N);
  for (int64_t zi = 0; zi < Z; ++zi)
    for (int64_t hi = 0; hi < H; ++hi)
      for (int64_t i = 0; i < N; ++i) {
        const int64_t last = c.causal ? i : N - 1;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= last; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += halfToFloat(q[zi * sz + hi * sh + i * sn + d]) * halfToFloat(kk[zi * sz + hi * sh + j * sn + d]);
          s[j] = dot * scale;
          mx = std::max(mx, s[j]);
        }
        for (int64_t j = 0; j <= last; ++j) sum += std::exp(s[j] - mx);
        for (int64_t j = 0; j <= last; ++j) s[j] = std::exp(s[j] - mx) / sum;  // now the probabilities
        refM.push_back((mx + std::log(sum)) / std::log(2.0));  // log-sum-exp in base 2
        gotM.push_back(m[(zi * H + hi) * N + i]);
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0;
          for (int64_t j = 0; j <= last; ++j) acc += s[j] * halfToFloat(v[zi * vz + hi * vh + j * vn + d]);
          refO.push_back(acc);
          gotO.push_back(halfToFloat(o[zi * sz + hi * sh + i * sn + d]));
        }
      }
  // The probabilities are rounded to fp16 before the second dot: errors ~1e-3 of max |v|.
  EXPECT_TRUE(allClose(gotO, refO, Tol{1e-2, 5e-3})) << "output";
  EXPECT_TRUE(allClose(gotM, refM, Tol{1e-5, 1e-5})) << "log-sum-exp";
}

TEST(FlashAttention, NonCausal) {
  checkAttention({1, 2, 64, 16, 16, 16, false});
  checkAttention({2, 2, 100, 32, 32, 16, false});
}

TEST(FlashAttention, Causal) {
  checkAttention({1, 2, 64, 16, 16, 16, true});
  checkAttention({2, 2, 100, 32, 32, 16, true});
}

TEST(FlashAttention, BlockNLargerThanBlockM) {
  checkAttention({1, 2, 77, 16, 16, 32, true});
  checkAttention({1, 2, 77, 16, 16, 32, false});
}

TEST(FlashAttention, AlignmentHintsAndUnitStrides) {
  checkAttention({2, 2, 48, 32, 16, 16, true, true});
  checkAttention({1, 2, 70, 16, 32, 16, false, true});
}

TEST(FlashAttention, SingleToken) {
  // One key: the output is exactly v (up to fp16 rounding of p = 1).
  checkAttention({1, 1, 1, 16, 16, 16, true});
  checkAttention({1, 1, 1, 16, 16, 16, false});
}

TEST(FlashAttention, RandomShapes) {
  KT_RNG(rng);
  for (int i = 0; i < 3; ++i) {
    const int64_t d = rng.integer(0, 1) ? 32 : 16, bm = rng.integer(0, 1) ? 32 : 16, bn = rng.integer(0, 1) ? 32 : 16;
    checkAttention({rng.integer(1, 2), rng.integer(1, 2), rng.integer(1, 100), d, bm, bn, rng.integer(0, 1) == 1});
  }
}

}  // namespace
}  // namespace kt
