// Flash attention (examples/flash_attention.py) end to end without a GPU: Tile IR (ptxas_inputs) ->
// layouts -> PTX, one program run by the CTA simulator against a float64 reference. Two chained dots
// per key block, the online softmax in base 2 (ex2, lg2), K and V software-pipelined where their
// addresses are aligned: on sm_90a by TMA through rank-4 maps over [Z, H, N_CTX, HEAD_DIM] behind the
// run-time check of pointer-built tiles (schedule/tma_versioning.cpp), by cp.async otherwise.
#include <cmath>
#include <cstring>
#include <regex>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

struct Case {
  const char* input;
  int d, blockM, blockN;
  bool causal, aligned;
  int n = 72, program = 0;  // N_CTX, and the program simulated (of a grid covering every row)
  int warps = 4;
  int heads = 1;            // Z = H = heads; the program simulated is of the last head of the last batch
  bool sharedKv = false;    // every batch reads batch 0's K and V (their batch stride 0, as torch's expand)
};

uint16_t half(float f) { return uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(f))); }
float value(uint16_t h) { return ir::fromBits(ir::Scalar::F16, h).f; }

// Runs program (c.program, Z * H - 1) of `c` and checks its rows against float64, every other row of
// every head untouched. Each head's [N_CTX, HEAD_DIM] block is followed by 64 unused elements (strides
// that are not the tensor's extents).
void runAttention(const Case& c, int stages, ptx::Target target) {
  SCOPED_TRACE(std::string(c.input) + " stages " + std::to_string(stages) + " " + target.name() + " heads " +
               std::to_string(c.heads));
  SimRun r(lowerInput(c.input, c.warps, stages, target));
  EXPECT_EQ(r.k.ptx.find("cp.async.c") != std::string::npos, c.aligned && stages > 1);
  const bool wgmma = target == ptx::kSm90a && c.blockM >= 64;
  EXPECT_EQ(r.k.ptx.find("wgmma.mma_async") != std::string::npos, wgmma);
  const std::regex aFromShared(R"(wgmma\.mma_async[^\n]*\}, %rd\d+, %rd\d+)");
  EXPECT_EQ(std::regex_search(r.k.ptx, aFromShared), wgmma && c.aligned && stages > 1);
  EXPECT_EQ(r.k.ptx.find("_all_true:") != std::string::npos, c.blockM == 128);
  const bool turns = wgmma && c.warps == 8 && stages > 1;
  EXPECT_EQ(r.k.ptx.find("bar.arrive") != std::string::npos, turns);
  EXPECT_EQ(r.k.ptx.find("cp.async.mbarrier.arrive.noinc") != std::string::npos, turns);
  const bool tmaVersion = wgmma && c.aligned && stages > 1;
  EXPECT_EQ(r.k.ptx.find("cp.async.bulk.tensor.4d") != std::string::npos, tmaVersion);
  const bool tma = tmaVersion && !c.sharedKv;  // (a zero stride fails the check: the cp.async version runs)

  const int n = c.n, d = c.d, zh = c.heads * c.heads, hz = zh - 1;
  const int64_t headStride = int64_t(n) * d + 64, total = headStride * zh;
  std::vector<uint16_t> q, k, v, o(size_t(total), 0);
  for (float f : randomFloats(size_t(total), 21)) q.push_back(half(f));
  for (float f : randomFloats(size_t(total), 22)) k.push_back(half(f));
  for (float f : randomFloats(size_t(total), 23)) v.push_back(half(f));
  std::vector<float> lse(size_t(zh) * n, -7.0f);
  r.buffer("Q", q);
  const uint64_t kb = r.buffer("K", k);
  r.buffer("V", v);
  uint64_t mb = r.buffer("M", lse), ob = r.buffer("Out", o);
  // K's tensor map is encoded over a copy of K whose rows past each head's first key block are negated:
  // only the TMA version reads those through the map (the first block comes by a pointer load before
  // the loop, overlap_dots' prologue), so the values say which version ran.
  std::vector<uint16_t> kMap = k;
  for (int h = 0; h < zh; ++h)
    for (int64_t i = int64_t(c.blockN) * d; i < int64_t(n) * d; ++i) kMap[size_t(h * headStride + i)] ^= 0x8000;
  const std::vector<uint16_t>& kRef = tma ? kMap : k;
  const float scale = 0.3f;
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, 4);
  r.param("sm_scale", scaleBits);
  for (const char* t : {"q", "k", "v", "o"}) {
    const std::string x(t);
    const bool shared = c.sharedKv && (x == "k" || x == "v");
    r.param("stride_" + x + "z", shared ? 0 : uint64_t(headStride) * c.heads);
    r.param("stride_" + x + "h", uint64_t(headStride));
    r.param("stride_" + x + (x == "k" || x == "v" ? "n" : "m"), uint64_t(d));
    r.param("stride_" + x + "k", 1);
  }
  r.param("H", uint64_t(c.heads));
  r.param("N_CTX", n);
  r.param("K", r.sim.addBuffer(bytesOf(kMap)));
  r.encodeTensorMaps();
  r.param("K", kb);
  const uint64_t programs = uint64_t((n + c.blockM - 1) / c.blockM);
  ASSERT_EQ(r.sim.run({uint64_t(c.program), uint64_t(hz), 0}, {programs, uint64_t(zh), 1}), "") << r.k.ptx;
  std::vector<uint16_t> got = r.read<uint16_t>(ob);
  std::vector<float> gotLse = r.read<float>(mb);
  for (int h = 0; h < zh; ++h)
    for (int i = 0; i < n; ++i) {
      if (h != hz || i / c.blockM != c.program) {  // rows of other programs
        EXPECT_EQ(got[size_t(h * headStride + i * d)], 0) << "head " << h << " row " << i;
        EXPECT_EQ(gotLse[size_t(h * n + i)], -7.0f) << "head " << h << " row " << i;
      }
    }
  const int64_t base = hz * headStride, kvBase = c.sharedKv ? (hz % c.heads) * headStride : base;
  for (int i = c.program * c.blockM; i < std::min(n, (c.program + 1) * c.blockM); ++i) {
    const int keys = c.causal ? i + 1 : n;
    std::vector<double> s(static_cast<size_t>(keys));
    double mx = -INFINITY;
    for (int j = 0; j < keys; ++j) {
      double dotp = 0;
      for (int e = 0; e < d; ++e)
        dotp += double(value(q[size_t(base + i * d + e)])) * value(kRef[size_t(kvBase + j * d + e)]);
      s[size_t(j)] = dotp * scale;
      mx = std::max(mx, s[size_t(j)]);
    }
    double sum = 0;
    for (double& x : s) sum += (x = std::exp(x - mx));
    EXPECT_NEAR(gotLse[size_t(hz * n + i)], (mx + std::log(sum)) / std::log(2.0), 2e-3) << "row " << i;
    for (int e = 0; e < d; ++e) {
      double want = 0;
      for (int j = 0; j < keys; ++j) want += s[size_t(j)] / sum * value(v[size_t(kvBase + j * d + e)]);
      ASSERT_NEAR(value(got[size_t(base + i * d + e)]), want, 1e-2 + 5e-3 * std::fabs(want)) << i << ", " << e;
    }
  }
}

// N_CTX is not a multiple of the blocks, so the key and query masks matter; causal and not.
// attn_64_hints: one warp per 16 query rows, so no barrier of the softmax orders the slots: only the
// one the pipeline puts in the p @ v dot (before its last k-slice: schedule/pipeline_mma.cpp).
// attn_128_hints: 128 query rows on 4 warps, two 64-row blocks of each wgmma accumulator per warpgroup.
// Their where(valid, qk, -inf) runs behind a guard (lower_guarded_select.cpp): key blocks below N_CTX,
// and for the causal one's second program (rows 128..199) below its first row too, skip the selects;
// the others (the edge block, the diagonal) take them.
// attn_128_pingpong*: 128 query rows on 8 warps and 128-key blocks at D 64; pipelined on sm_90a the two
// warpgroups take turns at the tensor cores (schedule/pingpong.cpp: named barriers, full and empty
// mbarriers per slot, no CTA barrier in the loop), in the TMA version as in the cp.async one, over three
// key blocks, the last one partly past N_CTX (and, causal, program 2's diagonal).
TEST(CodegenSimAttention, FlashAttentionBlock) {
  for (const Case& c : {Case{"attn_hints", 32, 16, 16, true, true}, Case{"attn_64_hints", 32, 64, 16, false, true},
                        Case{"attn_128_hints", 32, 128, 16, false, true}, Case{"attn_16_32_plain", 16, 16, 32, false, false},
                        Case{"attn_128_causal_hints", 32, 128, 16, true, true, 200, 1},
                        Case{"attn_128_pingpong_hints", 64, 128, 128, false, true, 300, 0, 8},
                        Case{"attn_128_pingpong_causal_hints", 64, 128, 128, true, true, 300, 2, 8}})
    for (int stages : {1, 3})
      for (ptx::Target target : {ptx::kSm80, ptx::kSm90a}) runAttention(c, stages, target);
}

// The per-head base the kernel computes (off_z * stride_z + off_h * stride_h, in 64 bits) moves the
// copies: the program of the last head of the last batch (Z = H = 2), whose coordinates along the
// maps' batch and head dims are 1 and 1, reads its own head's keys and values, and writes only its rows.
// attn_d128_pingpong_hints: the suite's D128 128x64 on 8 warps, turns with 128-byte-wide K and V boxes.
TEST(CodegenSimAttention, TheLastHeadOfABatch) {
  for (const Case& c : {Case{"attn_128_hints", 32, 128, 16, false, true, 150, 1, 4, 2},
                        Case{"attn_128_pingpong_causal_hints", 64, 128, 128, true, true, 300, 2, 8, 2},
                        Case{"attn_d128_pingpong_hints", 128, 128, 64, false, true, 200, 1, 8, 2}})
    for (ptx::Target target : {ptx::kSm80, ptx::kSm90a}) runAttention(c, 3, target);
}

// Keys and values shared by the batches (their batch stride 0: TMA takes no zero stride, so the check
// before the loop fails and the cp.async version runs), and a single key and query (N_CTX = 1: the
// rotated loop runs no iteration, the TMA version's copies past the end are not issued).
TEST(CodegenSimAttention, SharedKeysAndASingleKey) {
  Case shared{"attn_128_pingpong_hints", 64, 128, 128, false, true, 200, 1, 8, 2};
  shared.sharedKv = true;
  for (const Case& c : {shared, Case{"attn_128_hints", 32, 128, 16, false, true, 1, 0, 4, 2},
                        Case{"attn_128_pingpong_causal_hints", 64, 128, 128, true, true, 1, 0, 8, 1}})
    runAttention(c, 3, ptx::kSm90a);
}

}  // namespace
}  // namespace kiln::lower::test
