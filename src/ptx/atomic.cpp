// atom / red selection (ptx/atomic.h): the instruction from the kind, the element type and the
// qualifiers; below sm_90, where PTX has no atom.add.bf16, a compare-and-swap loop whose sum is one
// fma.rn.bf16 (x * 1 + y: rounded once, as the interpreter's add).
#include "ptx/atomic.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ptx/isel.h"
#include "ptx/isel_impl.h"

namespace kiln::ptx {

using ir::Scalar;
using detail::internal;

namespace {

std::string_view semName(MemSem s) {
  switch (s) {
    case MemSem::Relaxed: return ".relaxed";
    case MemSem::Acquire: return ".acquire";
    case MemSem::Release: return ".release";
    case MemSem::AcqRel: return ".acq_rel";
  }
  return "";
}

std::string_view scopeName(MemScope s) {
  switch (s) {
    case MemScope::Cta: return ".cta";
    case MemScope::Gpu: return ".gpu";
    case MemScope::Sys: return ".sys";
  }
  return "";
}

std::string_view kindName(AtomicKind k) {
  switch (k) {
    case AtomicKind::Add: return ".add";
    case AtomicKind::And: return ".and";
    case AtomicKind::Or: return ".or";
    case AtomicKind::Xor: return ".xor";
    case AtomicKind::Xchg: return ".exch";
    case AtomicKind::Max: return ".max";
    case AtomicKind::Min: return ".min";
    case AtomicKind::Cas: return ".cas";
  }
  return "";
}

bool isWord(Scalar t) { return ir::isInt(t) && t != Scalar::I1 && ir::bitWidth(t) >= 32; }  // i32 u32 i64 u64

// The instruction's type: add .u32/.u64 (the same bits for signed integers), .f32, .f64, .noftz.f16{x2},
// .noftz.bf16{x2}; max/min by signedness; the bitwise kinds, exchange and compare-and-swap by width.
std::string typeSuffix(const AtomicOp& op) {
  const Scalar t = op.type;
  const std::string bits = std::to_string(ir::bitWidth(t));
  switch (op.kind) {
    case AtomicKind::Add:
      if (detail::isHalf(t))
        return std::string(".noftz.") + (t == Scalar::F16 ? "f16" : "bf16") + (op.pair ? "x2" : "");
      if (t == Scalar::F32 || t == Scalar::F64) return ".f" + bits;
      return ".u" + bits;
    case AtomicKind::Max: case AtomicKind::Min: return std::string(intSuffix(t));
    case AtomicKind::And: case AtomicKind::Or: case AtomicKind::Xor: case AtomicKind::Xchg: case AtomicKind::Cas:
      return ".b" + bits;
  }
  return "";
}

// The element types each kind is defined on (Tile IR's type rules, ir/verifier_atomic.cpp).
bool defined(const AtomicOp& op) {
  const Scalar t = op.type;
  if (op.pair) return op.kind == AtomicKind::Add && detail::isHalf(t);
  switch (op.kind) {
    case AtomicKind::Add: return isWord(t) || detail::isHalf(t) || t == Scalar::F32 || t == Scalar::F64;
    case AtomicKind::And: case AtomicKind::Or: case AtomicKind::Xor: case AtomicKind::Max: case AtomicKind::Min:
      return isWord(t);
    case AtomicKind::Xchg: return isWord(t) || t == Scalar::F32 || t == Scalar::F64;
    case AtomicKind::Cas:
      return t != Scalar::I1 && t != Scalar::Ptr && (ir::bitWidth(t) == 16 || ir::bitWidth(t) >= 32);
  }
  return false;
}

// red exists for the arithmetic and bitwise kinds, and orders only as relaxed or release.
bool hasRed(const AtomicOp& op) {
  return op.kind != AtomicKind::Xchg && op.kind != AtomicKind::Cas &&
         (op.sem == MemSem::Relaxed || op.sem == MemSem::Release);
}

std::string casStem(const AtomicOp& op) {
  return "atom.global" + std::string(semName(op.sem)) + std::string(scopeName(op.scope)) + ".cas";
}

// bf16 add below sm_90: read the element, then compare-and-swap old -> old + val until no other thread
// changed it in between (the swap returns what it found, the next try's old value). Each thread loops
// on its own: the branches are divergent.
void casLoopAdd(Entry& e, const AtomicOp& op, Reg dst, Reg address, int64_t offset, Reg val, Guard guard) {
  const RegClass c = op.pair ? RegClass::B32 : RegClass::B16;
  const std::string b = op.pair ? ".b32" : ".b16";
  const Label skip = e.newLabel("atom_skip"), retry = e.newLabel("atom_retry");
  if (guard.active()) e.bra(skip, Guard{guard.pred, !guard.negate});
  const Reg old = e.reg(c), one = e.reg(c), sum = e.reg(c), seen = e.reg(c), again = e.reg(RegClass::Pred);
  e.inst("ld.global" + b, {old, addr(address, offset)});
  e.inst("mov" + b, {one, hexImm(op.pair ? 0x3F803F80 : 0x3F80)});  // bf16 1.0 (in both halves)
  e.label(retry);
  e.inst(op.pair ? "fma.rn.bf16x2" : "fma.rn.bf16", {sum, old, one, val});
  e.inst(casStem(op) + b, {seen, addr(address, offset), old, sum});
  e.inst("setp.ne" + b, {again, seen, old});
  e.inst("mov" + b, {old, seen});
  e.bra(retry, when(again));
  if (dst.valid()) e.inst("mov" + b, {dst, old});
  e.label(skip);
}

}  // namespace

AtomicOp atomicOpOf(const ir::Op& op) {
  AtomicOp a;
  a.type = op.result(0)->type.elem;
  if (op.opcode == ir::Opcode::AtomicCas) {
    a.kind = AtomicKind::Cas;
  } else {
    static constexpr std::pair<std::string_view, AtomicKind> kKinds[] = {
        {"add", AtomicKind::Add}, {"and", AtomicKind::And}, {"or", AtomicKind::Or},   {"xor", AtomicKind::Xor},
        {"xchg", AtomicKind::Xchg}, {"max", AtomicKind::Max}, {"min", AtomicKind::Min}};
    const std::string& k = op.strAttr("kind");
    auto it = std::find_if(std::begin(kKinds), std::end(kKinds), [&](const auto& p) { return p.first == k; });
    if (it == std::end(kKinds)) internal(op.loc, "unknown atomic kind '" + k + "'");
    a.kind = it->second;
  }
  const std::string& sem = op.strAttr("sem");
  const std::string& scope = op.strAttr("scope");
  if (sem == "relaxed") a.sem = MemSem::Relaxed;
  else if (sem == "acquire") a.sem = MemSem::Acquire;
  else if (sem == "release") a.sem = MemSem::Release;
  else if (sem == "acq_rel") a.sem = MemSem::AcqRel;
  else internal(op.loc, "unknown atomic sem '" + sem + "'");
  if (scope == "cta") a.scope = MemScope::Cta;
  else if (scope == "gpu") a.scope = MemScope::Gpu;
  else if (scope == "sys") a.scope = MemScope::Sys;
  else internal(op.loc, "unknown atomic scope '" + scope + "'");
  return a;
}

void atomic(Entry& e, const AtomicOp& op, Reg dst, Reg address, int64_t offset, Reg val, Reg cmp, Guard guard) {
  if (!defined(op))
    internal({}, "atomic" + std::string(kindName(op.kind)) + " is not defined on " + std::string(ir::name(op.type)));
  const RegClass c = op.pair ? RegClass::B32 : regClassOf(op.type);
  detail::expectClass({}, address, RegClass::B64, "atomic address");
  detail::expectClass({}, val, c, "atomic value");
  if (dst.valid()) detail::expectClass({}, dst, c, "atomic result");
  if (op.kind == AtomicKind::Cas) detail::expectClass({}, cmp, c, "compare value");
  if (op.kind == AtomicKind::Add && op.type == Scalar::BF16 && e.target().sm < 90)
    return casLoopAdd(e, op, dst, address, offset, val, guard);
  // ptxas 13.0 crashes (segmentation fault) on a bf16 or bf16x2 `atom` whose result is the sink `_`
  // (sm_90a; f16 is fine): those get a register nobody reads.
  const Operand result = dst.valid()                ? Operand(dst)
                         : op.type == Scalar::BF16 ? Operand(e.reg(c))
                                                   : Operand::raw("_");
  const std::string order = std::string(scopeName(op.scope)) + std::string(semName(op.sem));
  if (op.kind == AtomicKind::Cas && ir::bitWidth(op.type) == 16 && c != RegClass::B16) {
    // 16-bit integers sit widened in .b32 registers; atom.cas.b16 takes .b16 ones (ptxas: "Arguments
    // mismatch"), and its old value comes back extended as the type's registers hold it.
    Reg cmp16 = e.reg(RegClass::B16), val16 = e.reg(RegClass::B16), old16 = e.reg(RegClass::B16);
    e.inst("cvt.u16.u32", {cmp16, cmp}, guard);
    e.inst("cvt.u16.u32", {val16, val}, guard);
    e.inst(casStem(op) + ".b16", {dst.valid() ? Operand(old16) : Operand::raw("_"), addr(address, offset), cmp16, val16},
           guard);
    if (dst.valid()) e.inst(ir::isSigned(op.type) ? "cvt.s32.s16" : "cvt.u32.u16", {dst, old16}, guard);
    return;
  }
  if (op.kind == AtomicKind::Cas)
    return e.inst(casStem(op) + typeSuffix(op), {result, addr(address, offset), cmp, val}, guard);
  if (!dst.valid() && hasRed(op))
    return e.inst("red.global" + order + std::string(kindName(op.kind)) + typeSuffix(op), {addr(address, offset), val},
                  guard);
  e.inst("atom.global" + order + std::string(kindName(op.kind)) + typeSuffix(op), {result, addr(address, offset), val},
         guard);
}

}  // namespace kiln::ptx
