// Instruction selection entry points: register classes per dtype, the element-wise dispatcher
// (one switch over ops.def), integer normalisation, constants and pointer arithmetic.
#include <cstdio>

#include "ptx/isel_impl.h"

namespace kiln::ptx {

using ir::Opcode;
using ir::Scalar;

RegClass regClassOf(Scalar t) {
  switch (t) {
    case Scalar::I1: return RegClass::Pred;
    case Scalar::I8: case Scalar::I16: case Scalar::I32:
    case Scalar::U8: case Scalar::U16: case Scalar::U32:
      return RegClass::B32;
    case Scalar::I64: case Scalar::U64: case Scalar::Ptr: return RegClass::B64;
    case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: case Scalar::F16: case Scalar::BF16: return RegClass::B16;
    case Scalar::F32: return RegClass::F32;
    case Scalar::F64: return RegClass::F64;
  }
  return RegClass::B32;
}

ParamType paramTypeOf(Scalar t) {
  switch (t) {
    case Scalar::I1: case Scalar::U8: return ParamType::U8;
    case Scalar::I8: return ParamType::S8;
    case Scalar::I16: return ParamType::S16;
    case Scalar::U16: return ParamType::U16;
    case Scalar::I32: return ParamType::S32;
    case Scalar::U32: return ParamType::U32;
    case Scalar::I64: return ParamType::S64;
    case Scalar::U64: return ParamType::U64;
    case Scalar::Ptr: return ParamType::Ptr;
    case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: return ParamType::B8;
    case Scalar::F16: case Scalar::BF16: return ParamType::B16;
    case Scalar::F32: return ParamType::F32;
    case Scalar::F64: return ParamType::F64;
  }
  return ParamType::U32;
}

ElementOp elementOpOf(const ir::Op& op, Scalar type) {
  if (!isElementwise(op.opcode)) detail::internal(op.loc, std::string("'") + op.name() + "' is not element-wise");
  ElementOp e{op.opcode, type, CmpPred::Eq, false, false, op.loc};
  if (op.opcode == Opcode::Cmp) {
    static constexpr CmpPred kPreds[] = {CmpPred::Eq, CmpPred::Ne, CmpPred::Lt, CmpPred::Le, CmpPred::Gt, CmpPred::Ge};
    std::string p = op.strAttrOr("pred", "");
    bool found = false;
    for (CmpPred c : kPreds)
      if (detail::cmpName(c) == p) e.pred = c, found = true;
    if (!found) detail::internal(op.loc, "cmp has an unknown predicate '" + p + "'");
  }
  if (op.opcode == Opcode::Min || op.opcode == Opcode::Max) e.propagateNan = op.intAttrOr("propagate_nan", 0) != 0;
  if (op.opcode == Opcode::Div || op.opcode == Opcode::Sqrt) e.ieee = op.strAttrOr("rounding", "") == "rn";
  if (op.opcode == Opcode::Rounded &&
      (!ir::roundedFnFromName(op.strAttrOr("fn", ""), e.roundedFn) || !ir::roundModeFromName(op.strAttrOr("mode", ""), e.mode)))
    detail::internal(op.loc, "rounded has an unknown fn or mode");
  return e;
}

void selectElementwise(Entry& e, const ElementOp& op, Reg dst, std::span<const Reg> src) {
  if (!isElementwise(op.op)) detail::internal(op.loc, std::string("'") + ir::info(op.op).spelling + "' is not element-wise");
  const ir::OpInfo& info = ir::info(op.op);
  if (int(src.size()) < info.minOperands || int(src.size()) > info.maxOperands)
    detail::internal(op.loc, std::string("'") + info.spelling + "' takes " + std::to_string(info.minOperands) +
                                 " operands, got " + std::to_string(src.size()));
  RegClass rc = regClassOf(op.type);
  for (size_t i = 0; i < src.size(); ++i)
    detail::expectClass(op.loc, src[i], op.op == Opcode::Select && i == 0 ? RegClass::Pred : rc, "operand");
  detail::expectClass(op.loc, dst, op.op == Opcode::Cmp ? RegClass::Pred : rc, "result");
  if (op.type == Scalar::I1) return detail::selectPredOp(e, op, dst, src);
  if (ir::isFloat(op.type)) return detail::selectFloatOp(e, op, dst, src);
  return detail::selectIntOp(e, op, dst, src);
}

std::string_view intSuffix(Scalar t) {
  bool wide = ir::bitWidth(t) == 64;
  if (ir::isSigned(t)) return wide ? ".s64" : ".s32";
  return wide ? ".u64" : ".u32";
}

void normalizeInt(Entry& e, Scalar t, Reg r) {
  switch (t) {
    case Scalar::I8: e.inst("cvt.s32.s8", {r, r}); return;
    case Scalar::I16: e.inst("cvt.s32.s16", {r, r}); return;
    case Scalar::U8: e.inst("and.b32", {r, r, 255}); return;
    case Scalar::U16: e.inst("and.b32", {r, r, 65535}); return;
    case Scalar::I1: case Scalar::I32: case Scalar::I64: case Scalar::U32: case Scalar::U64:
    case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: case Scalar::F16: case Scalar::BF16: case Scalar::F32:
    case Scalar::F64: case Scalar::Ptr:
      return;
  }
}

Operand constantOperand(Scalar t, ir::Elem v) {
  uint64_t bits = ir::toBits(t, v);
  switch (regClassOf(t)) {
    case RegClass::Pred: return Operand(int64_t(bits & 1));
    case RegClass::B16: return hexImm(bits);
    case RegClass::F32: return f32Bits(uint32_t(bits));
    case RegClass::F64: return f64Bits(bits);
    case RegClass::B32:
      // The register holds the extended value; spell it so that any 32-bit pattern reads back.
      if (ir::isSigned(t)) return Operand(int64_t(int32_t(uint32_t(v.u))));
      return bits <= 0x7FFFFFFF ? Operand(int64_t(bits)) : hexImm(bits);
    case RegClass::B64:
      if (ir::isSigned(t)) return Operand(v.i);
      return bits <= 0x7FFFFFFFFFFFFFFFull ? Operand(int64_t(bits)) : hexImm(bits);
  }
  return Operand(0);
}

void selectConstant(Entry& e, Scalar t, ir::Elem v, Reg dst) {
  detail::expectClass({}, dst, regClassOf(t), "constant");
  static constexpr const char* kMov[] = {"mov.pred", "mov.b16", "mov.b32", "mov.b64", "mov.f32", "mov.f64"};
  e.inst(kMov[size_t(regClassOf(t))], {dst, constantOperand(t, v)});
}

void selectPtrAdd(Entry& e, Scalar offsetType, int elemBytes, Reg dst, Reg ptr, Reg offset) {
  detail::expectClass({}, ptr, RegClass::B64, "pointer");
  detail::expectClass({}, dst, RegClass::B64, "pointer result");
  detail::expectClass({}, offset, regClassOf(offsetType), "offset");
  if (!ir::isInt(offsetType) || elemBytes <= 0) detail::internal({}, "ptr_add needs an integer offset and an element size");
  if (offsetType == Scalar::I1) {  // 0 or 1 element
    Reg t = e.reg(RegClass::B64);
    e.inst("selp.b64", {t, elemBytes, 0, offset});
    e.inst("add.s64", {dst, ptr, t});
    return;
  }
  if (ir::bitWidth(offsetType) == 64) {
    e.inst("mad.lo.s64", {dst, offset, elemBytes, ptr});
    return;
  }
  // 8..32-bit offsets sit extended in their .b32 register: a widening multiply-add extends them.
  e.inst(ir::isSigned(offsetType) ? "mad.wide.s32" : "mad.wide.u32", {dst, offset, elemBytes, ptr});
}

namespace detail {

void notDefined(const ElementOp& op) {
  internal(op.loc, std::string("'") + ir::info(op.op).spelling + "' is not defined on " + std::string(ir::name(op.type)));
}

void expectClass(const SourceLoc& loc, Reg r, RegClass c, const char* what) {
  if (!r.valid() || r.cls != c)
    internal(loc, std::string(what) + " register must be " + std::string(regTypeName(c)) + ", got " +
                      (r.valid() ? r.str() : std::string("none")));
}

std::string_view cmpName(CmpPred p) {
  switch (p) {
    case CmpPred::Eq: return "eq";
    case CmpPred::Ne: return "ne";
    case CmpPred::Lt: return "lt";
    case CmpPred::Le: return "le";
    case CmpPred::Gt: return "gt";
    case CmpPred::Ge: return "ge";
  }
  return "";
}

}  // namespace detail
}  // namespace kiln::ptx
