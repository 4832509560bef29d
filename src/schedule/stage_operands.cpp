// stage_operands: wgmma takes its A operand from registers or, like B, from shared memory through a
// matrix descriptor. A loop-invariant A in registers (attention's Q: loaded once, read by every
// iteration's QK^T) holds M x K / 128 registers of each warpgroup thread for the whole loop, on top of
// the accumulators and the softmax tile: at 128x128 f16 per 4 warps that is 64 registers, and the
// D128 configurations spilled. Stored once into its own shared buffer before the loop, in wgmma's
// swizzled arrangement, it is read from there by every iteration's mma instead:
//
//   %buf  = shared_alloc {align}      one slot, wgmma's arrangement (layout/wgmma_shared.h)
//   %slot = shared_slot %buf, 0
//   local_store %slot, %q             the value before its conversion to wgmma's A layout
//   fence_async_shared                the generic-proxy stores become visible to wgmma's reads
//   barrier                           every thread's part is written
//   for ... { %s = mma %slot, %k, %acc {wgmma} ... }
//
// The pipeline pass leaves room for these buffers (stagedOperandBytes), so a loop that could not keep
// its pipeline depth beside them gives up a stage rather than the registers.
#include "schedule/stage_operands.h"

#include <algorithm>
#include <unordered_map>

#include "assign/dot_layouts.h"
#include "schedule/schedule.h"

namespace kiln::schedule {

namespace {

using ir::Opcode;
using ir::Type;
using ir::Value;

int elemBytes(ir::Scalar t) { return ir::bitWidth(t) / 8; }

bool isInside(const ir::Op* op, const ir::Op& loop) {
  for (const ir::Block* b = op ? op->parent : nullptr; b; b = b->parentOp ? b->parentOp->parent : nullptr)
    if (b->parentOp == &loop) return true;
  return false;
}

bool definedInside(const Value* v, const ir::Op& loop) {
  if (v->isBlockArg()) return v->owner->parentOp == &loop || isInside(v->owner->parentOp, loop);
  return isInside(v->def, loop);
}

bool onWgmma(const ir::Op& op, const GpuContext& ctx) {
  if (op.opcode == Opcode::Mma) return op.hasAttr("wgmma");
  if (op.opcode != Opcode::Dot) return false;
  std::optional<lower::MmaConfig> cfg = lower::mmaConfig(op, ctx.numWarps, ctx.target);
  return cfg && cfg->wgmma && op.operand(2)->type.elem != ir::Scalar::F16;  // an f16 sum stays a dot
}

int64_t bufferBytes(const layout::WgmmaTile& t) { return t.shape[0] * t.shape[1] * t.elemBytes; }

// The wgmma ops nested in `loop` whose A is a register tile defined outside it, by that tile.
std::vector<std::pair<Value*, std::vector<ir::Op*>>> invariantOperands(ir::Op& loop, const GpuContext& ctx) {
  std::vector<std::pair<Value*, std::vector<ir::Op*>>> out;
  for (const auto& region : loop.regions)
    ir::walk(*region, [&](ir::Op& op) {
      if (!onWgmma(op, ctx)) return;
      Value* a = op.operand(0);
      if (!a->type.isTensor() || a->type.rank() != 2 || definedInside(a, loop) || !stagedTile(a->type)) return;
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == a; });
      if (it == out.end()) out.push_back({a, {&op}});
      else it->second.push_back(&op);
    });
  return out;
}

// The bytes of the function's shared buffers that may be live beside `loop`: all but those in the other
// branch of an `if` around it (the two versions of a loop behind a run-time check share their bytes).
int64_t sharedBytesBeside(ir::Function& fn, const ir::Op& loop) {
  std::vector<std::pair<const ir::Op*, const ir::Block*>> branches;  // each `if` around the loop, its branch
  for (const ir::Block* b = loop.parent; b && b->parentOp; b = b->parentOp->parent)
    if (b->parentOp->opcode == Opcode::If) branches.emplace_back(b->parentOp, b);
  auto inOtherBranch = [&](const ir::Op& op) {
    for (const ir::Block* b = op.parent; b && b->parentOp; b = b->parentOp->parent)
      for (const auto& [branch, taken] : branches)
        if (b->parentOp == branch && b != taken) return true;
    return false;
  };
  int64_t total = 0;
  ir::walk(fn, [&](ir::Op& op) {
    if (op.opcode == Opcode::SharedAlloc && !inOtherBranch(op))
      total += op.result(0)->type.slotStride() * op.result(0)->type.slots;
  });
  return total;
}

int countUses(ir::Function& fn, const Value* v) {
  int uses = 0;
  ir::walk(fn, [&](ir::Op& op) { uses += int(std::count(op.operands.begin(), op.operands.end(), v)); });
  return uses;
}

void stageLoop(ir::Function& fn, ir::Op& loop, const GpuContext& ctx) {
  for (auto& [a, users] : invariantOperands(loop, ctx)) {
    if (std::any_of(users.begin(), users.end(), [](const ir::Op* u) { return u->opcode != Opcode::Mma; }))
      continue;  // a Tile IR dot reads its operands from registers
    const layout::WgmmaTile tile = *stagedTile(a->type);
    if (sharedBytesBeside(fn, loop) + bufferBytes(tile) > maxSharedPerBlock(ctx.target) - kScratchRoom) continue;
    // The value as it was before its conversion to wgmma's A layout: the store takes any layout.
    Value* source = a;
    ir::Op* convert = a->def && a->def->opcode == Opcode::ConvertLayout ? a->def : nullptr;
    if (convert && convert->operand(0)->type.isTensor() && convert->operand(0)->type.layout)
      source = convert->operand(0);
    ir::Builder b;
    b.setInsertionPointBefore(&loop);
    const auto shared = std::make_shared<const layout::LinearLayout>(layout::wgmmaShared(tile));
    const Type bufferType = Type::shared(a->type.shape, a->type.elem, 1, shared);
    Value* buffer = b.create1(Opcode::SharedAlloc, {}, bufferType,
                              {ir::Attr{"align", int64_t(8 * tile.swizzleBytes())}}, loop.loc);
    Value* slot = b.create1(Opcode::SharedSlot, {buffer, b.intConst(0, Type::scalar(ir::Scalar::I32))},
                            bufferType, {}, loop.loc);
    b.create(Opcode::LocalStore, {slot, source}, {}, {}, loop.loc);
    b.create(Opcode::FenceAsyncShared, {}, {}, {}, loop.loc);
    b.create(Opcode::Barrier, {}, {}, {}, loop.loc);
    for (ir::Op* u : users) u->operands[0] = slot;
    if (convert && countUses(fn, a) == 0) convert->parent->remove(convert);
  }
}

void block(ir::Function& fn, ir::Block& b, const GpuContext& ctx) {
  std::vector<ir::Op*> ops;
  for (const auto& op : b.ops) ops.push_back(op.get());
  for (ir::Op* op : ops) {
    if (op->opcode == Opcode::For || op->opcode == Opcode::While) stageLoop(fn, *op, ctx);
    for (const auto& r : op->regions) block(fn, *r, ctx);
  }
}

}  // namespace

std::optional<layout::WgmmaTile> stagedTile(const Type& a) {
  // tf32 (f32 read truncated), fp8 and 8-bit integers: K-major only.
  const bool kMajorOnly = a.elem == ir::Scalar::F32 || a.elem == ir::Scalar::F8E4M3 || a.elem == ir::Scalar::F8E5M2 ||
                          a.elem == ir::Scalar::I8 || a.elem == ir::Scalar::U8;
  if (a.elem != ir::Scalar::F16 && a.elem != ir::Scalar::BF16 && !kMajorOnly) return std::nullopt;
  for (std::vector<int32_t> order : {std::vector<int32_t>{1, 0}, std::vector<int32_t>{0, 1}}) {
    if (kMajorOnly && order[0] != 1) continue;
    layout::WgmmaTile t{a.shape, order, elemBytes(a.elem)};
    if (t.swizzleBytes() && t.rows() >= 8) return t;
  }
  return std::nullopt;
}

int64_t stagedOperandBytes(ir::Op& loop, const GpuContext& ctx) {
  int64_t bytes = 0;
  for (const auto& [a, users] : invariantOperands(loop, ctx)) bytes += (bufferBytes(*stagedTile(a->type)) + 127) / 128 * 128;
  return bytes;
}

void stageOperands(ir::Function& fn, const GpuContext& ctx) {
  if (ctx.target.sm != 90 || !ctx.target.archSpecific) return;  // wgmma is sm_90a's
  block(fn, fn.body, ctx);
}

}  // namespace kiln::schedule
