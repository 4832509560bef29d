// The benchmark suite's persistent matmul (bench/kernels/matmul_persistent.py) end to end in the CTA
// simulator: one program (NUM_SMS 1) walks every 64x64 tile of C in grouped order, loading A and B^T
// through device-side tensor descriptors (zero past each edge) and storing C through one (nothing past
// the edges). M, N and K are multiples of no tile; on sm_90a (wgmma, unpipelined and pipelined by TMA,
// B^T read K-major through a shared_permute view, with the tensor maps the launcher would encode) and
// sm_80 (mma.sync, cp.async). A tile stored twice or never, or a stale accumulator, shows as a wrong value.
// With C's store carrying its TMA description, the tiles leave through TMA stores on sm_90a.
#include <cmath>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

constexpr int M = 150, N = 136, K = 72;  // 3 x 3 tiles, the last row and column partial; K tail of 8

// Runs the kernel over random A and B^T and checks C, which has one more row than the kernel knows of,
// filled with NaN: the store must not pass row M - 1.
void runAndCheck(SimRun& r) {
  std::vector<float> af = randomFloats(size_t(M) * K, 41), bf = randomFloats(size_t(N) * K, 42);
  std::vector<uint16_t> a(af.size()), bt(bf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(af[i])));
  for (size_t i = 0; i < bt.size(); ++i) bt[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(bf[i])));
  const uint16_t nan = 0x7e00;
  std::vector<uint16_t> c(size_t(M + 1) * N, nan);
  r.buffer("a_ptr", a);
  r.buffer("bt_ptr", bt);
  const uint64_t cb = r.buffer("c_ptr", c);
  r.param("M", M);
  r.param("N", N);
  r.param("K", K);
  r.encodeTensorMaps();
  ASSERT_EQ(r.sim.run(), "");
  std::vector<uint16_t> got = r.read<uint16_t>(cb);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = 0;
      for (int k = 0; k < K; ++k)
        want += ir::fromBits(ir::Scalar::F16, a[size_t(m * K + k)]).f * ir::fromBits(ir::Scalar::F16, bt[size_t(n * K + k)]).f;
      const double g = ir::fromBits(ir::Scalar::F16, got[size_t(m * N + n)]).f;
      ASSERT_NEAR(g, want, 1e-2 + 2e-3 * std::fabs(want)) << m << ", " << n;
    }
  for (int n = 0; n < N; ++n) EXPECT_EQ(got[size_t(M * N + n)], nan) << "column " << n << " past the last row";
}

TEST(CodegenSimPersistent, OneProgramWalksEveryTile) {
  for (auto [target, stages] : std::vector<std::pair<ptx::Target, int>>{
           {ptx::kSm90a, 1}, {ptx::kSm90a, 3}, {ptx::kSm80, 3}}) {
    SCOPED_TRACE("stages " + std::to_string(stages) + (target == ptx::kSm90a ? " sm_90a" : " sm_80"));
    SimRun r(lowerInput("matmul_persistent", 4, stages, target));
    EXPECT_GE(count(r.k.ptx, target == ptx::kSm90a ? "wgmma.mma_async" : "mma.sync"), 1);
    EXPECT_EQ(count(r.k.ptx, "cp.async.bulk.tensor") > 0, target == ptx::kSm90a && stages > 1);
    runAndCheck(r);
  }
}

// The same kernel with C's store carrying its TMA description, as sema now emits it (the input predates
// it): on sm_90a the tma_stores pass sends every tile through one shared buffer and a TMA store, the
// buffer reused tile after tile (a barrier before each local_store), the edge tiles clipped by the copy;
// on sm_80 the store stays a pointer store.
TEST(CodegenSimPersistent, TilesLeaveThroughTmaStores) {
  std::string text = inputText("matmul_persistent");
  // The store with its tile's coordinates (row, column); base, dims (M, N) and strides (N, 1) of C.
  const std::string store = "store %134, %112, %129";
  const std::string s = store + " {block = \"tensor_descriptor\"}";
  const size_t at = text.find(s);
  ASSERT_NE(at, std::string::npos) << s;
  text.replace(at, s.size(), store + ", %110, %111, %2, %M, %3, %3, %33 {block = \"tensor_descriptor\", tma = 2}");
  for (auto [target, stages] : std::vector<std::pair<ptx::Target, int>>{
           {ptx::kSm90a, 1}, {ptx::kSm90a, 3}, {ptx::kSm80, 3}}) {
    SCOPED_TRACE("stages " + std::to_string(stages) + (target == ptx::kSm90a ? " sm_90a" : " sm_80"));
    SimRun r(lowerText("matmul_persistent", text, 4, stages, target));
    const bool tma = target == ptx::kSm90a;
    EXPECT_EQ(count(r.k.ptx, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") > 0, tma);
    EXPECT_EQ(count(r.k.ptx, "st.global") > 0, !tma);
    runAndCheck(r);
  }
}

// With WARP_SPECIALIZE (matmul_persistent_ws: the same source, the flag on its tile loop): a producer
// warpgroup walks every tile's k loop issuing the TMA copies while 4 consumer warps run the wgmma and
// store the tiles; slot and phase run on from tile to tile (the mbarriers are initialised once), so the
// producer loads the next tile while the consumers store this one.
TEST(CodegenSimPersistent, WarpSpecializedTileLoop) {
  for (int stages : {2, 3}) {
    SCOPED_TRACE("stages " + std::to_string(stages));
    SimRun r(lowerInput("matmul_persistent_ws", 4, stages, ptx::kSm90a));
    EXPECT_EQ(r.k.info.numWarps, 8) << "a producer warpgroup beside the 4 consumer warps";
    EXPECT_EQ(count(r.k.ptx, "mbarrier.init"), 2 * stages) << "full and empty barriers, once";
    EXPECT_EQ(count(r.k.ptx, "bar.warp.sync"), 2) << "each consumer warp releases its slots";
    EXPECT_GE(count(r.k.ptx, "cp.async.bulk.tensor.2d.global.shared::cta"), 1) << "TMA stores by the consumers";
    r.sim.setStepLimit(8000000);
    runAndCheck(r);
  }
}

}  // namespace
}  // namespace kiln::lower::test
