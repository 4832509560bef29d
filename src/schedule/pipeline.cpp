// pipeline: software pipelining of a `for` loop's loads with cp.async, as GPU IR (docs/gpu-ir.md).
// Unpipelined, each iteration loads its tiles from global memory and waits for the full latency.
// Pipelined, each such load owns S slots of a shared buffer (S = the loop's num_stages, or the kernel's)
// and the copy for iteration i + S - 1 runs while iteration i reads its own slot:
//
//   prologue     copies of iterations 0 .. S-2 into slots 0 .. S-2, one commit group per iteration
//   iteration i  async_wait {S-2}, barrier (iteration i's group landed, every thread's reads of the
//                slot iteration i - 1 used are done); the load becomes a local_load of slot i mod S;
//                the copy of iteration i + S - 1 into slot (i - 1) mod S; async_commit at the end
//   after        async_wait {0}, barrier (the slots are free again)
//
// The copy for a later iteration is the load's pointer and mask computed again (the ops they depend on,
// cloned) with the induction variable and the values the loop advances by a fixed step moved ahead; its
// mask is off for iterations past the end. Masked-off elements are zero-filled, so a load that feeds
// tl.dot pipelines only when `other` is absent or zero. Loads that feed tl.dot pipeline in every loop;
// others only where the loop asks for it (tl.range(num_stages=)), as in Triton.
//
// In a loop whose loads all feed dots at the top of its body, the last of those dots drives the
// iteration instead (pipeline_mma.cpp): the wait and barrier move before its last k-slice and the
// first dot's first k-slice of the next iteration is loaded there and carried over the back edge.
// The pass's barriers order every access to its slots; its buffers say so (`pipelined`), and
// insert_barriers leaves them alone.
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "analysis/access_plan.h"
#include "analysis/axis_info.h"
#include "assign/dot_layouts.h"
#include "layout/register_parts.h"
#include "layout/scratch_layout.h"
#include "layout/wgmma_shared.h"
#include "schedule/pipeline_rewrite.h"
#include "schedule/stage_operands.h"
#include "schedule/lane_reach.h"
#include "schedule/tma_versioning.h"
#include "support/diagnostic.h"

namespace kiln::schedule {

namespace {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;
using layout::LinearLayout;

int elemBytes(Scalar t) { return t == Scalar::I1 ? 1 : ir::bitWidth(t) / 8; }

// The dim along which a layout's first register (or, with one register, lane) bit moves: the
// contiguous dim of its loads, or -1.
int fastestDim(const LinearLayout& l) {
  for (std::string_view in : {layout::kRegister, layout::kLane})
    for (const layout::InDim& d : l.ins())
      if (d.name == in)
        for (const layout::Basis& b : d.bases)
          for (size_t i = 0; i < b.size(); ++i)
            if (b[i] != 0) return int(i);
  return -1;
}

// The slot arrangement of a load that feeds a wgmma dot as operand a or b (read there through matrix
// descriptors): wgmma's swizzled tile, contiguous along the dim the load's registers run along (so the
// copies stay 16 bytes wide), or for a TMA copy along the tensor's contiguous dim, as TMA writes the box:
// a `tma` load's last, or `contiguous` for a pointer load about to be copied so (a row stride axis info
// cannot prove aligned leaves the registers running along the rows). Nothing when no dot on wgmma reads
// it or the tile has no such arrangement,
// and for the types wgmma reads K-major only (tf32, fp8, 8-bit integers) when the load runs along M or
// N: the slot is then an ordinary one and the dot stages the operand K-major itself. (An f32 slot holds
// the values as loaded; wgmma reads them truncated to tf32, which is the dot's meaning.)
// The slot holds the tile as loaded: through a permute (`b.T`), the dot's K is the load's other dim.
std::optional<layout::WgmmaTile> wgmmaSlot(const PipelineCandidate& c, const GpuContext& ctx,
                                           std::optional<int> contiguous = std::nullopt) {
  if (!c.convert) return std::nullopt;
  const Value* operand = c.convert->result(0);
  for (const auto& op : c.convert->parent->ops) {
    if (op->opcode != Opcode::Dot || (op->operand(0) != operand && op->operand(1) != operand)) continue;
    std::optional<lower::MmaConfig> cfg = lower::mmaConfig(*op, ctx.numWarps, ctx.target);
    if (!cfg || !cfg->wgmma) return std::nullopt;
    const Type& t = c.load->result(0)->type;
    const int fast = contiguous ? *contiguous : c.load->hasAttr("tma") ? t.rank() - 1 : fastestDim(*t.layout);
    if (fast < 0 || t.rank() != 2) return std::nullopt;
    const ptx::WgmmaInput in = *lower::wgmmaInput(t.elem);
    int kDim = op->operand(0) == operand ? 1 : 0;
    if (c.permute) kDim = int(c.permute->listAttr("order").at(size_t(kDim)));
    if (!ptx::wgmmaTransposes(in) && fast != kDim) return std::nullopt;
    layout::WgmmaTile tile{t.shape, {fast, 1 - fast}, elemBytes(t.elem)};
    if (!tile.swizzleBytes() || tile.rows() < 8) return std::nullopt;
    return tile;
  }
  return std::nullopt;
}
// A type of what the dots read (through the candidate's permute, if any) seen in the load's dims.
Type loadCoordinates(const PipelineCandidate& c, const Type& read) {
  if (!c.permute) return read;
  const std::vector<int64_t>& order = c.permute->listAttr("order");
  std::vector<int64_t> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) inverse[size_t(order[i])] = int64_t(i);
  return read.permuted(inverse);
}

bool wordSized(Scalar t) { return t != Scalar::I1 && (ir::bitWidth(t) == 32 || ir::bitWidth(t) == 64); }

struct LoopPlan {
  std::vector<pipeline::PipelinedLoad> loads;
  int stages = 0;
  int64_t bytes = 0;  // every slot of every load
};

// Which candidates pipeline and how deep, or nothing: each needs a layout holding distinct elements in
// its registers (cp.async copies what a register holds) and copies of 4 to 16 bytes.
std::optional<LoopPlan> planLoop(const ir::Op& forOp, const LoopLoads& loads, const analysis::AxisInfoAnalysis& axis,
                                 const ir::Function& fn, const GpuContext& ctx, int64_t reserved) {
  int stages = pipelineStages(forOp, ctx.numStages);
  if (stages < 2 || ctx.target.sm < 80 || loads.loads.empty() || !wordSized(forOp.operand(0)->type.elem))
    return std::nullopt;
  for (const Advancing& a : loads.advancing)
    if (!wordSized(a.step->type.elem) || (!a.pointer && !wordSized(a.arg->type.elem))) return std::nullopt;

  LoopPlan plan;
  for (const PipelineCandidate& c : loads.loads) {
    const Value* res = c.load->result(0);
    const LinearLayout& from = *res->type.layout;
    const int bytes = elemBytes(res->type.elem);
    layout::UniqueRegisters src = layout::uniqueRegisters(from);
    layout::UniqueRegisters dst = c.convert ? layout::uniqueRegisters(*loadCoordinates(c, c.convert->result(0)->type).layout) : src;
    bool distinct = int64_t(src.original.size()) == layout::inDimSize(from, layout::kRegister);
    for (size_t i = 0; distinct && i < src.original.size(); ++i) distinct = src.original[i] == int32_t(i);
    if (!distinct) continue;
    // A wgmma operand's slot has the tile wgmma reads; any other slot the best-scored scratch tile.
    std::optional<layout::WgmmaTile> tile = wgmmaSlot(c, ctx);
    layout::ScratchPlan scratch = tile ? layout::planWithShared(layout::wgmmaShared(*tile), src.compact, src.compact, bytes)
                                       : layout::planScratch(src.compact, dst.compact, bytes);
    const Value* mask = c.load->numOperands() > 1 ? c.load->operand(1) : nullptr;
    std::optional<pipeline::TmaCopyPlan> tma = tile ? pipeline::tmaCopyPlan(c, *tile, axis, fn, ctx) : std::nullopt;
    int64_t vec = std::min<int64_t>(scratch.storeVec, int64_t(analysis::planAccess(axis, c.load->operand(0), mask, from).vec));
    while (vec * bytes > 16) vec /= 2;
    if (vec * bytes < 4 && !tma) continue;  // cp.async moves 4, 8 or 16 bytes; TMA whole boxes
    pipeline::PipelinedLoad p;
    p.c = c;
    p.shared = std::make_shared<const LinearLayout>(tile ? layout::wgmmaShared(*tile) : std::move(scratch.shared));
    if (tile) p.align = 8 * tile->swizzleBytes();
    if (tma) {
      p.tma = true;
      p.box = tma->box;
      p.swizzle = tma->swizzle;
      p.narrow = vec * bytes < 4;
    }
    plan.loads.push_back(std::move(p));
  }
  // TMA for all of the loop's copies or for none: one kind of completion to wait for. Without TMA, a
  // load whose copies would move less than 4 bytes stays unpipelined.
  if (!std::all_of(plan.loads.begin(), plan.loads.end(), [](const pipeline::PipelinedLoad& p) { return p.tma; })) {
    std::erase_if(plan.loads, [](const pipeline::PipelinedLoad& p) { return p.narrow; });
    for (pipeline::PipelinedLoad& p : plan.loads) p.tma = false;
  }
  auto slotBytes = [](const pipeline::PipelinedLoad& p) {
    return Type::shared(p.c.load->result(0)->type.shape, p.c.load->result(0)->type.elem, 1, p.shared).slotStride();
  };
  // A load that feeds no dot gains from prefetching only while its slots stay small: a memory-bound
  // kernel needs many blocks per SM, and shared memory is what limits them (softmax rows of 4096 fp32 in
  // four 16 KB slots ran at 74% of the copy bandwidth, against 79% unpipelined; rows of 1024 in four
  // 4 KB slots went from 47% to 58%, H200). So those take at most kMaxPrefetchBytes of slots. Nor do
  // registers serve better: prefetching those 4096-wide rows a row ahead into registers took the kernel
  // from 39 to 72 registers, 3 programs per SM instead of 4, and from 81% / 90% to 74% / 82% (4096 and
  // 32768 rows, H200); so a larger tile is not prefetched at all.
  constexpr int64_t kMaxPrefetchBytes = 16 * 1024;
  std::erase_if(plan.loads, [&](const pipeline::PipelinedLoad& p) {
    return !p.c.convert && slotBytes(p) * 2 > kMaxPrefetchBytes;
  });
  if (plan.loads.empty()) return std::nullopt;
  int64_t perStage = 0, prefetchPerStage = 0;
  for (const pipeline::PipelinedLoad& p : plan.loads) (p.c.convert ? perStage : prefetchPerStage) += slotBytes(p);
  while (stages > 2 && prefetchPerStage * stages > kMaxPrefetchBytes) --stages;
  perStage += prefetchPerStage;
  // Fewer stages when the slots do not fit beside the enclosing loops' (and a little scratch).
  const int64_t room = maxSharedPerBlock(ctx.target) - reserved - kScratchRoom;
  while (stages > 2 && perStage * stages > room) --stages;
  if (perStage * stages > room) return std::nullopt;
  plan.stages = stages;
  plan.bytes = perStage * stages;
  return plan;
}

// Before any loop is rewritten: on sm_90, each loop whose loads are all wgmma operands built from
// pointers that TMA can copy as boxes runs in two versions (tma_versioning.h). True when one did.
class Versioning {
 public:
  Versioning(const ir::Function& fn, const GpuContext& ctx) : fn_(fn), ctx_(ctx) {}

  bool block(ir::Block& b) {
    if (ctx_.target.sm < 90 || !ctx_.tmaPointerTiles) return false;
    bool changed = false;
    std::vector<ir::Op*> ops;
    for (const auto& op : b.ops) ops.push_back(op.get());
    for (ir::Op* op : ops) {
      if (op->opcode == Opcode::For && version(*op)) {
        changed = true;
        continue;
      }
      for (const auto& r : op->regions) changed = block(*r) || changed;
    }
    return changed;
  }

 private:
  // Every candidate load must be a wgmma operand TMA can copy (the pipeline copies all of a loop's
  // loads by TMA or none); its cp.async copies need not be possible (a `% N` by an unaligned N leaves
  // them 2 bytes wide, which TMA does not mind).
  bool version(ir::Op& loop) {
    LoopLoads loads = findPipelineLoads(loop);
    if (loads.loads.empty() || globalWritesMayPrecede(fn_, loop)) return false;
    std::vector<PointerTmaLoad> boxes;
    for (const PipelineCandidate& c : loads.loads) {
      if (c.load->hasAttr("tma")) return false;  // descriptor loads: TMA without a check
      std::optional<PointerBox> box = pointerBox(loop, *c.load);
      const int contiguous = box ? box->contiguousDim() : -1;
      std::optional<layout::WgmmaTile> tile = contiguous >= 0 ? wgmmaSlot(c, ctx_, contiguous) : std::nullopt;
      if (!tile) return false;
      if (!axis_) axis_.emplace(fn_);  // (only for kernels with such loops: it costs a walk of the function)
      if (!pointerBoxFitsTma(*box, *tile, c.load->result(0)->type.elem, *axis_)) return false;
      for (size_t d = 0; d < box->dims.size(); ++d)
        if (BoxDim& dim = box->dims[d]; dim.modulus) {
          if (!lanes_) lanes_.emplace(fn_);
          dim.wrappedLanesDead = lanes_->pastBoundUnwritten(loop, *c.load->result(0), int(d), dim.start,
                                                            ScalarForm::atom(dim.modulus));
        }
      boxes.push_back(PointerTmaLoad{c.load, std::move(*box)});
    }
    if (pipelineStages(loop, ctx_.numStages) < 2) return false;
    versionForTma(loop, boxes);
    return true;
  }

  const ir::Function& fn_;
  const GpuContext& ctx_;
  std::optional<analysis::AxisInfoAnalysis> axis_;  // of the function before any loop is versioned
  std::optional<LaneReach> lanes_;                   // likewise
};

class Pass {
 public:
  Pass(ir::Function& fn, const GpuContext& ctx) : fn_(fn), ctx_(ctx), axis_(fn) {}

  void block(ir::Block& b, int64_t reserved) {
    std::vector<ir::Op*> ops;
    for (const auto& op : b.ops) ops.push_back(op.get());
    for (ir::Op* op : ops) {
      int64_t inside = reserved;
      if (op->opcode == Opcode::For) {
        LoopLoads loads = findPipelineLoads(*op);
        // stage_operands' buffers, live across the loop: its invariant wgmma operands
        const int64_t staged = stagedOperandBytes(*op, ctx_);
        if (std::optional<LoopPlan> plan = planLoop(*op, loads, axis_, fn_, ctx_, reserved + staged)) {
          inside += plan->bytes;
          pipeline::LoopRewrite rewrite(*op, ctx_, std::move(loads), std::move(plan->loads), plan->stages, plan->bytes);
          rewrite.run();
          // A warp-specialized TMA version's slots live across its check's `if`: the cp.async version in
          // the else-region has what is left beside them.
          if (rewrite.specialized() && op->parentOp() && op->parentOp()->opcode == Opcode::If)
            specializedBytes_[op->parentOp()] = plan->bytes;
        }
      }
      for (size_t r = 0; r < op->regions.size(); ++r) {
        auto held = specializedBytes_.find(op);
        block(*op->regions[r], inside + (r == 1 && held != specializedBytes_.end() ? held->second : 0));
      }
    }
  }

 private:
  const ir::Function& fn_;
  const GpuContext& ctx_;
  const analysis::AxisInfoAnalysis axis_;  // of the function before any loop is rewritten
  std::map<const ir::Op*, int64_t> specializedBytes_;  // checks' `if`s: their TMA version's slot bytes
};

}  // namespace

void pipelineLoops(ir::Function& fn, const GpuContext& ctx) {
  Versioning(fn, ctx).block(fn.body);  // (the pass's axis info is of the function after it)
  Pass(fn, ctx).block(fn.body, 0);
}

}  // namespace kiln::schedule
