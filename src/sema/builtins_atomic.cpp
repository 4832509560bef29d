// tl.atomic_add, _and, _or, _xor, _xchg, _max, _min and tl.atomic_cas (also tensor methods) with Triton
// 3.6's rules: the element types each takes; val and mask broadcast to the pointer's shape and val
// converted to its element type, while atomic_cas converts and broadcasts nothing; sem (default acq_rel)
// and scope (default gpu); float max/min built from a signed max/min of the non-negative values' bits
// and an unsigned min/max of the negative ones', as Triton builds them. And tl.debug_barrier.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

ir::Value* atomicPointer(const CallArgs& a) {
  const SValue& p = a.at(0);
  if (!p.isIR() || !p.ir->type.isPtr())
    a.fail(a.display + "() expects a pointer or a tensor of pointers, got " + p.describe());
  return p.ir;
}

std::string semArg(const CallArgs& a, size_t i) {
  std::string s = a.strArg(i, "");
  if (s.empty()) return "acq_rel";  // Triton's default (None and "" alike)
  if (s != "relaxed" && s != "acquire" && s != "release" && s != "acq_rel")
    a.fail(a.display + "(): sem '" + s + "' is not supported; use 'relaxed', 'acquire', 'release' or 'acq_rel'");
  return s;
}

std::string scopeArg(const CallArgs& a, size_t i) {
  std::string s = a.strArg(i, "");
  if (s.empty()) return "gpu";
  if (s != "gpu" && s != "cta" && s != "sys")
    a.fail(a.display + "(): scope '" + s + "' is not supported; use 'gpu', 'cta' or 'sys'");
  return s;
}

bool isWord(Scalar t) { return ir::isInt(t) && t != Scalar::I1 && ir::bitWidth(t) >= 32; }  // (u)int32, (u)int64

// Triton refuses fp16/bf16 for all but add and elements narrower than 32 bits; its lowering takes the
// bitwise ops on integers only and max/min/xchg on 32- and 64-bit integers and floats.
void checkElement(const CallArgs& a, std::string_view op, Scalar t) {
  const bool isAdd = op == "add", floatsToo = isAdd || op == "max" || op == "min" || op == "xchg";
  bool ok = isWord(t) || (floatsToo && (t == Scalar::F32 || t == Scalar::F64)) ||
            (isAdd && (t == Scalar::F16 || t == Scalar::BF16));
  if (ok) return;
  const char* takes = isAdd       ? "int32, uint32, int64, uint64, fp16, bf16, fp32 or fp64"
                      : floatsToo ? "int32, uint32, int64, uint64, fp32 or fp64"
                                  : "int32, uint32, int64 or uint64";
  a.fail(a.display + "() does not support " + tritonDtypeName(Type::scalar(t)) + " elements (atomic_" +
         std::string(op) + " takes " + takes + ")");
}

ir::Value* emitRmw(Context& cx, const std::string& kind, ir::Value* ptr, ir::Value* val, ir::Value* mask,
                   const std::string& sem, const std::string& scope, const SourceLoc& loc) {
  std::vector<ir::Value*> operands{ptr, val};
  if (mask) operands.push_back(mask);
  return emit(cx, Opcode::AtomicRmw, operands, val->type, loc,
              {ir::Attr{"kind", kind}, ir::Attr{"scope", scope}, ir::Attr{"sem", sem}});
}

// Float max/min on the bits: for a value with the sign bit clear, signed-integer max/min orders like the
// floats (positive NaN above +inf); for one with it set, unsigned min/max does (larger bits, more
// negative). Two atomics, each masked to its half, the non-negative one first, as in Triton.
ir::Value* floatMinMax(Context& cx, bool isMax, ir::Value* ptr, ir::Value* val, ir::Value* mask,
                       const std::string& sem, const std::string& scope, const SourceLoc& loc) {
  const Scalar t = val->type.elem;
  const Type si = Type::scalar(t == Scalar::F32 ? Scalar::I32 : Scalar::I64);
  const Type ui = Type::scalar(t == Scalar::F32 ? Scalar::U32 : Scalar::U64);
  ir::Value* sv = bitcastElem(cx, val, si, loc);
  ir::Value* uv = bitcastElem(cx, val, ui, loc);
  ir::Value* sp = emit(cx, Opcode::Bitcast, {ptr}, ptr->type.withElem(Type::ptr(si.elem)), loc);
  ir::Value* up = emit(cx, Opcode::Bitcast, {ptr}, ptr->type.withElem(Type::ptr(ui.elem)), loc);
  const Type bools = sv->type.withElem(Scalar::I1);
  ir::Value* neg =
      emit(cx, Opcode::Cmp, {sv, zeroOf(cx, sv->type, loc)}, bools, loc, {ir::Attr{"pred", std::string("lt")}});
  ir::Value* pos = emit(cx, Opcode::Not, {neg}, bools, loc);
  ir::Value* posMask = mask ? emit(cx, Opcode::And, {mask, pos}, bools, loc) : pos;
  ir::Value* negMask = mask ? emit(cx, Opcode::And, {mask, neg}, bools, loc) : neg;
  ir::Value* posOld = emitRmw(cx, isMax ? "max" : "min", sp, sv, posMask, sem, scope, loc);
  ir::Value* negOld = emitRmw(cx, isMax ? "min" : "max", up, uv, negMask, sem, scope, loc);
  ir::Value* old = emit(cx, Opcode::Select, {pos, posOld, bitcastElem(cx, negOld, si, loc)}, sv->type, loc);
  return bitcastElem(cx, old, Type::scalar(t), loc);
}

SValue rmw(CallArgs& a, const std::string& op) {
  Context& cx = *a.cx;
  ir::Value* ptr = atomicPointer(a);
  const Scalar t = ptr->type.pointee;
  checkElement(a, op, t);
  ir::Value* val = toTensor(cx, a.at(1), a.loc, a.display + "(): val");
  ir::Value* mask = maskArg(a, 2);
  const std::string sem = semArg(a, 3), scope = scopeArg(a, 4);
  checkFitsPointer(a, ptr, val, "val", "updating");
  checkFitsPointer(a, ptr, mask, "the mask", "updating");
  const Shape& shape = ptr->type.shape;
  val = broadcastTo(cx, castElem(cx, val, Type::scalar(t), a.loc), shape, a.loc);
  if (mask) mask = broadcastTo(cx, mask, shape, a.loc);
  if ((op == "max" || op == "min") && ir::isFloat(t))
    return SValue::irValue(floatMinMax(cx, op == "max", ptr, val, mask, sem, scope, a.loc));
  return SValue::irValue(emitRmw(cx, op, ptr, val, mask, sem, scope, a.loc));
}

SValue atomicAdd(CallArgs& a) { return rmw(a, "add"); }
SValue atomicAnd(CallArgs& a) { return rmw(a, "and"); }
SValue atomicOr(CallArgs& a) { return rmw(a, "or"); }
SValue atomicXor(CallArgs& a) { return rmw(a, "xor"); }
SValue atomicXchg(CallArgs& a) { return rmw(a, "xchg"); }
SValue atomicMax(CallArgs& a) { return rmw(a, "max"); }
SValue atomicMin(CallArgs& a) { return rmw(a, "min"); }

SValue atomicCas(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* ptr = atomicPointer(a);
  const Scalar t = ptr->type.pointee;
  const int bits = t == Scalar::I1 || t == Scalar::Ptr ? 0 : ir::bitWidth(t);
  if (bits != 16 && bits != 32 && bits != 64)
    a.fail(a.display + "() only supports elements 16, 32 or 64 bits wide, got " + tritonDtypeName(Type::scalar(t)));
  ir::Value* cmp = toTensor(cx, a.at(1), a.loc, a.display + "(): cmp");
  ir::Value* val = toTensor(cx, a.at(2), a.loc, a.display + "(): val");
  const std::string sem = semArg(a, 3), scope = scopeArg(a, 4);
  const Type want = ptr->type.withElem(t);
  const std::string wanted = want.isTensor() ? "a " + want.str() : "a scalar of type " + want.str();
  for (auto [v, what] : {std::pair{cmp, "cmp"}, std::pair{val, "val"}})
    if (v->type != want)
      a.fail(a.display + "(): " + what + " must be " + wanted +
             ", the pointer's element type and shape (atomic_cas converts and broadcasts nothing), got " +
             SValue::irValue(v).describe());
  return SValue::irValue(emit(cx, Opcode::AtomicCas, {ptr, cmp, val}, want, a.loc,
                              {ir::Attr{"scope", scope}, ir::Attr{"sem", sem}}));
}

SValue debugBarrier(CallArgs& a) {
  a.cx->b.create(Opcode::DebugBarrier, {}, {}, {}, a.loc);
  return SValue::none();
}

constexpr BuiltinDef kAtomic[] = {
    {"atomic_add", kTl | kMember, "pointer val mask? sem? scope?", atomicAdd},
    {"atomic_and", kTl | kMember, "pointer val mask? sem? scope?", atomicAnd},
    {"atomic_or", kTl | kMember, "pointer val mask? sem? scope?", atomicOr},
    {"atomic_xor", kTl | kMember, "pointer val mask? sem? scope?", atomicXor},
    {"atomic_xchg", kTl | kMember, "pointer val mask? sem? scope?", atomicXchg},
    {"atomic_max", kTl | kMember, "pointer val mask? sem? scope?", atomicMax},
    {"atomic_min", kTl | kMember, "pointer val mask? sem? scope?", atomicMin},
    {"atomic_cas", kTl | kMember, "pointer cmp val sem? scope?", atomicCas},
    {"debug_barrier", kTl, "", debugBarrier},
};

}  // namespace

std::span<const BuiltinDef> atomicBuiltins() { return kAtomic; }

}  // namespace kiln::sema
