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
//
// A pointer store of a tensor-core kernel (`tl.store(c_ptrs, c, mask=c_mask)`, the tutorial matmul's
// epilogue) whose addresses and mask make a box (pointer_box.h, storeBox) is given the same form behind
// a run-time check (tma_versioning.h): `if (check) { the TMA store } else { the pointer store }`, its
// address and mask tiles moved into the else region. It must be the program's last global access (a
// later load or store of the same tensor would need the copy's writes ordered before it) and stand in no
// loop but a persistent kernel's loop over programs; and no global write may come before it (the copy
// writes through the async proxy, which is not ordered after the generic proxy's writes).
#include "layout/tma_shared.h"
#include "schedule/schedule.h"
#include "schedule/tma_maps.h"
#include "schedule/tma_versioning.h"
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

// The shared arrangement a TMA store of `t` copies from, or nothing when no copy takes such a tile.
std::optional<layout::TmaTile> storeTile(const Type& t) {
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
  return tile;
}

std::optional<StorePlan> planStore(const ir::Op& store, const analysis::AxisInfoAnalysis& axis, const GpuContext& ctx) {
  if (ctx.target.sm < 90 || besideAllocatingPartition(store)) return std::nullopt;
  const Type& t = store.operand(1)->type;
  std::optional<layout::TmaTile> tile = storeTile(t);
  if (!tile) return std::nullopt;
  std::optional<std::vector<TensorPiece>> pieces = tensorPieces(store);
  std::vector<size_t> checked;  // (a guarded store's kernel checks the strides axis info cannot prove aligned)
  const bool guarded = store.intAttrOr("guarded", 0) != 0;
  if (!pieces || !tmaEncodable(*pieces, ir::bitWidth(t.elem) / 8, axis, guarded ? &checked : nullptr)) return std::nullopt;
  return StorePlan{*tile, std::move(*pieces)};
}

// The one-slot buffer a TMA store of `store`'s tile copies from, allocated at `b`.
Value* createSlot(ir::Builder& b, const ir::Op& store, const layout::TmaTile& tile) {
  const Type& t = store.operand(1)->type;
  std::vector<ir::Attr> attrs;
  if (tile.alignment() > 128) attrs.push_back({"align", tile.alignment()});
  const Type slot = Type::shared(t.shape, t.elem, 1, std::make_shared<const layout::LinearLayout>(layout::tmaShared(tile)));
  return b.create1(Opcode::SharedAlloc, {}, slot, std::move(attrs), store.loc);
}

// Whether a slot for `store`'s tile fits beside the kernel's other buffers where the store is.
bool slotFits(ir::Function& fn, ir::Op& store, const layout::TmaTile& tile, const GpuContext& ctx) {
  ir::Block& block = *store.parent;
  ir::Builder b(block, block.indexOf(&store));
  Value* slot = createSlot(b, store, tile);
  ir::Op* write = b.create(Opcode::LocalStore, {slot, store.operand(1)}, {}, {}, store.loc);
  const bool fits = sharedBufferBytes(fn) <= maxSharedPerBlock(ctx.target);
  block.remove(write);
  block.remove(slot->def);
  return fits;
}

bool accessesGlobal(const ir::Op& op) {
  switch (ir::familyOf(op.opcode)) {
    case ir::Family::Memory: case ir::Family::Async: return true;
    case ir::Family::Asm: return op.intAttrOr("pure", 0) == 0;
    default: return false;
  }
}

// Whether the program may access global memory after `store`: an op after it in program order, or
// before it in a loop around it that is not a persistent kernel's loop over programs (whose later
// iterations are other programs). The other regions of an `if` run instead of the store's, and those of
// a warp_partition beside it (the producer's copies of the next tiles, other programs' too).
bool globalAccessFollows(const ir::Op& store) {
  bool follows = false;
  for (const ir::Op* op = &store; op && !follows; op = op->parentOp()) {
    const ir::Block& block = *op->parent;
    for (size_t i = block.indexOf(op) + 1; i < block.ops.size(); ++i) {
      follows |= accessesGlobal(*block.ops[i]);
      for (const auto& r : block.ops[i]->regions) ir::walk(*r, [&](ir::Op& o) { follows |= accessesGlobal(o); });
    }
    const ir::Op* p = op->parentOp();
    if (p && ((p->opcode == Opcode::For && !p->intAttrOr("persistent", 0)) || p->opcode == Opcode::While)) return true;
  }
  return follows;
}

// Versions the pointer stores a TMA store can stand for (the header's second paragraph); returns the ifs.
std::vector<ir::Op*> versionPointerStores(ir::Function& fn, const GpuContext& ctx, const analysis::AxisInfoAnalysis& axis) {
  std::vector<ir::Op*> candidates;
  bool dots = false;
  ir::walk(fn, [&](ir::Op& op) {
    dots |= op.opcode == Opcode::Dot || ir::familyOf(op.opcode) == ir::Family::Mma;
    if (op.opcode == Opcode::Store && !op.hasAttr("tma") && !op.hasAttr("block")) candidates.push_back(&op);
  });
  std::vector<ir::Op*> branches;
  if (ctx.target.sm < 90 || !ctx.tmaPointerTiles || !dots || candidates.empty()) return branches;
  for (ir::Op* store : candidates) {
    const Type& t = store->operand(1)->type;
    std::optional<layout::TmaTile> tile = storeTile(t);
    if (!tile || besideAllocatingPartition(*store) || globalAccessFollows(*store) || globalWritesMayPrecede(fn, *store))
      continue;
    std::optional<PointerBox> box = storeBox(*store);
    if (!box || !storeBoxFitsTma(*box, t.elem, axis) || !slotFits(fn, *store, *tile, ctx)) continue;
    branches.push_back(versionStoreForTma(*store, *box));
  }
  return branches;
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
  Value* buffer = createSlot(b, store, plan.tile);
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
  if (sharedBytesOnceAllocated(fn, ctx) > maxSharedPerBlock(ctx.target)) {  // (scratch included)
    for (auto it = created.rbegin(); it != created.rend(); ++it) block.remove(*it);
    return false;
  }
  const std::vector<int64_t> box{t.shape[0], plan.tile.boxInner};
  copy->setAttr("map", declareTensorMap(fn, plan.pieces, box, plan.tile.swizzle, store.intAttrOr("guarded", 0) != 0, store.loc));
  for (Value* v : operands) uses.addRead(v);
  uses.addRead(value);
  const std::vector<Value*> old = store.operands;
  block.remove(&store);
  uses.release(old);
  return true;
}

}  // namespace

void tmaStores(ir::Function& fn, const GpuContext& ctx) {
  bool anyStore = false;
  ir::walk(fn, [&](ir::Op& op) { anyStore |= op.opcode == Opcode::Store; });
  if (!anyStore) return;
  // Before any store is versioned or rewritten; the values asked about later (the tensors' pieces, kernel
  // parameters) are all there already.
  const analysis::AxisInfoAnalysis axis(fn);
  const std::vector<ir::Op*> versions = versionPointerStores(fn, ctx, axis);
  std::vector<ir::Op*> stores;
  ir::walk(fn, [&](ir::Op& op) {
    if (op.opcode == Opcode::Store && op.hasAttr("tma")) stores.push_back(&op);
  });
  if (stores.empty()) return;
  std::vector<std::optional<StorePlan>> plans;
  for (ir::Op* store : stores) plans.push_back(planStore(*store, axis, ctx));
  ValueUses uses(fn);
  for (size_t i = 0; i < stores.size(); ++i)
    if (!plans[i] || !rewrite(fn, *stores[i], *plans[i], ctx, uses)) dropDescription(*stores[i], uses);
  // A version whose store stayed a pointer store (its buffer did not fit) is undone; the others' pointer
  // versions take the address and mask tiles.
  for (ir::Op* branch : versions) {
    bool copied = false;
    ir::walk(branch->region(0), [&](ir::Op& op) { copied |= op.opcode == Opcode::TmaStore; });
    if (copied) sinkIntoBranch(*branch, 1);
    else unversionStore(*branch);
  }
}

}  // namespace kiln::schedule
