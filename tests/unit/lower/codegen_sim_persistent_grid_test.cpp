// CompileOptions::persistent end to end in the CTA simulator: the descriptor matmul, written one tile per
// program (bench/kernels/matmul_descriptor.py), compiled persistent, runs on fewer CTAs than its grid
// has programs. Each launched CTA walks programs p, p + n, p + 2n, ... of the logical grid, which the
// launcher passes as the parameters grid_x, grid_y and grid_z. With the kernel's k loop asking for warp
// specialization the tile loop takes it over: one producer warpgroup runs on across tiles. Sizes no tile
// divides, M = 1 included; C has a row past M that must stay NaN, and every tile is checked against a
// double-precision product (a tile computed twice with a stale accumulator, or skipped, shows).
#include <cmath>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

constexpr int kBm = 64, kBn = 64;  // matmul_descriptor_ws_64's C tile (BLOCK_SIZE_K 32), 4 consumer warps

double value(uint16_t h) { return ir::fromBits(ir::Scalar::F16, h).f; }

// Runs `launched` CTAs over the grid of (M / 64) x (N / 64) programs and checks C.
void runAndCheck(const Kernel& k, int m, int n, int kk, uint64_t launched) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kk) + " on " +
               std::to_string(launched) + " CTAs");
  SimRun r(k);
  r.sim.setStepLimit(16000000);
  const std::vector<uint16_t> a = randomHalves(size_t(m) * kk, 61), b = randomHalves(size_t(kk) * n, 62);
  const uint16_t nan = 0x7e00;
  r.buffer("a_ptr", a);
  r.buffer("b_ptr", b);
  const uint64_t cb = r.buffer("c_ptr", std::vector<uint16_t>(size_t(m + 1) * n, nan));
  r.param("M", uint64_t(m));
  r.param("N", uint64_t(n));
  r.param("K", uint64_t(kk));
  const uint64_t programs = uint64_t((m + kBm - 1) / kBm) * uint64_t((n + kBn - 1) / kBn);
  r.param("grid_x", programs);
  r.param("grid_y", 1);
  r.param("grid_z", 1);
  r.encodeTensorMaps();
  for (uint64_t cta = 0; cta < launched; ++cta) ASSERT_EQ(r.sim.run({cta, 0, 0}, {launched, 1, 1}), "") << "CTA " << cta;
  const std::vector<uint16_t> got = r.read<uint16_t>(cb);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int x = 0; x < kk; ++x) want += value(a[size_t(i * kk + x)]) * value(b[size_t(x * n + j)]);
      ASSERT_NEAR(value(got[size_t(i * n + j)]), want, 1e-2 + 2e-3 * std::fabs(want)) << i << ", " << j;
    }
  for (int j = 0; j < n; ++j) EXPECT_EQ(got[size_t(m * n + j)], nan) << "column " << j << " past the last row";
}

TEST(CodegenSimPersistentGrid, FewerCtasThanProgramsComputeEveryTile) {
  for (int stages : {1, 3}) {
    SCOPED_TRACE("stages " + std::to_string(stages));
    Kernel k = lowerText("matmul_descriptor_ws_64", inputText("matmul_descriptor_ws_64"), 4, stages, ptx::kSm90a,
                         /*persistent=*/true);
    ASSERT_GE(k.params.size(), 3u);
    EXPECT_EQ(k.params[k.params.size() - 3], "grid_x");
    EXPECT_EQ(k.params.back(), "grid_z");
    if (stages > 1) EXPECT_EQ(k.info.numWarps, 8) << "the tile loop warp-specialized: a producer warpgroup";
    runAndCheck(k, 150, 136, 200, 2);  // 3 x 3 programs on 2 CTAs: 5 and 4 tiles
    runAndCheck(k, 1, 136, 200, 1);    // 1 x 3 programs on 1 CTA
    runAndCheck(k, 150, 136, 72, 9);   // as many CTAs as programs: one tile each
  }
}

// sm_80 (mma.sync, cp.async): the same loop over the grid, no partitions.
TEST(CodegenSimPersistentGrid, Sm80) {
  Kernel k = lowerText("matmul_descriptor_ws_64", inputText("matmul_descriptor_ws_64"), 4, 3, ptx::kSm80, true);
  EXPECT_EQ(k.info.numWarps, 4);
  runAndCheck(k, 150, 136, 200, 4);
}

// The tutorial matmul, its A and B pointer-built (matmul_wgmma_nmajor: 64x64x32 tiles, one warpgroup,
// GROUP_SIZE_M 4), persistent and warp-specialized: the TMA version of its k loop, in its check's `if`
// inside the loop over programs, gets the producer warpgroup, which walks the same `if` per tile; the
// consumers run the cp.async version on their own where the check fails. A's tensor map is encoded over
// -A, so the TMA version's product is -A B and the test sees which version ran: every tile the TMA one
// with A's rows 208 apart, the cp.async one with a row stride of 0 (TMA takes none).
void runPointerGrid(const Kernel& k, int lda, uint64_t launched, int bm = 64, int bn = 64) {
  constexpr int M = 150, N = 136, K = 200, ldb = 144, ldc = 144;
  SCOPED_TRACE("lda " + std::to_string(lda) + " on " + std::to_string(launched) + " CTAs");
  SimRun r(k);
  r.sim.setStepLimit(40000000);
  const std::vector<uint16_t> a = randomHalves(size_t(M) * std::max(lda, 208), 71), b = randomHalves(size_t(K) * ldb, 72);
  std::vector<uint16_t> negated(a.size());
  for (size_t i = 0; i < a.size(); ++i) negated[i] = uint16_t(a[i] ^ 0x8000);
  const uint16_t nan = 0x7e00;
  r.buffer("a_ptr", negated);
  r.buffer("b_ptr", b);
  const uint64_t cb = r.buffer("c_ptr", std::vector<uint16_t>(size_t(M + 1) * ldc, nan));
  const uint64_t programs = uint64_t((M + bm - 1) / bm) * uint64_t((N + bn - 1) / bn);
  for (auto [name, v] : std::vector<std::pair<const char*, uint64_t>>{
           {"M", M}, {"N", N}, {"K", K}, {"stride_am", uint64_t(lda)}, {"stride_ak", 1}, {"stride_bk", ldb},
           {"stride_bn", 1}, {"stride_cm", ldc}, {"stride_cn", 1}, {"grid_x", programs}, {"grid_y", 1}, {"grid_z", 1}})
    r.param(name, v);
  r.encodeTensorMaps();
  r.buffer("a_ptr", a);  // what the pointer loads read
  for (uint64_t cta = 0; cta < launched; ++cta) ASSERT_EQ(r.sim.run({cta, 0, 0}, {launched, 1, 1}), "") << "CTA " << cta;
  const std::vector<uint16_t> got = r.read<uint16_t>(cb);
  const double sign = lda % 8 == 0 && lda > 0 ? -1 : 1;  // (TMA needs 16-byte rows)
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int x = 0; x < K; ++x) want += value(a[size_t(i * lda + x)]) * value(b[size_t(x * ldb + j)]);
      ASSERT_NEAR(value(got[size_t(i * ldc + j)]), sign * want, 1e-2 + 2e-3 * std::fabs(want)) << i << ", " << j;
    }
  for (int j = 0; j < N; ++j) EXPECT_EQ(got[size_t(M * ldc + j)], nan) << "column " << j << " past the last row";
}

TEST(CodegenSimPersistentGrid, PointerBuiltTilesWarpSpecialized) {
  Kernel k = lowerText("matmul_wgmma_nmajor", inputText("matmul_wgmma_nmajor"), 4, 3, ptx::kSm90a,
                       /*persistent=*/true, /*warpSpecialize=*/true);
  EXPECT_EQ(k.info.numWarps, 8) << "a producer warpgroup beside the 4 consumer warps";
  EXPECT_EQ(k.tensorMaps.size(), 3u) << "A's, B's and C's (its tile stored with TMA behind a check)";
  EXPECT_GE(count(k.ptx, "shared::cluster.global"), 1);
  EXPECT_EQ(count(k.ptx, "cp.async.bulk.tensor.2d.global.shared::cta"), 1);
  EXPECT_GE(count(k.ptx, "cp.async.cg.shared.global"), 1) << "the cp.async version beside it";
  runPointerGrid(k, 208, 2);  // 9 programs on 2 CTAs, every tile through TMA
  runPointerGrid(k, 0, 2);    // every tile through cp.async
  runPointerGrid(k, 208, 9);  // one tile each
}

// A's row stride proven a multiple of 4 elements only: the check also tests it for 16 bytes, and A's rows
// 212 apart (8-byte aligned) send every tile to the cp.async version, A's tile loaded through registers.
TEST(CodegenSimPersistentGrid, PointerBuiltTilesWithARowStrideCheckedAtRunTime) {
  std::string text = inputText("matmul_wgmma_nmajor");
  const std::string hint = "multiple_of %stride_am {values = [16]}";
  ASSERT_NE(text.find(hint), std::string::npos);
  text.replace(text.find(hint), hint.size(), "multiple_of %stride_am {values = [4]}");
  Kernel k = lowerText("matmul_wgmma_nmajor", text, 4, 3, ptx::kSm90a, /*persistent=*/true, /*warpSpecialize=*/true);
  EXPECT_EQ(k.info.numWarps, 8);
  runPointerGrid(k, 212, 2);
  runPointerGrid(k, 208, 2);
}

// The same on two consumer warpgroups (128x64 tiles, 8 consumer warps, 12 in the CTA), A's row stride
// unhinted: 212 sends every tile to the cp.async version, A's tile through registers.
TEST(CodegenSimPersistentGrid, PointerBuiltTilesOnTwoWarpgroups) {
  Kernel k = lowerText("matmul_wgmma_128", inputText("matmul_wgmma_128"), 8, 3, ptx::kSm90a, /*persistent=*/true,
                       /*warpSpecialize=*/true);
  EXPECT_EQ(k.info.numWarps, 12);
  // The TMA version keeps a group in flight; the cp.async version, whose A is in registers, does not: the
  // next iteration writes A's registers (PTX ISA: not while a wgmma reading them runs).
  EXPECT_EQ(count(k.ptx, "wgmma.wait_group.sync.aligned 1;"), 1);
  runPointerGrid(k, 212, 2, 128, 64);
  runPointerGrid(k, 208, 2, 128, 64);
}

// Without the option the kernel keeps its parameters and one program per tile.
TEST(CodegenSimPersistentGrid, OffByDefault) {
  Kernel k = lowerText("matmul_descriptor_ws_64", inputText("matmul_descriptor_ws_64"), 4, 3, ptx::kSm90a);
  EXPECT_EQ(k.params.back(), "K");
}

}  // namespace
}  // namespace kiln::lower::test
