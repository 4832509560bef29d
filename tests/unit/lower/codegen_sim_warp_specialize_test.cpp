// The benchmark suite's descriptor matmul (bench/kernels/matmul_descriptor.py) with WARP_SPECIALIZE end to
// end in the CTA simulator, which runs the partitions as separate groups of warps (ops_sim_groups.h): the
// consumer warps wait on each slot's full mbarrier, run the wgmma and release the previous slot through
// its empty mbarrier; the producer warpgroup waits on the empty barriers and refills the slots with TMA.
// Every program of the grid runs (one CTA after another) at sizes no tile divides, M = 1 included, with
// 4 and 8 consumer warps (CTAs of 8 and 12 warps), 2 and 3 stages, on sm_90a; C is checked against a
// double-precision product, with a row past M that must stay NaN. The same kernel without the
// attribute (one partition, a CTA barrier per refill) is the control.
#include <cmath>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

struct Config {
  const char* input;  // ptxas_inputs/<input>.tir, the kernel at WARP_SPECIALIZE=True
  int warps, bm, bn;  // consumer warps and the C tile (BLOCK_SIZE_K 32)
};
const Config kConfigs[] = {{"matmul_descriptor_ws_64", 4, 64, 64}, {"matmul_descriptor_ws_128", 8, 128, 64}};

struct Size {
  int m, n, k;
};
const Size kSizes[] = {{150, 136, 200}, {1, 136, 200}};

uint16_t half(float x) { return uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(x))); }
double value(uint16_t h) { return ir::fromBits(ir::Scalar::F16, h).f; }

// Runs every program of the grid on random A [M, K] and B [K, N] and checks C.
void runAndCheck(const Kernel& k, int bm, int bn, Size s) {
  SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k));
  SimRun r(k);
  r.sim.setStepLimit(4000000);
  std::vector<float> af = randomFloats(size_t(s.m) * s.k, 51), bf = randomFloats(size_t(s.k) * s.n, 52);
  std::vector<uint16_t> a(af.size()), b(bf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = half(af[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = half(bf[i]);
  const uint16_t nan = 0x7e00;
  r.buffer("a_ptr", a);
  r.buffer("b_ptr", b);
  const uint64_t cb = r.buffer("c_ptr", std::vector<uint16_t>(size_t(s.m + 1) * s.n, nan));
  r.param("M", uint64_t(s.m));
  r.param("N", uint64_t(s.n));
  r.param("K", uint64_t(s.k));
  r.encodeTensorMaps();
  const uint64_t programs = uint64_t((s.m + bm - 1) / bm) * uint64_t((s.n + bn - 1) / bn);
  for (uint64_t pid = 0; pid < programs; ++pid) ASSERT_EQ(r.sim.run({pid, 0, 0}, {programs, 1, 1}), "") << "program " << pid;
  const std::vector<uint16_t> got = r.read<uint16_t>(cb);
  for (int m = 0; m < s.m; ++m)
    for (int n = 0; n < s.n; ++n) {
      double want = 0;
      for (int kk = 0; kk < s.k; ++kk) want += value(a[size_t(m * s.k + kk)]) * value(b[size_t(kk * s.n + n)]);
      ASSERT_NEAR(value(got[size_t(m * s.n + n)]), want, 1e-2 + 2e-3 * std::fabs(want)) << m << ", " << n;
    }
  for (int n = 0; n < s.n; ++n) EXPECT_EQ(got[size_t(s.m * s.n + n)], nan) << "column " << n << " past the last row";
}

TEST(CodegenSimWarpSpecialize, ProducerAndConsumerPartitionsComputeEveryTile) {
  for (const Config& c : kConfigs)
    for (int stages : {2, 3}) {
      SCOPED_TRACE(std::string(c.input) + " stages " + std::to_string(stages));
      const Kernel k = lowerInput(c.input, c.warps, stages, ptx::kSm90a);
      const int threads = 32 * (c.warps + 4);
      EXPECT_EQ(k.info.numWarps, c.warps + 4) << "a producer warpgroup beside the consumers";
      EXPECT_EQ(count(k.ptx, ".maxntid " + std::to_string(threads) + ", 1, 1"), 1);
      EXPECT_EQ(count(k.ptx, "bar.sync 1, " + std::to_string(32 * c.warps) + ";") > 0, true) << "the consumers' barrier";
      EXPECT_EQ(count(k.ptx, "setmaxnreg"), c.warps == 8 ? 2 : 0);
      EXPECT_GE(count(k.ptx, "mbarrier.try_wait.parity"), 2) << "the full and the empty waits";
      EXPECT_GE(count(k.ptx, "wgmma.wait_group.sync.aligned 1;"), 1);
      for (const Size& s : kSizes) runAndCheck(k, c.bm, c.bn, s);
    }
}

// The same kernel without warp_specialize: one partition of c.warps warps pipelined with a CTA barrier.
TEST(CodegenSimWarpSpecialize, TheUnspecializedKernelAsControl) {
  for (const Config& c : kConfigs) {
    std::string text = inputText(c.input);
    const std::string attr = " {warp_specialize = 1}";
    const size_t at = text.find(attr);
    ASSERT_NE(at, std::string::npos) << attr;
    text.erase(at, attr.size());
    for (int stages : {2, 3}) {
      SCOPED_TRACE(std::string(c.input) + " without warp_specialize, stages " + std::to_string(stages));
      const Kernel k = lowerText(c.input, text, c.warps, stages, ptx::kSm90a);
      EXPECT_EQ(k.info.numWarps, c.warps);
      EXPECT_EQ(count(k.ptx, "setmaxnreg"), 0);
      EXPECT_EQ(count(k.ptx, "bar.sync 1,"), 0);
      EXPECT_GE(count(k.ptx, "cp.async.bulk.tensor.2d.shared::cluster"), 1);
      for (const Size& s : kSizes) runAndCheck(k, c.bm, c.bn, s);
    }
  }
}

}  // namespace
}  // namespace kiln::lower::test
