// mbarrier and setmaxnreg instructions (ptx/sync.h).
#include "ptx/sync.h"

#include "support/diagnostic.h"

namespace kiln::ptx {

void mbarrierInit(Entry& e, Reg bar, int64_t count, Guard guard) {
  e.inst("mbarrier.init.shared::cta.b64", {addr(bar), count}, guard);
}

void mbarrierArrive(Entry& e, Reg bar, Guard guard) {
  e.inst("mbarrier.arrive.shared::cta.b64", {sym("_"), addr(bar)}, guard);
}

void cpAsyncMbarrierArrive(Entry& e, Reg bar) {
  e.inst("cp.async.mbarrier.arrive.noinc.shared.b64", {addr(bar)});
}

void mbarrierExpectTx(Entry& e, Reg bar, int64_t bytes, Guard guard) {
  if (e.target().sm < 90) throw InternalError({}, "mbarrier.expect_tx needs sm_90");
  e.inst("mbarrier.expect_tx.relaxed.cta.shared::cta.b64", {addr(bar), bytes}, guard);
}

void mbarrierWait(Entry& e, Reg bar, Reg phase) {
  Label top = e.newLabel("mbarrier_wait");
  Reg done = e.reg(RegClass::Pred);
  e.label(top);
  const char* wait = e.target().sm >= 90 ? "mbarrier.try_wait.parity.shared::cta.b64" : "mbarrier.test_wait.parity.shared::cta.b64";
  e.inst(wait, {done, addr(bar), phase});
  e.bra(top, unless(done));
}

void setMaxRegisters(Entry& e, bool increase, int64_t n) {
  if (n < 24 || n > 256 || n % 8) throw InternalError({}, "setmaxnreg takes a multiple of 8 from 24 to 256");
  e.inst(increase ? "setmaxnreg.inc.sync.aligned.u32" : "setmaxnreg.dec.sync.aligned.u32", {n});
}

}  // namespace kiln::ptx
