// The GPU IR schedule ops that move data and synchronise (docs/gpu-ir.md): shared buffers and their
// slots, local_store/local_load between registers and a slot, cp.async copies into a slot with their
// commit groups, bar.sync barriers (and Tile IR's debug_barrier) and mbarriers. A shared value is bound
// to one .b32 register, the shared-window address of its first byte.
#include <algorithm>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "lower/linear_emit.h"
#include "lower/scratch_layout.h"
#include "lower/shared_tile.h"
#include "ptx/memory.h"
#include "ptx/sync.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;
using ir::Opcode;

void sharedAlloc(Codegen& cg, const ir::Op& op) {
  if (!op.hasAttr("offset")) codegenBug(op, "a buffer without an offset (allocate_shared places every buffer)");
  cg.bind(op.result(0), {cg.sharedAddress(op.intAttr("offset"))});
}

// base + index * the buffer's slot stride.
void sharedSlot(Codegen& cg, const ir::Op& op) {
  const ir::Value* buffer = op.operand(0);
  Reg base = cg.reg(buffer);
  if (buffer->type.slots == 1) return cg.bind(op.result(0), {base});
  Reg at = cg.e.reg(RegClass::B32);
  cg.e.inst("mad.lo.u32", {at, cg.reg(op.operand(1)), buffer->type.slotStride(), base});
  cg.bind(op.result(0), {at});
}

void localStore(Codegen& cg, const ir::Op& op) {
  const ir::Value *slot = op.operand(0), *value = op.operand(1);
  const ir::Scalar t = value->type.elem;
  UniqueRegisters src = uniqueRegisters(*value->type.layout);
  ScratchPlan plan = planWithShared(*slot->type.layout, src.compact, src.compact, memBytes(t));
  const std::vector<Reg>& regs = cg.regs(value);
  std::vector<Reg> compact;
  for (int32_t r : src.original) compact.push_back(regs.at(size_t(r)));
  // Threads holding the same element (duplicated lanes or warps) store the same bytes: harmless.
  SharedAddresses at(cg, cg.reg(slot), threadPart(cg, plan.storeOffsets, 0), threadMask(plan.storeOffsets, 0),
                     memBytes(t));
  accessShared(cg, true, t, at, plan.storeOffsets, plan.storeVec, compact);
}

void localLoad(Codegen& cg, const ir::Op& op) {
  const ir::Value *slot = op.operand(0), *res = op.result(0);
  UniqueRegisters dst = uniqueRegisters(*res->type.layout);
  ScratchPlan plan = planWithShared(*slot->type.layout, dst.compact, dst.compact, memBytes(res->type.elem));
  cg.bind(res, SharedTileReader(cg, op, plan, cg.reg(slot), res->type.elem, *res->type.layout).all());
}

// cp.async of each thread's elements into the slot, `vec` at a time: the widest run that the slot's
// layout keeps contiguous and the pointers' axis info proves contiguous and aligned, up to 16 bytes.
void asyncCopy(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const ir::Value *slot = op.operand(0), *ptr = op.operand(1);
  const ir::Value* mask = op.numOperands() > 2 ? op.operand(2) : nullptr;
  const LinearLayout& from = *ptr->type.layout;
  const int bytes = memBytes(slot->type.elem);
  UniqueRegisters src = uniqueRegisters(from);
  bool distinct = int(src.original.size()) == Codegen::numRegs(ptr->type);
  for (size_t i = 0; distinct && i < src.original.size(); ++i) distinct = src.original[i] == int32_t(i);
  if (!distinct)  // cp.async copies what each register holds: a repeated element would be copied twice
    throw CompileError(op.loc, "async_copy: the pointer layout holds an element in two registers of a thread");
  ScratchPlan plan = planWithShared(*slot->type.layout, src.compact, src.compact, bytes);
  int32_t vec = std::min<int32_t>(plan.storeVec, int32_t(planAccess(cg, ptr, mask, from).vec));
  while (vec * bytes > 16) vec /= 2;
  if (vec * bytes < 4)
    throw CompileError(op.loc, "async_copy: each copy would move " + std::to_string(vec * bytes) +
                                   " bytes; cp.async moves 4, 8 or 16 (the slot's layout or the pointers' "
                                   "contiguity and alignment allow no wider run)");
  CopySource source(cg, ptr, mask);
  SharedAddresses storeAt(cg, cg.reg(slot), threadPart(cg, plan.storeOffsets, 0), threadMask(plan.storeOffsets, 0),
                          bytes);
  // One of the threads that hold an element copies it: the others would write the same bytes again.
  ptx::Guard guard;
  if (Reg owner = cg.ownerPredicate(from); owner.valid()) guard = ptx::when(owner);
  copyToShared(cg, source, storeAt, plan.storeOffsets, vec, vec * bytes, guard);
}

void barrier(Codegen& cg, const ir::Op& op) {
  const int id = int(op.intAttrOr("id", 0));
  const int threads = int(op.intAttrOr("threads", 0));
  if (threads > cg.numWarps * 32)
    throw CompileError(op.loc, "barrier: " + std::to_string(threads) + " threads, but the code runs on " +
                                   std::to_string(cg.numWarps * 32));
  if (id == 0 && threads == 0) return cg.barrier();  // the CTA's, or the warp partition's
  ptx::barSync(cg.e, id, threads == 0 ? cg.numWarps * 32 : threads);
}

}  // namespace

void lowerSchedule(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  switch (op.opcode) {
    case Opcode::SharedAlloc: return sharedAlloc(cg, op);
    case Opcode::SharedSlot: return sharedSlot(cg, op);
    case Opcode::LocalStore: return localStore(cg, op);
    case Opcode::LocalLoad: return localLoad(cg, op);
    case Opcode::AsyncCopy: return asyncCopy(cg, op);
    case Opcode::AsyncCommit: return ptx::cpAsyncCommit(e);
    case Opcode::AsyncWait: return ptx::cpAsyncWait(e, int(op.intAttr("pending")));
    case Opcode::Barrier: return barrier(cg, op);
    case Opcode::DebugBarrier: return cg.barrier();  // tl.debug_barrier: the CTA's (or the partition's) bar.sync
    case Opcode::MbarrierInit:  // one thread; a barrier makes it visible to the others (PTX-NOTES §11)
      return ptx::mbarrierInit(e, cg.reg(op.operand(0)), op.intAttr("count"), ptx::when(cg.firstThread()));
    case Opcode::MbarrierArrive: return ptx::mbarrierArrive(e, cg.reg(op.operand(0)));
    case Opcode::MbarrierExpectTx:
      if (e.target().sm < 90) throw CompileError(op.loc, "mbarrier_expect_tx needs sm_90 or later");
      return ptx::mbarrierExpectTx(e, cg.reg(op.operand(0)), op.intAttr("bytes"), ptx::when(cg.firstThread()));
    case Opcode::MbarrierWait: return ptx::mbarrierWait(e, cg.reg(op.operand(0)), cg.reg(op.operand(1)));
    default:  // not in the families this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not a shared-memory, async-copy or synchronisation op");
}

}  // namespace kiln::lower
