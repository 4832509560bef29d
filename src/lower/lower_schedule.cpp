// The GPU IR schedule ops that move data and synchronise (docs/gpu-ir.md): shared buffers and their
// slots, local_store/local_load between registers and a slot, cp.async copies into a slot with their
// commit groups, bar.sync barriers (and Tile IR's debug_barrier) and mbarriers. A shared value is bound
// to one .b32 register, the shared-window address of its first byte.
#include <algorithm>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "lower/linear_emit.h"
#include "layout/scratch_layout.h"
#include "lower/shared_tile.h"
#include "ptx/memory.h"
#include "ptx/sync.h"
#include "ptx/warp.h"
#include "ptx/wgmma.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;
using ir::Opcode;

// This thread's part of a slot's offsets: computed once per region, so that the accesses of one slot
// (a k-slice at a time) share their address arithmetic.
Reg slotThreadOffset(Codegen& cg, const LinearLayout& offsets) {
  Reg r = cg.threadCoord(offsets, 0);
  return r.valid() ? r : threadPart(cg, offsets, 0);
}

void sharedAlloc(Codegen& cg, const ir::Op& op) {
  cg.reserveBuffer(op);
  if (op.hasAttr("align")) cg.e.alignDynamicShared(int(op.intAttr("align")));
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
  const ir::Value* slot = op.operand(0);
  storeTile(cg, cg.reg(slot), *slot->type.layout, op.operand(1));
}

// The registers of the whole tile of a slot, for a local_load of the part of it from `index * size`
// along `dim` into `part`: part's layout with register bits above its own for the other parts, so that
// register r of part `index` is register r + index * (part's registers).
LinearLayout wholeOfPart(const LinearLayout& part, int dim, int32_t size, int32_t parts) {
  std::vector<layout::InDim> ins = part.ins();
  std::vector<layout::OutDim> outs = part.outs();
  outs[size_t(dim)].size *= parts;
  layout::InDim* reg = nullptr;
  for (layout::InDim& in : ins)
    if (in.name == layout::kRegister) reg = &in;
  if (!reg) {
    ins.insert(ins.begin(), layout::InDim{std::string(layout::kRegister), {}});
    reg = &ins.front();
  }
  for (int32_t p = 1; p < parts; p *= 2) {
    layout::Basis b(outs.size(), 0);
    b[size_t(dim)] = size * p;
    reg->bases.push_back(std::move(b));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

void localLoad(Codegen& cg, const ir::Op& op) {
  const ir::Value *slot = op.operand(0), *res = op.result(0);
  if (op.hasAttr("slice_dim")) {  // one part: read through the whole tile's plan
    const int dim = int(op.intAttr("slice_dim"));
    const int32_t size = int32_t(res->type.shape[size_t(dim)]);
    const int32_t parts = int32_t(slot->type.shape[size_t(dim)] / size), index = int32_t(op.intAttr("slice_offset") / size);
    const LinearLayout whole = wholeOfPart(*res->type.layout, dim, size, parts);
    const ScratchPlan& plan = cg.sharedPlan(*slot->type.layout, whole, memBytes(res->type.elem));
    SharedTileReader reader(cg, op, plan, cg.reg(slot), res->type.elem, whole,
                            slotThreadOffset(cg, plan.ldmatrix ? plan.ldmatrix->rowOffsets : plan.loadOffsets));
    const int32_t n = Codegen::numRegs(res->type);
    std::vector<Reg> regs;
    for (int32_t r = 0; r < n; ++r) regs.push_back(reader.at(r + index * n));
    return cg.bind(res, std::move(regs));
  }
  const ScratchPlan& plan = cg.sharedPlan(*slot->type.layout, *res->type.layout, memBytes(res->type.elem));
  cg.bind(res, SharedTileReader(cg, op, plan, cg.reg(slot), res->type.elem, *res->type.layout).all());
}

// cp.async of each thread's elements into the slot, `vec` at a time: the widest run that the slot's
// layout keeps contiguous and the pointers' axis info proves contiguous and aligned, up to 16 bytes.
void asyncCopy(Codegen& cg, const ir::Op& op) {
  const ir::Value *slot = op.operand(0), *ptr = op.operand(1);
  const ir::Value* mask = op.numOperands() > 2 ? op.operand(2) : nullptr;
  const LinearLayout& from = *ptr->type.layout;
  const int bytes = memBytes(slot->type.elem);
  UniqueRegisters src = uniqueRegisters(from);
  bool distinct = int(src.original.size()) == Codegen::numRegs(ptr->type);
  for (size_t i = 0; distinct && i < src.original.size(); ++i) distinct = src.original[i] == int32_t(i);
  if (!distinct)  // cp.async copies what each register holds: a repeated element would be copied twice
    throw CompileError(op.loc, "async_copy: the pointer layout holds an element in two registers of a thread");
  const ScratchPlan& plan = cg.sharedPlan(*slot->type.layout, from, bytes);
  int32_t vec = std::min<int32_t>(plan.storeVec, int32_t(planAccess(cg.axis, ptr, mask, from).vec));
  while (vec * bytes > 16) vec /= 2;
  if (vec * bytes < 4)
    throw CompileError(op.loc, "async_copy: each copy would move " + std::to_string(vec * bytes) +
                                   " bytes; cp.async moves 4, 8 or 16 (the slot's layout or the pointers' "
                                   "contiguity and alignment allow no wider run)");
  CopySource source(cg, ptr, mask);
  SharedAddresses storeAt(cg, cg.reg(slot), slotThreadOffset(cg, plan.storeOffsets), threadMask(plan.storeOffsets, 0),
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

// Every thread arrives, or (per_warp) the warp's threads synchronise, which orders their earlier accesses
// to shared memory before its first lane's arrival for the warp.
void mbarrierArrive(Codegen& cg, const ir::Op& op) {
  if (!op.intAttrOr("per_warp", 0)) return ptx::mbarrierArrive(cg.e, cg.reg(op.operand(0)));
  cg.e.inst("bar.warp.sync", {int64_t(-1)});
  Reg first = cg.e.reg(ptx::RegClass::Pred);
  cg.e.inst("setp.eq.u32", {first, cg.lane(), 0});
  ptx::mbarrierArrive(cg.e, cg.reg(op.operand(0)), ptx::when(first));
}

// Two warpgroups take turns (schedule/pingpong.cpp): warpgroup w waits at named barrier `barrier + w`
// until the other one passes it the turn by arriving there; each barrier counts both warpgroups' 256
// threads. "start" gives warpgroup 0 its first turn (warpgroup 1 arrives at its barrier), "end" takes
// back the turn warpgroup 1 passed last, so both barriers are left empty. Each warpgroup branches to its
// own barrier instruction, so the ids stay immediates (ptxas then counts 3 barriers, not all 16, and
// compute-sanitizer's racecheck follows them).
void warpgroupTurn(Codegen& cg, const ir::Op& op) {
  if (cg.numWarps != 8)
    throw CompileError(op.loc, "warpgroup_turn: two warpgroups take turns, but the code runs on " +
                                   std::to_string(cg.numWarps) + " warps");
  ptx::Entry& e = cg.e;
  const std::string& step = op.strAttr("step");
  const int first = int(op.intAttr("barrier"));
  Reg group = e.reg(RegClass::B32), second = e.reg(RegClass::Pred);
  e.inst("shr.u32", {group, cg.warp(), 2});
  e.inst("setp.ne.u32", {second, group, 0});
  // What warpgroup 0 and warpgroup 1 do: {arrive?, barrier id}, or nothing (id 0).
  struct Action { bool arrive; int id; };
  Action mine[2];
  if (step == "wait") mine[0] = {false, first}, mine[1] = {false, first + 1};
  else if (step == "pass") mine[0] = {true, first + 1}, mine[1] = {true, first};
  else if (step == "start") mine[0] = {false, 0}, mine[1] = {true, first};
  else if (step == "end") mine[0] = {false, first}, mine[1] = {false, 0};
  else codegenBug(op, "warpgroup_turn step " + step);
  auto emit = [&](const Action& a) {
    if (a.id == 0) return;
    a.arrive ? ptx::barArrive(e, a.id, 256) : ptx::barSync(e, a.id, 256);
  };
  ptx::Label other = e.newLabel("turn_" + step + "_wg1"), done = e.newLabel("turn_" + step + "_done");
  e.inst("bra.uni", {ptx::sym(other.name)}, ptx::when(second));
  emit(mine[0]);
  e.braUni(done);
  e.label(other);
  emit(mine[1]);
  e.label(done);
}

}  // namespace

void precomputeSlotOffsets(Codegen& cg, const ir::Block& body) {
  for (const auto& opPtr : body.ops) {
    const ir::Op& op = *opPtr;
    if (op.opcode == Opcode::WarpPartition) continue;  // its threads count from its first warp
    for (const auto& r : op.regions) precomputeSlotOffsets(cg, *r);
    if (op.opcode == Opcode::LocalLoad) {
      const ir::Value *slot = op.operand(0), *res = op.result(0);
      LinearLayout to = *res->type.layout;
      if (op.hasAttr("slice_dim")) {
        const int dim = int(op.intAttr("slice_dim"));
        const int32_t size = int32_t(res->type.shape[size_t(dim)]);
        to = wholeOfPart(to, dim, size, int32_t(slot->type.shape[size_t(dim)] / size));
      }
      const ScratchPlan& plan = cg.sharedPlan(*slot->type.layout, to, memBytes(res->type.elem));
      slotThreadOffset(cg, plan.ldmatrix ? plan.ldmatrix->rowOffsets : plan.loadOffsets);
    } else if (op.opcode == Opcode::AsyncCopy) {
      const ir::Value *slot = op.operand(0), *ptr = op.operand(1);
      slotThreadOffset(cg, cg.sharedPlan(*slot->type.layout, *ptr->type.layout, memBytes(slot->type.elem)).storeOffsets);
    }
  }
}

void lowerSchedule(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  switch (op.opcode) {
    case Opcode::SharedAlloc: return sharedAlloc(cg, op);
    case Opcode::SharedSlot: return sharedSlot(cg, op);
    case Opcode::SharedPermute: return cg.bind(op.result(0), {cg.reg(op.operand(0))});  // a view: the same address
    case Opcode::LocalStore: return localStore(cg, op);
    case Opcode::LocalLoad: return localLoad(cg, op);
    case Opcode::AsyncCopy: return asyncCopy(cg, op);
    case Opcode::AsyncCommit: return ptx::cpAsyncCommit(e);
    case Opcode::AsyncWait: return ptx::cpAsyncWait(e, int(op.intAttr("pending")));
    case Opcode::AsyncCopyArrive: return ptx::cpAsyncMbarrierArrive(e, cg.reg(op.operand(0)));
    case Opcode::TensorMap: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait: return lowerTma(cg, op);
    case Opcode::Barrier: return barrier(cg, op);
    case Opcode::FenceAsyncShared: return ptx::fenceProxyAsyncShared(e);
    case Opcode::DebugBarrier: return cg.barrier();  // tl.debug_barrier: the CTA's (or the partition's) bar.sync
    case Opcode::MbarrierInit:  // one thread; a barrier makes it visible to the others (PTX-NOTES §11)
      return ptx::mbarrierInit(e, cg.reg(op.operand(0)), op.intAttr("count"), ptx::when(cg.firstThread()));
    case Opcode::MbarrierArrive: return mbarrierArrive(cg, op);
    case Opcode::MbarrierExpectTx:
      if (e.target().sm < 90) throw CompileError(op.loc, "mbarrier_expect_tx needs sm_90 or later");
      return ptx::mbarrierExpectTx(e, cg.reg(op.operand(0)), op.intAttr("bytes"), ptx::when(cg.firstThread()));
    case Opcode::MbarrierWait: return ptx::mbarrierWait(e, cg.reg(op.operand(0)), cg.reg(op.operand(1)));
    case Opcode::WarpgroupTurn: return warpgroupTurn(cg, op);
    default:  // not in the families this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not a shared-memory, async-copy or synchronisation op");
}

}  // namespace kiln::lower
