// tma_stores: on sm_90 a tensor-descriptor store (`desc.store`) whose TMA description (docs/ir.md) names
// a tensor TMA can copy leaves its registers through shared memory and one bulk tensor copy, as Triton
// does on Hopper, instead of every thread's st.global:
//
//   %buf = shared_alloc {align}        one slot in the arrangement the copies read (layout/tma_shared.h)
//   local_store %buf, %value           every thread its elements (from the registers as they are: a
//                                      conversion only the store read goes)
//   fence_async_shared                 the generic-proxy stores become visible to the copy's reads
//   barrier                            every thread's part is written
//   tma_store %buf, %c0, %c1 {map}     thread 0: one copy per box along the contiguous dim, one bulk group
//   tma_store_wait {pending = 0}       thread 0: the copies read the buffer; its bytes may be reused
//
// and a `tensor_map` at the kernel's entry (one per tensor, box and swizzle, shared with the pipeline's
// loads: schedule/tma_maps.h). The copies clip at the tensor's edges, which is what the store's mask
// says (sema builds it from the same shape), so mask and addresses are dropped with their unused ops.
// Conditions, as for the pipeline's TMA loads: rank 2 with the contiguous dim last, at most 256 rows, a
// row of 16, 32, 64 or a multiple of 128 bytes (box = [rows, min(row, 128 bytes)], swizzled by its width
// when 32 bytes or more), base and row stride proven 16-byte aligned, pieces kernel parameters or
// constants, and the buffer fits beside the others (it lives only from its local_store to its wait, so
// it may take bytes a finished loop's slots held). Every other store keeps its pointers and drops the
// description, so the code generator sees the plain store it always did.
#include "layout/tma_shared.h"
#include "schedule/schedule.h"
#include "schedule/tma_maps.h"
#include "schedule/value_uses.h"

namespace kiln::schedule {

namespace {

using ir::Opcode;
using ir::Type;
using ir::Value;

struct StorePlan {
  layout::TmaTile tile;
  std::vector<TensorPiece> pieces;
};

// Whether another partition running beside `op` allocates shared memory: partitions run at once, and
// buffer liveness in program order would not keep its buffers apart from the store's.
bool besideAllocatingPartition(const ir::Op& op) {
  const ir::Block* inside = op.parent;
  for (const ir::Op* p = op.parentOp(); p; inside = p->parent, p = p->parentOp()) {
    if (p->opcode != Opcode::WarpPartition) continue;
    for (const auto& region : p->regions) {
      if (region.get() == inside) continue;
      bool allocates = false;
      ir::walk(*region, [&](ir::Op& o) { allocates |= o.opcode == Opcode::SharedAlloc; });
      if (allocates) return true;
    }
  }
  return false;
}

std::optional<StorePlan> planStore(const ir::Op& store, const analysis::AxisInfoAnalysis& axis, const GpuContext& ctx) {
  if (ctx.target.sm < 90 || besideAllocatingPartition(store)) return std::nullopt;
  const Type& t = store.operand(1)->type;
  if (t.rank() != 2 || ir::bitWidth(t.elem) < 8 || t.shape[0] > 256) return std::nullopt;
  const int elemBytes = ir::bitWidth(t.elem) / 8;
  const int64_t rowBytes = t.shape[1] * elemBytes;
  layout::TmaTile tile{t.shape, t.shape[1], elemBytes, 0};
  if (rowBytes >= 128) {
    tile.boxInner = 128 / elemBytes;
    tile.swizzle = 128;
  } else if (rowBytes == 32 || rowBytes == 64) {
    tile.swizzle = int(rowBytes);
  } else if (rowBytes != 16) {
    return std::nullopt;
  }
  if (!tile.unsupported().empty()) return std::nullopt;
  std::optional<std::vector<TensorPiece>> pieces = tensorPieces(store);
  if (!pieces || !tmaEncodable(*pieces, elemBytes, axis)) return std::nullopt;
  return StorePlan{tile, std::move(*pieces)};
}

// The store without its TMA description: the plain masked store.
void dropDescription(ir::Op& store, ValueUses& uses) {
  std::vector<Value*> dropped(store.operands.begin() + 3, store.operands.end());
  store.operands.resize(3);
  std::erase_if(store.attrs, [](const ir::Attr& a) { return a.name == "tma"; });
  uses.release(dropped);
}

// Rewrites the store into the TMA form, or leaves it when the buffer would not fit; true when rewritten.
bool rewrite(ir::Function& fn, ir::Op& store, const StorePlan& plan, const GpuContext& ctx,
             ValueUses& uses) {
  ir::Block& block = *store.parent;
  ir::Builder b(block, block.indexOf(&store));
  const Type& t = store.operand(1)->type;
  const int64_t align = plan.tile.alignment();
  std::vector<ir::Attr> allocAttrs;
  if (align > 128) allocAttrs.push_back({"align", align});
  const Type slot = Type::shared(t.shape, t.elem, 1, std::make_shared<const layout::LinearLayout>(layout::tmaShared(plan.tile)));
  Value* buffer = b.create1(Opcode::SharedAlloc, {}, slot, std::move(allocAttrs), store.loc);
  std::vector<ir::Op*> created{buffer->def};
  // local_store takes any register layout: a conversion only this store reads (to the layout the pointer
  // store wanted, through scratch) is skipped, the registers go to the buffer as they are.
  Value* value = store.operand(1);
  if (value->def && value->def->opcode == Opcode::ConvertLayout && uses.reads(value) == 1) value = value->def->operand(0);
  created.push_back(b.create(Opcode::LocalStore, {buffer, value}, {}, {}, store.loc));
  created.push_back(b.create(Opcode::FenceAsyncShared, {}, {}, {}, store.loc));
  created.push_back(b.create(Opcode::Barrier, {}, {}, {}, store.loc));
  const unsigned rank = unsigned(store.intAttr("tma"));
  std::vector<Value*> operands{buffer};
  for (unsigned k = 3; k < 3 + rank; ++k) operands.push_back(store.operand(k));
  ir::Op* copy = b.create(Opcode::TmaStore, operands, {}, {}, store.loc);
  created.push_back(copy);
  created.push_back(b.create(Opcode::TmaStoreWait, {}, {}, {ir::Attr{"pending", int64_t(0)}}, store.loc));
  if (sharedBufferBytes(fn) > maxSharedPerBlock(ctx.target)) {
    for (auto it = created.rbegin(); it != created.rend(); ++it) block.remove(*it);
    return false;
  }
  const std::vector<int64_t> box{t.shape[0], plan.tile.boxInner};
  copy->setAttr("map", declareTensorMap(fn, plan.pieces, box, plan.tile.swizzle, false, store.loc));
  for (Value* v : operands) uses.addRead(v);
  uses.addRead(value);
  const std::vector<Value*> old = store.operands;
  block.remove(&store);
  uses.release(old);
  return true;
}

}  // namespace

void tmaStores(ir::Function& fn, const GpuContext& ctx) {
  std::vector<ir::Op*> stores;
  ir::walk(fn, [&](ir::Op& op) {
    if (op.opcode == Opcode::Store && op.hasAttr("tma")) stores.push_back(&op);
  });
  if (stores.empty()) return;
  const analysis::AxisInfoAnalysis axis(fn);  // before any store is rewritten
  std::vector<std::optional<StorePlan>> plans;
  for (ir::Op* store : stores) plans.push_back(planStore(*store, axis, ctx));
  ValueUses uses(fn);
  for (size_t i = 0; i < stores.size(); ++i)
    if (!plans[i] || !rewrite(fn, *stores[i], *plans[i], ctx, uses)) dropDescription(*stores[i], uses);
}

}  // namespace kiln::schedule
