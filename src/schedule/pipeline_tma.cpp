// The pipeline pass with TMA (see pipeline.cpp for the schedule): on sm_90, a loop whose pipelined loads
// are all tensor-descriptor tiles feeding wgmma fills its slots with `tma_load`s instead of cp.async.
// One thread issues each copy; each slot has an mbarrier that completes a phase when the slot's bytes
// have landed, so
//
//   prologue     tensor_map at the kernel's entry; mbarrier_init of each slot's barrier (one arrival per
//                load), a barrier; the
//                copies of iterations 0 .. S-2 into slots 0 .. S-2
//   iteration i  mbarrier_wait (slot i mod S's barrier, parity (i / S) & 1); the dots read the slot;
//                once every thread is done with slot (i - 1) mod S (the wgmma wait's barrier, or one
//                after the mbarrier wait), the copy of iteration i + S - 1 into it
//   after        the waits for the S - 1 phases begun past the end, a barrier
//
// A copy for an iteration past the end is not issued: its thread arrives on the slot's mbarrier without
// bytes (tma_load's `predicated` form), so every phase completes and the drain knows which to wait for,
// at no cost (on the H200, copies of boxes wholly outside the tensor took about 2.5 us to complete at the
// end of every program of a short-K matmul; bench/results/2026-12-04-h200-tma-pointer-tiles.md). No
// address tile is computed in the loop any more: the coordinates replace it.
#include <algorithm>

#include "layout/named_layouts.h"
#include "schedule/pipeline_rewrite.h"
#include "schedule/tma_maps.h"

namespace kiln::schedule::pipeline {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

std::optional<TmaCopyPlan> tmaCopyPlan(const PipelineCandidate& c, const layout::WgmmaTile& tile,
                                       const analysis::AxisInfoAnalysis& axis, const ir::Function& fn,
                                       const GpuContext& ctx) {
  if (ctx.target.sm < 90 || !c.tmaCoords) return std::nullopt;
  const ir::Op& load = *c.load;
  const Type& t = load.result(0)->type;
  const size_t rank = size_t(t.rank());
  if (rank != 2 || tile.order[0] != 1 || tile.rows() > 256 || ir::bitWidth(t.elem) < 8) return std::nullopt;
  const std::optional<std::vector<TensorPiece>> pieces = tensorPieces(load);
  // (a guarded load's kernel checks the strides axis info cannot prove aligned: tma_versioning.h)
  std::vector<size_t> checked;
  const bool guarded = load.intAttrOr("guarded", 0) != 0;
  if (!pieces || !tmaEncodable(*pieces, ir::bitWidth(t.elem) / 8, axis, guarded ? &checked : nullptr)) return std::nullopt;
  // (a box of one element along each dim of the map the tile does not span: tma_versioning's outer dims)
  std::vector<int64_t> box(size_t(load.intAttr("tma")) - rank, 1);
  box.insert(box.end(), {tile.rows(), tile.elemsPerRow()});
  return TmaCopyPlan{box, tile.swizzleBytes()};
}

void LoopRewrite::declareTensorMaps() {
  ir::Function& fn = *for_.parent->function();
  for (PipelinedLoad& p : pipelined_)  // tmaCopyPlan took only loads whose pieces the launcher can encode
    p.map = declareTensorMap(fn, *tensorPieces(*p.c.load), p.box, p.swizzle, p.c.load->intAttrOr("guarded", 0) != 0,
                             p.c.load->loc);
}

void LoopRewrite::initSlotBarriers() {
  const Type bars = Type::shared({1}, Scalar::I64, stages_,
                                 std::make_shared<const layout::LinearLayout>(layout::sharedPlain({1}, {0})));
  bars_ = b_.create1(Opcode::SharedAlloc, {}, bars, {ir::Attr{"pipelined", int64_t(1)}}, for_.loc);
  // Each tma_load arrives once (and adds its bytes): a slot's phase completes when every load of the
  // iteration arrived and all their bytes landed.
  const int64_t arrivals = int64_t(pipelined_.size());
  for (int s = 0; s < stages_; ++s)
    b_.create(Opcode::MbarrierInit, {slotBarrier(i32(s))}, {}, {ir::Attr{"count", arrivals}}, for_.loc);
  if (specialized()) initEmptyBarriers();
  b_.create(Opcode::Barrier, {}, {}, {}, for_.loc);  // the barriers initialised, for every thread
}

Value* LoopRewrite::slotBarrier(Value* index) {
  return b_.create1(Opcode::SharedSlot, {bars_, index}, bars_->type.withSlots(1), {}, for_.loc);
}

void LoopRewrite::drainTma() {
  // The loop's results hold the slot and phase of iteration n (the first not run): the copies of
  // iterations n .. n + S - 2 are in flight, in consecutive slots.
  const unsigned first = slot_->index - 1;  // body argument k is the loop's result k - 1
  SlotAndPhase at{for_.result(first), for_.result(first + 1)};
  for (int j = 0; j + 1 < stages_; ++j) {
    b_.create(Opcode::MbarrierWait, {slotBarrier(at.slot), at.phase}, {}, {}, for_.loc);
    if (j + 2 < stages_) at = advance(at);
  }
}

}  // namespace kiln::schedule::pipeline
