// Exact-text tests of the mbarrier and setmaxnreg instructions (ptx/sync.h).
#include "ptx/sync.h"

#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

TEST(PtxSync, Mbarriers) {
  Entry e{"k", kSm90a};
  Reg bar = e.reg(RegClass::B32), phase = e.reg(RegClass::B32), first = e.reg(RegClass::Pred);
  mbarrierInit(e, bar, 128, when(first));
  mbarrierExpectTx(e, bar, 4096, when(first));
  mbarrierArrive(e, bar);
  mbarrierWait(e, bar, phase);
  EXPECT_EQ(bodyOf(e),
            "    @%p0 mbarrier.init.shared::cta.b64 [%r0], 128;\n"
            "    @%p0 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r0], 4096;\n"
            "    mbarrier.arrive.shared::cta.b64 _, [%r0];\n"
            "$L0_mbarrier_wait:\n"
            "    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r0], %r1;\n"
            "    @!%p1 bra $L0_mbarrier_wait;\n");
}

TEST(PtxSync, Sm80WaitsWithTestWaitAndHasNoExpectTx) {
  Entry e{"k", kSm80};
  Reg bar = e.reg(RegClass::B32), phase = e.reg(RegClass::B32);
  mbarrierWait(e, bar, phase);
  EXPECT_EQ(bodyOf(e),
            "$L0_mbarrier_wait:\n"
            "    mbarrier.test_wait.parity.shared::cta.b64 %p0, [%r0], %r1;\n"
            "    @!%p0 bra $L0_mbarrier_wait;\n");
  EXPECT_THROW(mbarrierExpectTx(e, bar, 16), InternalError);
}

TEST(PtxSync, RegisterBudgets) {
  Entry e{"k", kSm90a};
  setMaxRegisters(e, false, 40);
  setMaxRegisters(e, true, 232);
  EXPECT_EQ(bodyOf(e),
            "    setmaxnreg.dec.sync.aligned.u32 40;\n"
            "    setmaxnreg.inc.sync.aligned.u32 232;\n");
  EXPECT_THROW(setMaxRegisters(e, true, 20), InternalError);
  EXPECT_THROW(setMaxRegisters(e, true, 233), InternalError);
}

}  // namespace
}  // namespace kiln::ptx::test
