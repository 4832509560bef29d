// The loop rewrite of the pipeline pass (pipeline.cpp), shared with the k-slice ordering of the dots in
// the loop (pipeline_mma.cpp). Internal to the pass.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/axis_info.h"
#include "assign/dot_layouts.h"
#include "layout/wgmma_shared.h"
#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "schedule/pipeline_loads.h"
#include "schedule/schedule.h"

namespace kiln::schedule::pipeline {

// One load the loop pipelines: its buffer of `stages` slots and, in the body, this iteration's slot
// (read) and the slot the copy for iteration i + stages - 1 fills (written: the one iteration i - 1 read).
struct PipelinedLoad {
  PipelineCandidate c;
  std::shared_ptr<const layout::LinearLayout> shared;  // the slot's layout: element offset -> coordinates
  int64_t align = 0;  // the buffer's alignment in bytes when it must start on more than 128 (wgmma's tiles)
  ir::Value* buffer = nullptr;
  ir::Value *readSlot = nullptr, *writeSlot = nullptr;
  ir::Value* readView = nullptr;  // what the dots read: readSlot, or its shared_permute (c.permute)
  ir::Value* whole = nullptr;  // a dot operand: the local_load of the whole slot that replaced its convert
  // A load the first driving dot reads: it carries that dot's first k-slice over the back edge, loaded
  // from the next slot before the last dot's last k-slice (dim: the operand's k dimension).
  int kDim = -1;
  int64_t kTile = 0;
  ir::Type sliceType;            // of that k-slice
  ir::Value* carried = nullptr;  // the body argument holding the slice
  ir::Value* next = nullptr;     // what the body yields for it
  // Copied with TMA (pipeline_tma.cpp) instead of cp.async: the box one copy moves and the swizzle,
  // and the index of the tensor map the kernel declares for it.
  bool tma = false;
  std::vector<int64_t> box;
  int swizzle = 0;
  int64_t map = -1;
  bool narrow = false;  // its cp.async copies would move less than 4 bytes: pipelined only by TMA
};

// How a load that feeds a wgmma dot through a slot of arrangement `tile` is copied with TMA, or nothing
// when it cannot be: on sm_90 and later, a tensor-descriptor load whose description (tma attributes)
// and coordinates the pipeline can use, rank 2 with the contiguous dim last (the map may have up to
// three dims before, a box of one element along each) and the slot's rows at most 256, its base 16-byte aligned and its row stride a multiple of 16 bytes as far as the
// specialization proves (else the launcher would have to refuse the launch: cp.async serves it).
struct TmaCopyPlan {
  std::vector<int64_t> box;
  int swizzle = 0;
};
std::optional<TmaCopyPlan> tmaCopyPlan(const PipelineCandidate& c, const layout::WgmmaTile& tile,
                                       const analysis::AxisInfoAnalysis& axis, const ir::Function& fn,
                                       const GpuContext& ctx);

// How a dot of the loop body is split, decided before any dot is: whether a dot is chained (and so its
// warp grid) depends on the other dots.
struct DotPlan {
  lower::MmaConfig cfg;
  bool chained = false;
};

class LoopRewrite {
 public:
  // `bytes`: the slots of every stage together (LoopPlan::bytes).
  LoopRewrite(ir::Op& forOp, const GpuContext& ctx, LoopLoads loads, std::vector<PipelinedLoad> pipelined,
              int stages, int64_t bytes);
  void run();

  // ---- for the k-slice ordering (pipeline_mma.cpp)
  ir::Builder& builder() { return b_; }
  // Issues the oldest copy waiting for a dot's k-slices; false when none waits.
  bool issueDeferredCopy();
  // What the driving dot does before the mmas of its last k-slice: the iteration's copies committed,
  // the next slot waited for, and the first k-slice of the next iteration's carried operands loaded.
  void synchronizeBeforeLastSlice();
  // How `dot` is split, or null when it stays a dot.
  const DotPlan* dotPlan(const ir::Op& dot) const;
  // The pipelined load whose whole-slot read is `v`, if any.
  PipelinedLoad* operandLoad(const ir::Value* v);
  // Removes the whole-slot read `v` when nothing reads it any more (a split dot read it by slices).
  void dropIfUnused(ir::Value* v);
  const GpuContext& context() const { return ctx_; }
  bool driven() const { return driver_ != nullptr; }
  // The wgmma dot whose group stays in flight into the next iteration (it only accumulates across
  // iterations), or null: every wgmma dot of the loop waits for its group at once.
  const ir::Op* asyncDot() const { return asyncDot_; }
  // The first of the driving dots (its loads carry a k-slice); only compared, it may be split already.
  const ir::Op* firstDot() const { return first_; }
  // Whether the loop takes the warp-specialized form (pipeline_specialized.cpp), and there, what the
  // consumers do where the refill's barrier stood: from the second iteration on, each warp arrives on
  // the empty mbarrier of the slot iteration i - 1 read.
  bool specialized() const { return wsRoot_ != nullptr; }
  void releasePreviousSlot();

 private:
  struct CopyOperands {
    ir::Value *ptr, *mask;
    std::vector<ir::Value*> coords;  // a TMA copy's coordinates (then ptr is null, and mask whether to copy)
  };
  // The pointer and mask of load `c` for the iteration `ahead` steps past `ivBase`, with the advancing
  // values taken from their initial values (fromInits) or their values in this iteration; the mask
  // also says whether that iteration runs.
  CopyOperands cloneAt(const PipelineCandidate& c, ir::Value* ivBase, bool fromInits, int64_t ahead, bool tma);
  ir::Value* advanced(const Advancing& a, ir::Value* from, int64_t ahead);
  ir::Value* scalarOf(const ir::Value* uniform);
  // The copy of load p for the iteration `ahead` past ivBase into `slot`; a TMA copy completes on the
  // mbarrier `bar` (the slot's).
  void copy(PipelinedLoad& p, ir::Value* slot, ir::Value* bar, ir::Value* ivBase, bool fromInits, int64_t ahead);
  // ---- TMA (pipeline_tma.cpp): every pipelined load copied by TMA, each slot's fill counted on an mbarrier
  bool tma() const { return !pipelined_.empty() && pipelined_.front().tma; }
  void declareTensorMaps();      // a tensor_map at the kernel's entry per load (shared when equal)
  void initSlotBarriers();       // the mbarriers, one per slot, before the prologue's copies
  ir::Value* slotBarrier(ir::Value* index);
  void drainTma();               // after the loop: wait for the copies issued past its end
  void prologue();
  void rewriteBody();
  void epilogue();
  ir::Value* i32(int64_t v);
  // A slot of p's buffer as its dots see it: through a shared_permute when the load is permuted first.
  ir::Value* viewOf(const PipelinedLoad& p, ir::Value* slot);
  // A slot index and (TMA) its mbarrier's phase parity, or null; advance: those of the next iteration.
  struct SlotAndPhase {
    ir::Value *slot, *phase;
  };
  SlotAndPhase advance(SlotAndPhase at);
  ir::Value* nextSlot();
  ir::Value* sliceOf(PipelinedLoad& p, ir::Value* slot);  // the first k-slice of the carried operand
  void eraseDeadSlices();
  // Drops the loop-carried values the loop only advances (pointer tiles whose loads TMA replaced).
  void dropUnreadAdvancing();
  // ---- the warp-specialized form (pipeline_specialized.cpp)
  // The top-level loop asking for warp specialization that is this loop or directly holds it, when the
  // loop can take that form: every load by TMA, its one wgmma dot kept in flight, sm_90a, whole warpgroups.
  // slotBytes: its `stages` slots' bytes.
  static ir::Op* specializationRoot(ir::Op& forOp, const GpuContext& ctx, bool tmaCopies, bool asyncDot,
                                    int64_t slotBytes, int stages);
  void initEmptyBarriers();            // one per slot, one arrival per warp, beside the full ones
  void carrySlotAcrossRoot();          // the slot and phase start where the root's previous iteration left them
  void issueSpecializedCopies();       // wait for the slot's previous round to be released, copy iteration i
  void releaseLastSlot();              // after the loop: the last iteration's slot, when it ran
  ir::Value* emptyBarrier(ir::Value* index);
  // In an `if` on `cond`: each warp arrives on the empty barrier of the slot slotIndex builds there.
  void releaseIf(ir::Value* cond, const std::function<ir::Value*(ir::Builder&)>& slotIndex);
  // (slot - 1) mod S: the slot of the iteration before the one that reads `slot`.
  ir::Value* slotBefore(ir::Builder& b, ir::Value* slot) const;

  ir::Op& for_;
  ir::Block& body_;
  const GpuContext& ctx_;
  LoopLoads loads_;
  std::vector<PipelinedLoad> pipelined_;
  int stages_;
  int64_t bytes_;
  ir::Builder b_;
  const ir::Op* driver_ = nullptr;  // the dot whose last k-slice synchronises the iteration
  const ir::Op* first_ = nullptr;   // the first dot reading a pipelined load, when driven
  ir::Value* slot_ = nullptr;       // i mod stages (a body argument)
  ir::Value* phase_ = nullptr;      // TMA: (i / stages) & 1, the parity of slot i mod stages' mbarrier (a body argument)
  ir::Value* bars_ = nullptr;       // TMA: the slots' mbarriers
  ir::Value* nextPhase_ = nullptr;  // TMA: what the body yields for phase_
  ir::Value* writeBar_ = nullptr;   // TMA: the mbarrier of the slot the body's copies fill
  ir::Value* next_ = nullptr;       // (i + 1) mod stages, once computed
  const ir::Op* asyncDot_ = nullptr;
  ir::Op* wsRoot_ = nullptr;        // specialized: the top-level loop that asks for it
  ir::Value* empty_ = nullptr;      // specialized: the slots' empty mbarriers
  ir::Value* previous_ = nullptr;   // (i - 1) mod S, in the body
  int64_t asyncResult_ = -1;        // the loop result the async dot's accumulator leaves by
  bool readsThroughDescriptors() const;  // some slot is read by wgmma (the async proxy)
  std::deque<PipelinedLoad*> deferred_;  // copies waiting for the next k-slice
  std::vector<std::pair<const ir::Op*, DotPlan>> dots_;  // the dots split into k-slice mmas
};

// Splits `dot` (top level of the loop body) into one `mma` per k-slice in split_mma's order, each slice's
// operands read from the slot or cut from registers, and between the slices the loop's deferred copies
// and, before the last slice of the driving dot, its synchronisation.
void splitDot(LoopRewrite& loop, ir::Op& dot, const DotPlan& plan, bool drives);
// Replaces `dot` (top level of the loop body, on wgmma) by one `mma` reading its pipelined operands from
// their slots through descriptors, and its wait: when the loop keeps its group in flight
// (loop.asyncDot()), `mma_wait {pending = 1}` and a barrier after it (every warpgroup is done with the
// previous iteration's slot, which the copies then refill), else the result through
// `mma_wait {pending = 0}`.
void issueWgmma(LoopRewrite& loop, ir::Op& dot, const DotPlan& plan);
// How splitDot (or issueWgmma) would take `dot`: on mma.sync with an f32 or integer accumulator, or on
// wgmma; else nothing.
std::optional<DotPlan> planDot(const ir::Op& dot, const GpuContext& ctx);

}  // namespace kiln::schedule::pipeline
