// split_mma: the order of the k-slices of the dots on mma.sync, as GPU IR. Every `dot` on mma.sync and
// every whole `mma` on mma.sync becomes one `mma` per k-slice (the instruction's K): a register operand is
// cut with extract_slice, a slot operand is read one slice at a time with local_load {slice_dim,
// slice_offset} (ldmatrix), and the slices accumulate in place (each slice's accumulator is the previous
// slice's result, which nothing else reads). The code generator then translates one slice per op.
// The loops the pipeline pass rewrote are split already: it orders their slices with this file's
// createKSliceMmas and issues its copies between them. Not split: wgmma (one commit group issues every
// k step), and dots with an f16 accumulator, which sum every k in f32 and round once (docs/semantics.md).
#include <optional>
#include <vector>

#include "layout/named_layouts.h"
#include "schedule/schedule.h"
#include "schedule/split_mma.h"

namespace kiln::schedule {

using ir::Opcode;
using ir::Type;
using ir::Value;

Type kSliceType(const ir::Op& dot, const lower::MmaConfig& cfg, int opIdx) {
  const Type& t = dot.operand(unsigned(opIdx))->type;
  std::vector<int64_t> shape = t.shape;
  shape[opIdx == 0 ? 1 : 0] = cfg.kTile;
  return Type::tensor(shape, t.elem)
      .withLayout(std::make_shared<const layout::LinearLayout>(
          layout::mmaV2Operand(opIdx, shape, cfg.warpsPerCTA, cfg.bitWidth)));
}

std::vector<ir::Attr> kSliceAttrs(const ir::Op& dot, const lower::MmaConfig& cfg) {
  std::vector<ir::Attr> attrs{ir::Attr{"warps", std::vector<int64_t>{cfg.warpsPerCTA[0], cfg.warpsPerCTA[1]}}};
  if (const ir::AttrValue* p = dot.findAttr("input_precision")) attrs.push_back(ir::Attr{"input_precision", *p});
  return attrs;
}

// The order. k outermost: consecutive mma.sync of one slice are independent, so the tensor cores pipeline
// them. The operands of slice k + 1 are read (ldmatrix from a slot, or packed from registers) before the
// mmas of slice k, so their latency hides behind those mmas while only two slices of A and B are live
// beside the accumulators. A chained dot (attention's p @ v, isChainedDot) shares the registers with the
// other dot's operands and the softmax state live across both: there a second slice of fragments spilled
// (head dim 128: 36 bytes), so each slice is read right before its own mmas.
Value* createKSliceMmas(ir::Builder& b, const ir::Op& dot, const lower::MmaConfig& cfg, bool chained,
                        const std::function<Value*(int opIdx, int64_t ki)>& slice,
                        const std::function<void(int64_t ki)>& beforeMma) {
  const int64_t numK = dot.operand(0)->type.shape[1] / cfg.kTile;
  const std::vector<ir::Attr> attrs = kSliceAttrs(dot, cfg);
  struct Operands {
    Value *a = nullptr, *b = nullptr;
  };
  auto operands = [&](int64_t ki) {
    Operands s;
    s.a = slice(0, ki);
    s.b = slice(1, ki);
    return s;
  };
  const bool ahead = !chained;
  Value* acc = dot.operand(2);
  Operands cur = operands(0);
  for (int64_t ki = 0; ki < numK; ++ki) {
    Operands next;
    if (ahead && ki + 1 < numK) next = operands(ki + 1);
    if (beforeMma) beforeMma(ki);
    acc = b.create1(Opcode::Mma, {cur.a, cur.b, acc}, acc->type, attrs, dot.loc);
    if (ki + 1 < numK) cur = ahead ? next : operands(ki + 1);
  }
  return acc;
}

namespace {

struct Split {
  ir::Op* op;
  lower::MmaConfig cfg;
  bool chained;
};

// How `op` is split, or nothing: a dot or a whole mma on mma.sync with an f32 or integer accumulator.
std::optional<Split> planSplit(ir::Op& op, const GpuContext& ctx) {
  if (op.opcode != Opcode::Dot && op.opcode != Opcode::Mma) return std::nullopt;
  if (op.opcode == Opcode::Mma && op.hasAttr("wgmma")) return std::nullopt;
  std::optional<lower::MmaConfig> cfg = lower::mmaConfig(op, ctx.numWarps, ctx.target);
  if (!cfg || cfg->wgmma || op.operand(2)->type.elem == ir::Scalar::F16) return std::nullopt;
  const int64_t numK = op.operand(0)->type.shape[1] / cfg->kTile;
  if (op.opcode == Opcode::Mma && numK == 1) return std::nullopt;  // one slice already
  return Split{&op, *cfg, lower::isChainedDot(op)};
}

void split(const Split& s) {
  ir::Op& op = *s.op;
  ir::Builder b;
  b.setInsertionPointBefore(&op);
  const int64_t kTile = s.cfg.kTile;
  auto slice = [&](int i, int64_t ki) -> Value* {
    Value* v = op.operand(unsigned(i));
    const int64_t dim = i == 0 ? 1 : 0;
    const Type t = kSliceType(op, s.cfg, i);
    if (v->type.isShared())
      return b.create1(Opcode::LocalLoad, {v}, t, {ir::Attr{"slice_dim", dim}, ir::Attr{"slice_offset", ki * kTile}},
                       op.loc);
    return b.create1(Opcode::ExtractSlice, {v}, t, {ir::Attr{"dim", dim}, ir::Attr{"offset", ki * kTile}}, op.loc);
  };
  Value* acc = createKSliceMmas(b, op, s.cfg, s.chained, slice);
  ir::Block& block = *op.parent;
  ir::replaceAllUses(block, op.result(0), acc);
  block.remove(&op);
}

}  // namespace

void splitMma(ir::Function& fn, const GpuContext& ctx) {
  // Every plan first: whether a dot is chained (and so its warp grid) depends on the other dots.
  std::vector<Split> splits;
  ir::walk(fn, [&](ir::Op& op) {
    if (std::optional<Split> s = planSplit(op, ctx)) splits.push_back(*s);
  });
  for (const Split& s : splits) split(s);
}

}  // namespace kiln::schedule
