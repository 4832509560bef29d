// The tutorial matmul on sm_90a's wgmma, end to end in the CTA simulator (ops_sim_wgmma.h runs each
// wgmma group when its wait retires, reading shared memory and the accumulators then): 64x64 tiles on
// one warpgroup, B stored K-contiguous and N-contiguous, unpipelined and pipelined 2..4 deep, K not a
// multiple of the tile. A missing fence, wait or barrier, or a slot refilled while a group still reads
// it, shows as wrong values or a race.
#include <cmath>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

// With M = 80 the program's 64 rows lie inside A, the `% M` wrap of its row indices is the identity,
// and the pipelined loop (B N-contiguous) copies A and B with TMA through the tensor maps the launcher encodes (the K
// tail of 16 zero-filled past K); with M = 50 the wrap is not (rows 50..63 read rows 0..13), the check
// before the loop fails and the cp.async version runs. Either way rows below M are the product and
// rows from M on are left alone.
TEST(CodegenSimWgmma, MatmulTileOnAWarpgroup) {
  for (bool nMajor : {false, true})
    for (int stages = 1; stages <= 4; ++stages)
      for (int M : {80, 50}) {
        const std::string input = nMajor ? "matmul_wgmma_nmajor" : "matmul_wgmma_kmajor";
        SCOPED_TRACE(input + " stages " + std::to_string(stages) + " M " + std::to_string(M));
        SimRun r(lowerInput(input, 4, stages, ptx::kSm90a));
        EXPECT_GE(count(r.k.ptx, "wgmma.mma_async"), 1);
        EXPECT_EQ(count(r.k.ptx, "mma.sync"), 0);
        EXPECT_EQ(r.k.ptx.find("cp.async.c") != std::string::npos, stages > 1);
        // (B K-contiguous, its rows along the tile's contiguous dim, takes no TMA copy yet; nor then does A)
        const bool tma = stages > 1 && nMajor;
        EXPECT_EQ(r.k.ptx.find("cp.async.bulk.tensor") != std::string::npos, tma) << "the TMA version beside it";
        EXPECT_EQ(r.k.tensorMaps.size(), tma ? 2u : 0u);
        for (const TensorMapSpec& s : r.k.tensorMaps) EXPECT_TRUE(s.guarded);
        if (stages > 1) EXPECT_GE(count(r.k.ptx, "fence.proxy.async"), 1);
        if (stages > 1) EXPECT_NE(r.k.ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos)
            << "a matmul keeps one group in flight";
        const int N = 80, K = 144, lda = 160, ldb = nMajor ? 96 : 160, ldc = 96;
        std::vector<float> af = randomFloats(size_t(M) * lda, 31), bf = randomFloats(size_t(nMajor ? K : N) * ldb, 32);
        std::vector<uint16_t> a(af.size()), b(bf.size()), c(size_t(80) * ldc, 0);
        for (size_t i = 0; i < a.size(); ++i) a[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(af[i])));
        for (size_t i = 0; i < b.size(); ++i) b[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(bf[i])));
        r.buffer("a_ptr", a);
        r.buffer("b_ptr", b);
        const uint64_t cb = r.buffer("c_ptr", c);
        auto bAt = [&](int k, int n) { return size_t(nMajor ? k * ldb + n : n * ldb + k); };
        for (auto [name, v] : std::vector<std::pair<const char*, uint64_t>>{
                 {"M", M}, {"N", N}, {"K", K}, {"stride_am", lda}, {"stride_ak", 1},
                 {"stride_bk", nMajor ? ldb : 1}, {"stride_bn", nMajor ? 1 : ldb}, {"stride_cm", ldc}, {"stride_cn", 1}})
          r.param(name, v);
        r.encodeTensorMaps();
        ASSERT_EQ(r.sim.run(), "") << r.k.ptx;
        std::vector<uint16_t> got = r.read<uint16_t>(cb);
        for (int m = 0; m < std::min(M, 64); ++m)
          for (int n = 0; n < 64; ++n) {
            double want = 0;
            for (int k = 0; k < K; ++k)
              want += ir::fromBits(ir::Scalar::F16, a[size_t(m * lda + k)]).f * ir::fromBits(ir::Scalar::F16, b[bAt(k, n)]).f;
            const double g = ir::fromBits(ir::Scalar::F16, got[size_t(m * ldc + n)]).f;
            ASSERT_NEAR(g, want, 1e-2 + 2e-3 * std::fabs(want)) << m << ", " << n;
          }
        for (int m = std::min(M, 64); m < 80; ++m) EXPECT_EQ(got[size_t(m * ldc)], 0) << "row " << m << " is not the program's";
      }
}

}  // namespace
}  // namespace kiln::lower::test
