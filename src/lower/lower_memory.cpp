// Pointer arithmetic, loads and stores (atomics: lower_atomic.cpp). A tile access is cut into runs of consecutive register
// indices that address consecutive elements (one vector instruction each, up to 16 bytes, as far
// as axis info proves contiguity, alignment and a constant mask; one address register per contiguous
// run); duplicated elements of a layout are loaded once and stored by one thread only; scalar
// stores are made by thread 0.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "lower/linear_emit.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ir::Opcode;
using ptx::Reg;
using ptx::RegClass;

namespace {

int64_t regKey(Reg r) { return (int64_t(r.cls) << 32) | int64_t(uint32_t(r.id)); }

void ptrAdd(Codegen& cg, const ir::Op& op) {
  const ir::Value* res = op.result(0);
  const ir::Value* b = op.operand(1);
  const int bytes = memBytes(res->type.pointee);
  if (const Codegen::PtrTile* pa = res->type.isTensor() ? cg.ptrTile(op.operand(0)) : nullptr) {
    if (Reg s = uniformRegister(cg, b); s.valid()) {  // the whole tile moves: move its base
      Reg base = cg.e.reg(RegClass::B64);
      ptx::selectPtrAdd(cg.e, b->type.elem, bytes, base, pa->base, s);
      return cg.bindPtrTile(res, Codegen::PtrTile{base, pa->offsets, pa->offsetType, bytes});
    }
    const ir::Scalar bt = b->type.elem;
    if (pa->offsets.empty() && b->type.isTensor() && bt != ir::Scalar::I1 && ir::bitWidth(bt) <= 32)
      return cg.bindPtrTile(res, Codegen::PtrTile{pa->base, cg.regs(b), bt, bytes});
  }
  const size_t n = size_t(Codegen::numRegs(res->type));
  std::vector<Reg> ptr = tileRegs(cg, op.operand(0), n), off = tileRegs(cg, op.operand(1), n), out(n);
  const ir::Scalar offType = b->type.elem;
  std::map<std::pair<int64_t, int64_t>, Reg> done;  // broadcast copies share their sum
  for (size_t r = 0; r < n; ++r) {
    auto key = std::pair{regKey(ptr[r]), regKey(off[r])};
    if (auto it = done.find(key); it != done.end()) {
      out[r] = it->second;
      continue;
    }
    out[r] = cg.e.reg(RegClass::B64);
    ptx::selectPtrAdd(cg.e, offType, bytes, out[r], ptr[r], off[r]);
    done[key] = out[r];
  }
  cg.bind(res, std::move(out));
}

// The pointers of a tile access, formed for the register indices that start an access only.
class Addresses {
 public:
  Addresses(Codegen& cg, const ir::Value* ptr, size_t n) : cg_(cg) {
    if (const Codegen::PtrTile* t = cg.ptrTile(ptr)) tile_ = *t;
    else plain_ = tileRegs(cg, ptr, n);
  }
  // The address of register index r as a register and an immediate byte offset. Offsets known to be
  // `x + constant` (Codegen::sumOf, arange's coordinates) share the pointer base + x and differ only in
  // the immediate, so a row of vectors needs one address register, not one per vector.
  struct Address {
    Reg reg;
    int64_t imm = 0;
  };
  Address at(size_t r) {
    if (!tile_) return {plain_.at(r), 0};
    if (tile_->offsets.empty()) return {tile_->base, 0};
    const Reg off = tile_->offsets.at(r);
    if (std::optional<Codegen::Sum> sum = cg_.sumOf(off); sum && tile_->offsetType == ir::Scalar::I32) {
      const int64_t imm = sum->constant * tile_->elemBytes;
      if (!sum->base.valid()) return {tile_->base, imm};
      auto [it, fresh] = byOffset_.emplace(sum->base.id, Reg{});
      if (fresh) {
        it->second = cg_.e.reg(ptx::RegClass::B64);
        ptx::selectPtrAdd(cg_.e, tile_->offsetType, tile_->elemBytes, it->second, tile_->base, sum->base);
      }
      return {it->second, imm};
    }
    auto [it, fresh] = byOffset_.emplace(off.id, Reg{});
    if (fresh) it->second = cg_.ptrAddress(*tile_, r);
    return {it->second, 0};
  }

 private:
  Codegen& cg_;
  std::optional<Codegen::PtrTile> tile_;
  std::vector<Reg> plain_;
  std::map<int, Reg> byOffset_;  // by offset register id (or the id of its sum's base)
};

void load(Codegen& cg, const ir::Op& op) {
  const ir::Value* ptr = op.operand(0);
  const ir::Value* mask = op.numOperands() > 1 ? op.operand(1) : nullptr;
  const ir::Value* other = op.numOperands() > 2 ? op.operand(2) : nullptr;
  const ir::Value* res = op.result(0);
  const ir::Scalar t = res->type.elem;
  const ptx::MemHints hints = ptx::memHintsOf(op);
  if (!ptr->type.isTensor()) {  // every thread loads the same element
    Reg d = cg.e.reg(ptx::regClassOf(t));
    std::vector<Reg> fill;
    if (other) fill.push_back(cg.reg(other));
    ptx::loadVector(cg.e, ptx::Space::Global, t, std::span(&d, 1), cg.reg(ptr), 0, hints,
                    mask ? ptx::when(cg.reg(mask)) : ptx::Guard{}, fill);
    return cg.bind(res, {d});
  }
  const layout::LinearLayout& l = *ptr->type.layout;
  const size_t n = size_t(Codegen::numRegs(res->type));
  const AccessPlan plan = planAccess(cg.axis, ptr, mask, l);
  const size_t vec = plan.vec;
  Addresses p(cg, ptr, n);
  std::vector<Reg> m, o, out(n);
  if (mask) m = tileRegs(cg, mask, n);
  if (other) o = tileRegs(cg, other, n);
  std::vector<int32_t> canon = canonicalRegisters(l);
  std::map<std::vector<int64_t>, size_t> loaded;  // same address, mask and fill: same values
  for (size_t r = 0; r < n; r += vec) {
    if (size_t(canon[r]) != r) continue;  // a copy of an earlier register: bound below
    const size_t head = r - r % plan.run;
    const int64_t offset = int64_t(r - head) * memBytes(t);
    const Addresses::Address a = p.at(head);
    std::vector<int64_t> key{regKey(a.reg), a.imm + offset, mask ? regKey(m[r]) : -1};
    for (size_t i = 0; other && i < vec; ++i) key.push_back(regKey(o[r + i]));
    if (auto it = loaded.find(key); it != loaded.end()) {
      for (size_t i = 0; i < vec; ++i) out[r + i] = out[it->second + i];
      continue;
    }
    for (size_t i = 0; i < vec; ++i) out[r + i] = cg.e.reg(ptx::regClassOf(t));
    std::span<const Reg> fill = other ? std::span<const Reg>(o).subspan(r, vec) : std::span<const Reg>();
    ptx::loadVector(cg.e, ptx::Space::Global, t, std::span<const Reg>(out).subspan(r, vec), a.reg, a.imm + offset, hints,
                    mask ? ptx::when(m[r]) : ptx::Guard{}, fill);
    loaded.emplace(std::move(key), r);
  }
  for (size_t r = 0; r < n; ++r)
    if (size_t(canon[r]) != r) out[r] = out[size_t(canon[r])];
  cg.bind(res, std::move(out));
}

void store(Codegen& cg, const ir::Op& op) {
  const ir::Value* ptr = op.operand(0);
  const ir::Value* value = op.operand(1);
  const ir::Value* mask = op.numOperands() > 2 ? op.operand(2) : nullptr;
  const ir::Scalar t = value->type.elem;
  const ptx::MemHints hints = ptx::memHintsOf(op);
  if (!ptr->type.isTensor()) {  // every thread has the value; thread 0 writes it
    Reg guard = bothPredicates(cg, cg.firstThread(), mask ? cg.reg(mask) : Reg{});
    Reg v = cg.reg(value);
    ptx::storeVector(cg.e, ptx::Space::Global, t, std::span(&v, 1), cg.reg(ptr), 0, hints, ptx::when(guard));
    return;
  }
  const layout::LinearLayout& l = *ptr->type.layout;
  const size_t n = size_t(Codegen::numRegs(ptr->type));
  const AccessPlan plan = planAccess(cg.axis, ptr, mask, l);
  const size_t vec = plan.vec;
  Addresses p(cg, ptr, n);
  std::vector<Reg> v = tileRegs(cg, value, n), m;
  if (mask) m = tileRegs(cg, mask, n);
  std::vector<int32_t> canon = canonicalRegisters(l);
  const Reg owner = cg.ownerPredicate(l);  // broadcast copies in other lanes/warps store nothing
  std::map<int64_t, Reg> guards;           // mask register -> mask and owner
  std::set<std::vector<int64_t>> stored;
  for (size_t r = 0; r < n; r += vec) {
    if (size_t(canon[r]) != r) continue;
    const size_t head = r - r % plan.run;
    const int64_t offset = int64_t(r - head) * memBytes(t);
    const Addresses::Address a = p.at(head);
    std::vector<int64_t> key{regKey(a.reg), a.imm + offset, mask ? regKey(m[r]) : -1};
    for (size_t i = 0; i < vec; ++i) key.push_back(regKey(v[r + i]));
    if (!stored.insert(std::move(key)).second) continue;
    Reg guard = owner;
    if (mask) {
      auto [it, fresh] = guards.emplace(regKey(m[r]), Reg{});
      if (fresh) it->second = bothPredicates(cg, m[r], owner);
      guard = it->second;
    }
    ptx::storeVector(cg.e, ptx::Space::Global, t, std::span<const Reg>(v).subspan(r, vec), a.reg, a.imm + offset, hints,
                     guard.valid() ? ptx::when(guard) : ptx::Guard{});
  }
}

}  // namespace

std::vector<Reg> tileRegs(Codegen& cg, const ir::Value* v, size_t n) {
  const std::vector<Reg>& r = cg.regs(v);
  if (!v->type.isTensor()) return std::vector<Reg>(n, r.at(0));
  if (r.size() != n) throw InternalError({}, "codegen: operands of one access have different register counts");
  return r;
}

Reg bothPredicates(Codegen& cg, Reg a, Reg b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  Reg p = cg.e.reg(RegClass::Pred);
  cg.e.inst("and.pred", {p, a, b});
  return p;
}

Reg uniformRegister(Codegen& cg, const ir::Value* v) {
  if (!v->type.isTensor()) return cg.reg(v);
  if (v->def && v->def->opcode == Opcode::Splat) return cg.reg(v->def->operand(0));
  if (v->def && v->def->opcode == Opcode::Constant) return cg.regs(v).at(0);
  return Reg{};
}

std::vector<int32_t> canonicalRegisters(const layout::LinearLayout& l, std::span<const int64_t> constancy) {
  int bits = l.hasInDim(layout::kRegister) ? l.getInDimSizeLog2(layout::kRegister) : 0;
  std::vector<int32_t> out(size_t(1) << bits);
  // Coordinates are the XOR of the register part and the thread part, and a block of 2^k elements is
  // a coordinate's bits above k: two registers of one thread share a block when their register parts
  // agree above k, whatever the thread.
  std::vector<int> shift(l.outs().size(), 0);
  for (size_t d = 0; d < shift.size() && d < constancy.size(); ++d)
    while ((int64_t(2) << shift[d]) <= constancy[d] && constancy[d] % (int64_t(2) << shift[d]) == 0) ++shift[d];
  std::map<std::vector<int32_t>, int32_t> first;
  for (int32_t r = 0; r < int32_t(out.size()); ++r) {
    std::vector<int32_t> c(l.outs().size(), 0);
    for (int b = 0; b < bits; ++b)
      if ((r >> b) & 1)
        for (size_t d = 0; d < c.size(); ++d) c[d] ^= l.basis(layout::kRegister, b)[d];
    for (size_t d = 0; d < c.size(); ++d) c[d] >>= shift[d];
    out[size_t(r)] = first.emplace(std::move(c), r).first->second;
  }
  return out;
}

void lowerMemory(Codegen& cg, const ir::Op& op) {
  switch (op.opcode) {
    case Opcode::PtrAdd: return ptrAdd(cg, op);
    case Opcode::Load: return load(cg, op);
    case Opcode::Store: return store(cg, op);
    case Opcode::AtomicRmw: case Opcode::AtomicCas: return lowerAtomic(cg, op);
    default:  // not in the families this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not a memory op");
}

}  // namespace kiln::lower
