// gather and histogram through shared memory. gather: the owners of src's elements store them row-major
// into scratch, and after a barrier each thread loads its result elements from the address its index
// picks (the index taken modulo the axis size, as on the interpreter). histogram: the CTA zeroes one
// counter per bin, every owner of an element in range adds 1 to its bin with red.shared, and after a
// barrier each thread reads the counts its result registers hold.
#include <bit>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "lower/linear_emit.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;

namespace {

// l's out dims flattened row-major into one (the scratch offset, in elements, of each coordinate).
LinearLayout rowMajor(const LinearLayout& l) { return l.reshapeOuts({{"dim0", int32_t(l.totalOutSize())}}); }

// The low 32 bits of an integer register (8..32-bit values are already extended in .b32; i1 is a .pred).
Reg low32(Codegen& cg, const ir::Op& op, Reg v) {
  if (v.cls == RegClass::B32) return v;
  Reg r = cg.e.reg(RegClass::B32);
  if (v.cls == RegClass::B64) cg.e.inst("cvt.u32.u64", {r, v});
  else if (v.cls == RegClass::Pred) cg.e.inst("selp.u32", {r, 1, 0, v});
  else codegenBug(op, "an integer operand is not in an integer register");
  return r;
}

// Stores every element of `regs` (layout l, element type t) at its row-major place in scratch from the
// one thread that owns it.
void storeRowMajor(Codegen& cg, const LinearLayout& l, ir::Scalar t, const std::vector<Reg>& regs, Reg base) {
  const int bytes = memBytes(t);
  const LinearLayout flat = rowMajor(l);
  const Reg owner = cg.ownerPredicate(l);
  const std::vector<int32_t> canon = canonicalRegisters(l);
  SharedAddresses at(cg, base, threadPart(cg, flat, 0), threadMask(flat, 0), bytes);
  for (size_t r = 0; r < regs.size(); ++r) {
    if (size_t(canon[r]) != r) continue;
    const SharedAddresses::Address a = at.at(registerPart(flat, int32_t(r), 0));
    ptx::storeVector(cg.e, ptx::Space::Shared, t, std::span(&regs[r], 1), a.reg, a.offset, {},
                     owner.valid() ? ptx::when(owner) : ptx::Guard{});
  }
}

void gather(Codegen& cg, const ir::Op& op) {
  const ir::Value *src = op.operand(0), *index = op.operand(1), *res = op.result(0);
  const LinearLayout &sl = *src->type.layout, &rl = *res->type.layout;
  if (*index->type.layout != rl) codegenBug(op, "the index must be in the result's layout");
  const int axis = int(op.intAttr("axis"));
  const ir::Scalar t = src->type.isPtr() ? ir::Scalar::U64 : src->type.elem;
  const int bytes = memBytes(t);
  const Codegen::Scratch s = cg.scratch(op, src->type.numel() * bytes);
  cg.e.comment("gather through shared memory");
  storeRowMajor(cg, sl, t, cg.regs(src), s.address);
  cg.barrier();

  // The row-major offset in src of each result element with its axis coordinate left 0 (the result's
  // coordinates off the axis, in src's shape), plus index * stride.
  std::vector<layout::InDim> ins = rl.ins();
  for (layout::InDim& in : ins)
    for (layout::Basis& b : in.bases) b[size_t(axis)] = 0;
  std::vector<layout::OutDim> outs = rl.outs();
  outs[size_t(axis)].size = int32_t(src->type.shape[size_t(axis)]);
  const LinearLayout offAxis = rowMajor(LinearLayout(std::move(ins), std::move(outs)));
  int64_t stride = 1;
  for (size_t d = size_t(axis) + 1; d < src->type.shape.size(); ++d) stride *= src->type.shape[d];
  const int shift = std::countr_zero(uint64_t(stride * bytes));  // powers of two
  const int64_t wrap = src->type.shape[size_t(axis)] - 1;
  SharedAddresses at(cg, s.address, threadPart(cg, offAxis, 0), threadMask(offAxis, 0), bytes);
  const std::vector<Reg>& idx = cg.regs(index);
  const std::vector<int32_t> canon = canonicalRegisters(rl);
  std::vector<Reg> out(idx.size());
  for (size_t r = 0; r < idx.size(); ++r) {
    if (size_t(canon[r]) != r) {
      out[r] = out[size_t(canon[r])];
      continue;
    }
    const SharedAddresses::Address a = at.at(registerPart(offAxis, int32_t(r), 0));
    Reg i = cg.e.reg(RegClass::B32), addr = cg.e.reg(RegClass::B32);
    cg.e.inst("and.b32", {i, low32(cg, op, idx[r]), wrap});
    cg.e.inst("shl.b32", {i, i, shift});
    cg.e.inst("add.u32", {addr, a.reg, i});
    out[r] = cg.e.reg(ptx::regClassOf(t));
    ptx::loadVector(cg.e, ptx::Space::Shared, t, std::span(&out[r], 1), addr, a.offset);
  }
  cg.bind(res, std::move(out));
}

void histogram(Codegen& cg, const ir::Op& op) {
  const ir::Value *x = op.operand(0), *res = op.result(0);
  const LinearLayout &xl = *x->type.layout, &rl = *res->type.layout;
  const int64_t bins = res->type.numel();
  const Codegen::Scratch s = cg.scratch(op, bins * 4);
  ptx::Entry& e = cg.e;
  e.comment("histogram through shared memory");

  // Zero the counters: thread k clears counters k, k + threads, ...
  const int64_t threads = int64_t(cg.numWarps) * 32;
  Reg mine = e.reg(RegClass::B32), zero = e.reg(RegClass::B32);
  e.inst("shl.b32", {mine, cg.tid(), 2});
  e.inst("add.u32", {mine, mine, s.address});
  e.inst("mov.b32", {zero, 0});
  Reg tail;
  if (bins % threads != 0) {
    tail = e.reg(RegClass::Pred);
    e.inst("setp.lt.u32", {tail, cg.tid(), bins % threads});
  }
  for (int64_t k = 0; k * threads < bins; ++k) {
    const bool last = (k + 1) * threads > bins;
    e.inst("st.shared.b32", {ptx::addr(mine, k * threads * 4), zero}, last ? ptx::when(tail) : ptx::Guard{});
  }
  cg.barrier();

  // Count: one red.shared per element, by its owner, when the value is a bin.
  const Reg owner = cg.ownerPredicate(xl);
  const std::vector<int32_t> canon = canonicalRegisters(xl);
  const std::vector<Reg>& v = cg.regs(x);
  const bool wide = v.empty() ? false : v[0].cls == RegClass::B64;
  Reg one = e.reg(RegClass::B32);
  e.inst("mov.b32", {one, 1});
  for (size_t r = 0; r < v.size(); ++r) {
    if (size_t(canon[r]) != r) continue;
    Reg inRange = e.reg(RegClass::Pred), at = e.reg(RegClass::B32);
    e.inst(wide ? "setp.lt.u64" : "setp.lt.u32", {inRange, v[r], bins});
    const Reg guard = bothPredicates(cg, inRange, owner);
    e.inst("shl.b32", {at, low32(cg, op, v[r]), 2});
    e.inst("add.u32", {at, at, s.address});
    e.inst("red.shared.add.u32", {ptx::addr(at), one}, ptx::when(guard));
  }
  cg.barrier();

  // Read back: each register of the result holds the counter of its coordinate.
  const LinearLayout flat = rowMajor(rl);
  SharedAddresses read(cg, s.address, threadPart(cg, flat, 0), threadMask(flat, 0), 4);
  const std::vector<int32_t> rcanon = canonicalRegisters(rl);
  std::vector<Reg> out(size_t(Codegen::numRegs(res->type)));
  for (size_t r = 0; r < out.size(); ++r) {
    if (size_t(rcanon[r]) != r) {
      out[r] = out[size_t(rcanon[r])];
      continue;
    }
    const SharedAddresses::Address a = read.at(registerPart(flat, int32_t(r), 0));
    out[r] = e.reg(RegClass::B32);
    e.inst("ld.shared.b32", {out[r], ptx::addr(a.reg, a.offset)});
  }
  cg.bind(res, std::move(out));
}

}  // namespace

void lowerExchange(Codegen& cg, const ir::Op& op) {
  switch (op.opcode) {
    case ir::Opcode::Gather: return gather(cg, op);
    case ir::Opcode::Histogram: return histogram(cg, op);
    default:  // not in the family this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not an exchange op");
}

}  // namespace kiln::lower
