// The dots of a pipelined loop (see pipeline.cpp): each dot on mma.sync becomes one `mma` per k-slice,
// in the order of split_mma.cpp (createKSliceMmas), its pipelined operands read from their slot one slice
// at a time. Between the slices the copies of a later iteration issue, one per slice, while the mmas
// already issued run; before the last slice of the driving dot the iteration synchronises.
// (Synchronising two slices before the end, with B ordered n-tile first, held two more slices of
// fragments live and ran at 415-424 TFLOP/s against 455 at 4096^3, H200.)
// On sm_90a a dot on wgmma stays one `mma` that reads its slots through matrix descriptors, one commit
// group per iteration (issueWgmma).
#include <array>
#include <memory>

#include "assign/dot_layouts.h"
#include "schedule/pipeline_rewrite.h"
#include "schedule/split_mma.h"

namespace kiln::schedule::pipeline {

using ir::Opcode;
using ir::Type;
using ir::Value;

std::optional<DotPlan> planDot(const ir::Op& dot, const GpuContext& ctx) {
  if (dot.opcode != Opcode::Dot) return std::nullopt;
  std::optional<lower::MmaConfig> cfg = lower::mmaConfig(dot, ctx.numWarps, ctx.target);
  // An f16 accumulator sums every k in f32 and is rounded once (docs/semantics.md): one dot.
  if (!cfg || dot.operand(2)->type.elem == ir::Scalar::F16) return std::nullopt;
  if (cfg->wgmma) return DotPlan{*cfg, false};
  return DotPlan{*cfg, lower::isChainedDot(dot)};
}

void issueWgmma(LoopRewrite& loop, ir::Op& dot, const DotPlan& plan) {
  ir::Builder& b = loop.builder();
  auto operand = [&](unsigned i) -> Value* {
    Value* v = dot.operand(i);
    PipelinedLoad* p = loop.operandLoad(v);
    return p && p->align > 0 ? p->readView : v;  // a slot in wgmma's arrangement: read by descriptors
  };
  std::vector<ir::Attr> attrs{
      ir::Attr{"warps", std::vector<int64_t>{plan.cfg.warpsPerCTA[0], plan.cfg.warpsPerCTA[1]}},
      ir::Attr{"wgmma", int64_t(1)}};
  Value* acc = b.create1(Opcode::Mma, {operand(0), operand(1), dot.operand(2)}, dot.operand(2)->type, attrs, dot.loc);
  Value* result = acc;
  if (&dot == loop.asyncDot()) {  // the previous iteration's group is done everywhere: its slots may be refilled
    b.create(Opcode::MmaWait, {}, {}, {ir::Attr{"pending", int64_t(1)}}, dot.loc);
    if (loop.specialized()) loop.releasePreviousSlot();  // the producer refills it
    else b.create(Opcode::Barrier, {}, {}, {}, dot.loc);
  } else {
    result = b.create1(Opcode::MmaWait, {acc}, acc->type, {ir::Attr{"pending", int64_t(0)}}, dot.loc);
  }
  ir::Block& body = *dot.parent;
  ir::replaceAllUses(body, dot.result(0), result);
  std::array<Value*, 2> operands{dot.operand(0), dot.operand(1)};
  body.remove(&dot);
  for (Value* v : operands) loop.dropIfUnused(v);
}

void splitDot(LoopRewrite& loop, ir::Op& dot, const DotPlan& plan, bool drives) {
  const int64_t kTile = plan.cfg.kTile, numK = dot.operand(0)->type.shape[1] / kTile;
  ir::Builder& b = loop.builder();
  auto operandSlice = [&](int i, int64_t j) -> Value* {
    Value* v = dot.operand(unsigned(i));
    const int64_t dim = i == 0 ? 1 : 0;
    const Type t = kSliceType(dot, plan.cfg, i);
    if (PipelinedLoad* p = loop.operandLoad(v)) {
      if (j == 0 && p->carried && &dot == loop.firstDot()) return p->carried;
      return b.create1(Opcode::LocalLoad, {p->readView}, t,
                       {ir::Attr{"slice_dim", dim}, ir::Attr{"slice_offset", j * kTile}}, dot.loc);
    }
    return b.create1(Opcode::ExtractSlice, {v}, t, {ir::Attr{"dim", dim}, ir::Attr{"offset", j * kTile}}, dot.loc);
  };
  // Between the slices, the copies of a later iteration; before the driving dot's last slice, the
  // iteration's synchronisation.
  auto beforeMma = [&](int64_t ki) {
    if (ki > 0) loop.issueDeferredCopy();
    if (drives && ki == numK - 1) loop.synchronizeBeforeLastSlice();
  };
  Value* acc = createKSliceMmas(b, dot, plan.cfg, plan.chained, operandSlice, beforeMma);
  ir::Block& body = *dot.parent;
  ir::replaceAllUses(body, dot.result(0), acc);
  std::array<Value*, 2> operands{dot.operand(0), dot.operand(1)};
  body.remove(&dot);
  for (Value* v : operands) loop.dropIfUnused(v);
}

}  // namespace kiln::schedule::pipeline
