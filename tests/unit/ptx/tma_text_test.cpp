// Exact-text tests of the TMA instructions (ptx/tma.h): the tensor-map parameter after the others, its
// generic address, the expect-tx arrival, the bulk tensor copies both ways and the bulk groups, each in the form PTX-NOTES §10-11 found
// ptxas to accept; none of them exists below sm_90.
#include "ptx/tma.h"

#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

TEST(PtxTma, TensorMapParameterAndItsAddress) {
  Entry e{"k", kSm90a};
  e.addParam("x", ParamType::Ptr, 16);
  EXPECT_EQ(addTensorMapParam(e, 0), "k_tmap0");
  const Reg map = tensorMapAddress(e, "k_tmap0");
  EXPECT_EQ(map.cls, RegClass::B64);
  prefetchTensorMap(e, "k_tmap0");
  EXPECT_EQ(bodyOf(e),
            "    mov.u64 %rd0, k_tmap0;\n"
            "    cvta.param.u64 %rd1, %rd0;\n"
            "    prefetch.param.tensormap [k_tmap0];\n");
  const std::string text = e.str();
  EXPECT_NE(text.find("    .param .u64 .ptr .global .align 16 k_x,\n    .param .align 128 .b8 k_tmap0[128]\n)"),
            std::string::npos)
      << text;
  EXPECT_THROW(e.loadParam(1), InternalError);
}

TEST(PtxTma, ArriveExpectingBytesThenCopyBoxes) {
  Entry e{"k", kSm90a};
  Reg smem = e.reg(RegClass::B32), bar = e.reg(RegClass::B32), map = e.reg(RegClass::B64);
  Reg x = e.reg(RegClass::B32), y = e.reg(RegClass::B32), first = e.reg(RegClass::Pred);
  mbarrierArriveExpectTx(e, bar, 16384, when(first));
  tensorLoad(e, smem, map, {x, y}, bar, when(first));
  tensorLoad(e, smem, map, {x}, bar);
  EXPECT_EQ(bodyOf(e),
            "    @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 16384;\n"
            "    @%p0 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r0], "
            "[%rd0, {%r2, %r3}], [%r1];\n"
            "    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r0], "
            "[%rd0, {%r2}], [%r1];\n");
  EXPECT_THROW(tensorLoad(e, smem, map, {}, bar), InternalError);
  EXPECT_THROW(mbarrierArriveExpectTx(e, bar, int64_t(1) << 20), InternalError);
}

TEST(PtxTma, StoreBoxesAsOneBulkGroupThenWaitForTheirReads) {
  Entry e{"k", kSm90a};
  Reg smem = e.reg(RegClass::B32), map = e.reg(RegClass::B64);
  Reg x = e.reg(RegClass::B32), y = e.reg(RegClass::B32), first = e.reg(RegClass::Pred);
  tensorStore(e, map, {x, y}, smem, when(first));
  tensorStore(e, map, {x}, smem);
  bulkCommitGroup(e, when(first));
  bulkWaitGroupRead(e, 0, when(first));
  bulkWaitGroupRead(e, 2);
  EXPECT_EQ(bodyOf(e),
            "    @%p0 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd0, {%r1, %r2}], [%r0];\n"
            "    cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd0, {%r1}], [%r0];\n"
            "    @%p0 cp.async.bulk.commit_group;\n"
            "    @%p0 cp.async.bulk.wait_group.read 0;\n"
            "    cp.async.bulk.wait_group.read 2;\n");
  EXPECT_THROW(tensorStore(e, map, {}, smem), InternalError);
  EXPECT_THROW(bulkWaitGroupRead(e, -1), InternalError);
}

TEST(PtxTma, NoneBelowSm90) {
  Entry e{"k", kSm80};
  Reg r = e.reg(RegClass::B32), m = e.reg(RegClass::B64);
  EXPECT_THROW(addTensorMapParam(e, 0), InternalError);
  EXPECT_THROW(mbarrierArriveExpectTx(e, r, 16), InternalError);
  EXPECT_THROW(tensorLoad(e, r, m, {r}, r), InternalError);
  EXPECT_THROW(prefetchTensorMap(e, "k_tmap0"), InternalError);
  EXPECT_THROW(tensorStore(e, m, {r}, r), InternalError);
  EXPECT_THROW(bulkCommitGroup(e), InternalError);
  EXPECT_THROW(bulkWaitGroupRead(e, 0), InternalError);
}

}  // namespace
}  // namespace kiln::ptx::test
