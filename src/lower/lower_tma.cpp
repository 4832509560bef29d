// TMA on sm_90 (docs/gpu-ir.md "TMA (sm_90)", docs/codegen.md): each `tensor_map` becomes a 128-byte
// kernel parameter after the runtime ones, whose generic address is taken once at entry; `tma_load`
// becomes, in the first thread of the code (the CTA's, or the warp partition's), one arrive.expect_tx of
// the slot's bytes on the mbarrier and one cp.async.bulk.tensor per box along the contiguous dim;
// `tma_store`, in that thread, one cp.async.bulk.tensor to global memory per box and a bulk commit group,
// and `tma_store_wait` that thread's cp.async.bulk.wait_group.read. The slot's layout must be the
// arrangement those copies write or read (layout/tma_shared.h) and its start aligned as they
// need; anything else is a compile error, never a silently scrambled tile.
#include <algorithm>
#include <optional>

#include "layout/tma_shared.h"
#include "lower/codegen.h"
#include "ptx/sync.h"
#include "ptx/tma.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using ir::Opcode;
using ptx::Reg;
using ptx::RegClass;

const ir::Op* tensorMapOp(const ir::Function& fn, int64_t index) {
  for (const auto& op : fn.body.ops)
    if (op->opcode == Opcode::TensorMap && op->intAttr("index") == index) return op.get();
  return nullptr;
}

int elemBytes(ir::Scalar s) { return ir::bitWidth(s) / 8; }

// The slot's first byte is a multiple of `need`: its buffer is a shared_alloc placed by allocate_shared
// at such an offset, with slots that far apart and an `align` that asks for it (so that a change in
// placement cannot break it silently).
void requireAlignment(const ir::Op& op, const ir::Value* slot, int64_t need) {
  const std::string what = op.name();
  const ir::Value* buffer = slot;
  if (slot->def && slot->def->opcode == Opcode::SharedSlot) buffer = slot->def->operand(0);
  const ir::Op* alloc = buffer->def;
  if (!alloc || alloc->opcode != Opcode::SharedAlloc || !alloc->hasAttr("offset"))
    throw CompileError(op.loc, what + ": the slot's buffer must be a shared_alloc placed by allocate_shared (its "
                               "alignment must be known), not a value passed through a region");
  const int64_t offset = alloc->intAttr("offset"), align = alloc->intAttrOr("align", 128);
  const bool strided = buffer->type.slots > 1 && buffer->type.slotStride() % need != 0;
  if (offset % need != 0 || strided || align < need)
    throw CompileError(op.loc, what + ": the copies need the slot to start on a multiple of " + std::to_string(need) +
                                   " bytes: its shared_alloc must have align = " + std::to_string(need) +
                                   " or more (it has offset " + std::to_string(offset) + ", align " +
                                   std::to_string(align) + ", slot stride " + std::to_string(buffer->type.slotStride()) + ")");
}

// The arrangement of the copies of `op` (tma_load or tma_store: operand 0 is the slot) through its map,
// after checking that the slot has it and starts where the copies need.
layout::TmaTile checkedTile(Codegen& cg, const ir::Op& op) {
  const std::string what = op.name();
  if (cg.e.target().sm < 90)
    throw CompileError(op.loc, what + ": TMA needs sm_90 or later; the target is " + cg.e.target().name());
  const ir::Value* slot = op.operand(0);
  const ir::Type& st = slot->type;
  const int64_t index = op.intAttr("map");
  const ir::Op* map = tensorMapOp(cg.fn, index);
  if (!map || size_t(index) >= cg.tensorMaps.size()) codegenBug(op, "no tensor_map " + std::to_string(index));
  const std::vector<int64_t>& box = map->listAttr("box");
  const layout::TmaTile tile{st.shape, box.back(), elemBytes(st.elem), int(map->intAttr("swizzle"))};
  if (std::string why = tile.unsupported(); !why.empty())
    throw CompileError(op.loc, what + ": the code generator cannot lower this copy: " + why);
  const layout::LinearLayout want = layout::tmaShared(tile);
  if (!st.layout || *st.layout != want)
    throw CompileError(op.loc, what + ": the slot's layout " + (st.layout ? st.layout->str() : std::string("(none)")) +
                                   " is not the arrangement the copies " + (op.opcode == Opcode::TmaLoad ? "write, " : "read, ") +
                                   want.str());
  requireAlignment(op, slot, tile.alignment());
  cg.e.alignDynamicShared(int(tile.alignment()));
  return tile;
}

// The coordinates of a copy (operands from `first` on, outermost first) innermost first, as PTX orders them.
std::vector<Reg> coordsOf(Codegen& cg, const ir::Op& op, unsigned first, unsigned trailing = 0) {
  std::vector<Reg> coords;
  for (unsigned i = op.numOperands() - trailing; i-- > first;) coords.push_back(cg.reg(op.operand(i)));
  return coords;
}

// The shared address and coordinates of box k of a slot at `smem` (box 0 at `coords`).
std::pair<Reg, std::vector<Reg>> boxAt(ptx::Entry& e, const layout::TmaTile& tile, Reg smem, std::vector<Reg> coords,
                                       int64_t k) {
  if (k == 0) return {smem, coords};
  Reg at = e.reg(RegClass::B32);
  e.inst("add.u32", {at, smem, k * tile.boxBytes()});
  const Reg inner = coords[0];
  coords[0] = e.reg(RegClass::B32);
  e.inst("add.s32", {coords[0], inner, k * tile.boxInner});
  return {at, coords};
}

void tmaLoad(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const layout::TmaTile tile = checkedTile(cg, op);
  const ir::Value* slot = op.operand(0);
  const ir::Type& st = slot->type;
  const int64_t index = op.intAttr("map");
  const int64_t bytes = st.slotBytes();
  if (bytes >= (int64_t(1) << 20))
    throw CompileError(op.loc, "tma_load: the slot holds " + std::to_string(bytes) +
                                   " bytes; an mbarrier counts fewer than 2^20 per phase");

  // Everything read inside the branch below is read before it: a register first set there would hold
  // nothing in the warps that skip it.
  const Reg thread0 = cg.firstThread();
  const Reg smem = cg.reg(slot), bar = cg.reg(op.operand(1));
  const bool predicated = op.intAttrOr("predicated", 0) != 0;
  const Reg copy = predicated ? cg.reg(op.operands.back()) : Reg{};
  const std::vector<Reg> coords = coordsOf(cg, op, 2, unsigned(predicated));
  // The other warps jump past the copies: predicated off, thread 0's arrive and the loop ptxas wraps
  // around each copy one thread issues (ELECT, UTMALDG, a uniform branch) would still issue in every warp.
  std::optional<ptx::Label> done;
  if (cg.numWarps > 1) {
    done = e.newLabel("tma_issued");
    e.inst("bra.uni", {ptx::sym(done->name)}, ptx::when(cg.otherWarps()));
  }
  ptx::Guard first = ptx::when(thread0);
  if (predicated) {  // a copy past the loop's end: thread 0 arrives without bytes instead
    const Reg doCopy = e.reg(ptx::RegClass::Pred), skip = e.reg(ptx::RegClass::Pred);
    e.inst("and.pred", {doCopy, thread0, copy});
    e.inst("not.pred", {skip, copy});
    e.inst("and.pred", {skip, skip, thread0});
    ptx::mbarrierArrive(e, bar, ptx::when(skip));
    first = ptx::when(doCopy);
  }
  ptx::mbarrierArriveExpectTx(e, bar, bytes, first);
  for (int64_t k = 0; k < st.shape.back() / tile.boxInner; ++k) {
    auto [at, c] = boxAt(e, tile, smem, coords, k);
    ptx::tensorLoad(e, at, cg.tensorMaps[size_t(index)], c, bar, first);
  }
  if (done) e.label(*done);
}

// The first thread copies the slot out box by box and closes the bulk group; the slot's writers fenced
// their stores to the async proxy and passed a barrier before (the tma_stores pass puts them there).
void tmaStore(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const layout::TmaTile tile = checkedTile(cg, op);
  const ir::Type& st = op.operand(0)->type;
  const ptx::Guard first = ptx::when(cg.firstThread());
  const Reg smem = cg.reg(op.operand(0)), map = cg.tensorMaps[size_t(op.intAttr("map"))];
  const std::vector<Reg> coords = coordsOf(cg, op, 1);
  for (int64_t k = 0; k < st.shape.back() / tile.boxInner; ++k) {
    auto [at, c] = boxAt(e, tile, smem, coords, k);
    ptx::tensorStore(e, map, c, at, first);
  }
  ptx::bulkCommitGroup(e, first);
}

void tmaStoreWait(Codegen& cg, const ir::Op& op) {
  if (cg.e.target().sm < 90)
    throw CompileError(op.loc, "tma_store_wait: TMA needs sm_90 or later; the target is " + cg.e.target().name());
  ptx::bulkWaitGroupRead(cg.e, op.intAttr("pending"), ptx::when(cg.firstThread()));
}

}  // namespace

void declareTensorMaps(Codegen& cg) {
  std::vector<const ir::Op*> maps;
  for (const auto& op : cg.fn.body.ops)
    if (op->opcode == Opcode::TensorMap) maps.push_back(op.get());
  if (maps.empty()) return;
  if (cg.e.target().sm < 90)
    throw CompileError(maps.front()->loc, "tensor_map: TMA needs sm_90 or later; the target is " + cg.e.target().name());
  std::sort(maps.begin(), maps.end(), [](const ir::Op* a, const ir::Op* b) { return a->intAttr("index") < b->intAttr("index"); });
  const ptx::Guard first = ptx::when(cg.firstThread());
  for (size_t k = 0; k < maps.size(); ++k) {
    if (maps[k]->intAttr("index") != int64_t(k)) codegenBug(*maps[k], "tensor_map indices are not 0..n-1 (the verifier checks them)");
    const std::string symbol = ptx::addTensorMapParam(cg.e, int(k));
    cg.tensorMaps.push_back(ptx::tensorMapAddress(cg.e, symbol));
    ptx::prefetchTensorMap(cg.e, symbol, first);
  }
}

void lowerTma(Codegen& cg, const ir::Op& op) {
  if (op.opcode == Opcode::TensorMap) return;  // its parameter and address exist from the entry on
  if (op.opcode == Opcode::TmaLoad) return tmaLoad(cg, op);
  if (op.opcode == Opcode::TmaStore) return tmaStore(cg, op);
  if (op.opcode == Opcode::TmaStoreWait) return tmaStoreWait(cg, op);
  codegenBug(op, "not a TMA op");
}

}  // namespace kiln::lower
