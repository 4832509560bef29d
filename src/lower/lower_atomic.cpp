// atomic_rmw and atomic_cas: one `atom` per element a thread owns (two f16/bf16 adds in one packed
// .f16x2/.bf16x2 `atom` where axis info proves the pair contiguous and aligned), `red` when nothing reads
// the old values. An atomic done twice is a wrong result, so where a layout gives an element to several
// threads (a tile smaller than the CTA, a broadcast), only the owner of ownerPredicate acts, and a result
// that is read goes to the other copies through shared memory; a scalar atomic is done by thread 0 and
// its old value handed to every thread the same way.
#include <map>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "lower/linear_emit.h"
#include "ptx/atomic.h"
#include "ptx/isel.h"
#include "ptx/memory.h"

namespace kiln::lower {

using ptx::Reg;
using ptx::RegClass;

namespace {

bool reads(const ir::Block& b, const ir::Value* v) {
  for (const auto& op : b.ops) {
    for (const ir::Value* x : op->operands)
      if (x == v) return true;
    for (const auto& r : op->regions)
      if (reads(*r, v)) return true;
  }
  return false;
}

// Whether some op reads the old values (all its users lie in the atomic's block or regions below it).
bool resultUsed(const ir::Op& op) { return op.parent && reads(*op.parent, op.result(0)); }

// A fresh register for the old value, holding 0 until the atomic writes it: a masked-off element's result.
Reg zeroed(Codegen& cg, ir::Scalar t, bool pair) {
  Reg r = cg.e.reg(pair ? RegClass::B32 : ptx::regClassOf(t));
  if (pair) cg.e.inst("mov.b32", {r, 0});
  else ptx::selectConstant(cg.e, t, ir::intElem(0), r);
  return r;
}

// The value `owner`'s thread holds in `regs` (the layout's copies in other lanes and warps hold nothing
// yet), for every thread: the owners write each element to its row-major place in a scratch tile, and
// after a barrier every thread reads its elements back.
void shareFromOwners(Codegen& cg, const ir::Op& op, const layout::LinearLayout& l, ir::Scalar t, Reg owner, std::vector<Reg>& regs,
                     const std::vector<int32_t>& canon) {
  const int bytes = memBytes(t);
  const layout::LinearLayout flat = l.reshapeOuts({{"dim0", int32_t(l.totalOutSize())}});
  const Codegen::Scratch s = cg.scratch(op, l.totalOutSize() * bytes);
  SharedAddresses at(cg, s.address, threadPart(cg, flat, 0), threadMask(flat, 0), bytes);
  for (size_t r = 0; r < regs.size(); ++r) {
    if (size_t(canon[r]) != r) continue;
    const SharedAddresses::Address a = at.at(registerPart(flat, int32_t(r), 0));
    ptx::storeVector(cg.e, ptx::Space::Shared, t, std::span(&regs[r], 1), a.reg, a.offset, {}, ptx::when(owner));
  }
  cg.barrier();
  for (size_t r = 0; r < regs.size(); ++r) {
    if (size_t(canon[r]) != r) continue;
    const SharedAddresses::Address a = at.at(registerPart(flat, int32_t(r), 0));
    regs[r] = cg.e.reg(ptx::regClassOf(t));
    ptx::loadVector(cg.e, ptx::Space::Shared, t, std::span(&regs[r], 1), a.reg, a.offset);
  }
  for (size_t r = 0; r < regs.size(); ++r) regs[r] = regs[size_t(canon[r])];
}

void lowerScalar(Codegen& cg, const ir::Op& op, const ptx::AtomicOp& a, bool used) {
  const bool cas = a.kind == ptx::AtomicKind::Cas;
  const ir::Value* mask = !cas && op.numOperands() > 2 ? op.operand(2) : nullptr;
  const Reg first = cg.firstThread();
  const Reg guard = bothPredicates(cg, first, mask ? cg.reg(mask) : Reg{});
  Reg old = used ? zeroed(cg, a.type, false) : Reg{};
  ptx::atomic(cg.e, a, old, cg.reg(op.operand(0)), 0, cg.reg(op.operand(cas ? 2 : 1)),
              cas ? cg.reg(op.operand(1)) : Reg{}, ptx::when(guard));
  if (!used) return;
  const Codegen::Scratch s = cg.scratch(op, memBytes(a.type));
  ptx::storeVector(cg.e, ptx::Space::Shared, a.type, std::span(&old, 1), s.address, 0, {}, ptx::when(first));
  cg.barrier();
  Reg all = cg.e.reg(ptx::regClassOf(a.type));
  ptx::loadVector(cg.e, ptx::Space::Shared, a.type, std::span(&all, 1), s.address, 0);
  cg.bind(op.result(0), {all});
}

void lowerTile(Codegen& cg, const ir::Op& op, const ptx::AtomicOp& a, bool used) {
  const bool cas = a.kind == ptx::AtomicKind::Cas;
  const ir::Value* ptr = op.operand(0);
  const ir::Value* mask = !cas && op.numOperands() > 2 ? op.operand(2) : nullptr;
  const layout::LinearLayout& l = *ptr->type.layout;
  const size_t n = size_t(Codegen::numRegs(ptr->type));
  const std::vector<Reg> p = cg.regs(ptr), v = tileRegs(cg, op.operand(cas ? 2 : 1), n);
  const std::vector<Reg> c = cas ? tileRegs(cg, op.operand(1), n) : std::vector<Reg>();
  const std::vector<Reg> m = mask ? tileRegs(cg, mask, n) : std::vector<Reg>();
  const std::vector<int32_t> canon = canonicalRegisters(l);
  const Reg owner = cg.ownerPredicate(l);  // copies in other lanes and warps do nothing
  ptx::AtomicOp one = a;
  one.pair = a.kind == ptx::AtomicKind::Add && (a.type == ir::Scalar::F16 || a.type == ir::Scalar::BF16) &&
             planAccess(cg.axis, ptr, mask, l).vec >= 2;
  const size_t step = one.pair ? 2 : 1;
  std::map<int, Reg> guards;  // by mask register: mask and owner
  std::vector<Reg> out(n);
  for (size_t r = 0; r < n; r += step) {
    if (size_t(canon[r]) != r) continue;
    Reg guard = owner;
    if (mask) {
      auto [it, fresh] = guards.emplace(m[r].id, Reg{});
      if (fresh) it->second = bothPredicates(cg, m[r], owner);
      guard = it->second;
    }
    Reg old = used ? zeroed(cg, a.type, one.pair) : Reg{};
    const Reg value = one.pair ? ptx::pack16x2(cg.e, v[r], v[r + 1]) : v[r];
    ptx::atomic(cg.e, one, old, p[r], 0, value, cas ? c[r] : Reg{}, guard.valid() ? ptx::when(guard) : ptx::Guard{});
    if (!used) continue;
    if (!one.pair) {
      out[r] = old;
      continue;
    }
    out[r] = cg.e.reg(RegClass::B16);
    out[r + 1] = cg.e.reg(RegClass::B16);
    ptx::unpack16x2(cg.e, old, out[r], out[r + 1]);
  }
  if (!used) return;
  if (owner.valid()) {
    shareFromOwners(cg, op, l, a.type, owner, out, canon);
  } else {
    for (size_t r = 0; r < n; ++r) out[r] = out[size_t(canon[r])];
  }
  cg.bind(op.result(0), std::move(out));
}

}  // namespace

void lowerAtomic(Codegen& cg, const ir::Op& op) {
  const ptx::AtomicOp a = ptx::atomicOpOf(op);
  const bool used = resultUsed(op);
  if (op.operand(0)->type.isTensor()) return lowerTile(cg, op, a, used);
  lowerScalar(cg, op, a, used);
}

}  // namespace kiln::lower
