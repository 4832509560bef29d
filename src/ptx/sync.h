// Synchronisation beyond bar.sync: mbarriers (PTX ISA "mbarrier", PTX-NOTES §11) and the register
// budgets of warp partitions (setmaxnreg, §12). Each helper emits the instructions named in its comment.
#pragma once
#include <cstdint>

#include "ptx/builder.h"

namespace kiln::ptx {

// mbarrier.init.shared::cta.b64 [bar], count; in the threads `guard` selects (one thread, usually).
void mbarrierInit(Entry& e, Reg bar, int64_t count, Guard guard = {});
// mbarrier.arrive.shared::cta.b64 _, [bar];  every executing thread arrives once.
void mbarrierArrive(Entry& e, Reg bar, Guard guard = {});
// cp.async.mbarrier.arrive.noinc.shared.b64 [bar];  the executing thread arrives once every cp.async
// it issued before has landed; the arrival counts against the barrier's init count (.noinc).
void cpAsyncMbarrierArrive(Entry& e, Reg bar);
// mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes;  the current phase also waits for
// `bytes` of asynchronous transactions (sm_90).
void mbarrierExpectTx(Entry& e, Reg bar, int64_t bytes, Guard guard = {});
// Until the phase of parity `phase` (.b32, low bit) has completed: a loop on
// mbarrier.try_wait.parity.shared::cta.b64 (sm_90; it may time out, so it loops) or on
// mbarrier.test_wait.parity.shared::cta.b64 (sm_80, which has no try_wait).
void mbarrierWait(Entry& e, Reg bar, Reg phase);
// setmaxnreg.{inc,dec}.sync.aligned.u32 n;  (sm_90a) every thread of the warpgroup executes it.
void setMaxRegisters(Entry& e, bool increase, int64_t n);

}  // namespace kiln::ptx
