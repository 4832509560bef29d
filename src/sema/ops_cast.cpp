// Conversions between element types with Triton's cast rules: numeric casts, casts to i1 as
// `!= 0`, pointers to and from 64-bit integers, bitcasts; and castTo for values that must keep one
// type (loop-carried values, returns).
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

static std::string elemName(const Type& t) { return t.element().str(); }

ir::Value* truthOf(Context& cx, ir::Value* v, const SourceLoc& loc) {
  const Type& t = v->type;
  if (t.isBool()) return v;
  if (t.isPtr()) fail(loc, "cannot use " + SValue::irValue(v).describe() + " as a condition (it holds pointers)");
  ir::Value* zero = zeroOf(cx, t, loc);
  return emit(cx, Opcode::Cmp, {v, zero}, t.withElem(Scalar::I1), loc, {ir::Attr{"pred", std::string("ne")}});
}

void checkFp8e4b15Op(Opcode op, const std::vector<ir::Value*>& operands, const Type& t, const SourceLoc& loc) {
  bool e4b15 = t.elem == Scalar::F8E4B15;
  for (const ir::Value* v : operands) e4b15 = e4b15 || (v && v->type.elem == Scalar::F8E4B15);
  if (!e4b15) return;
  bool computes = false;
  switch (ir::familyOf(op)) {
    case ir::Family::Arith: computes = op != Opcode::Abs; break;
    case ir::Family::Math: case ir::Family::Reduce: case ir::Family::Dot: computes = true; break;
    case ir::Family::Compare: computes = op == Opcode::Cmp; break;
    default: break;
  }
  if (computes)
    fail(loc, std::string("'") + ir::info(op).spelling + "' on tl.float8e4b15 values is not supported (as in Triton, "
              "fp8e4b15 is a storage type: convert to tl.float16 or tl.float32 first)");
}

ir::Value* castElem(Context& cx, ir::Value* v, const Type& elem, const SourceLoc& loc, const std::string& rounding) {
  Type src = v->type.element();
  if (src == elem) return v;
  if (src.elem == Scalar::F8E4B15 || elem.elem == Scalar::F8E4B15) {
    // Triton converts fp8e4b15 only through its f16 software conversion (convert_custom_types).
    const Type& other = src.elem == Scalar::F8E4B15 ? elem : src;
    if (other.elem != Scalar::F16 && other.elem != Scalar::F32)
      fail(loc, "cannot cast " + SValue::irValue(v).describe() + " to " + dtypeExpr(elem) +
                    ": tl.float8e4b15 converts only to and from tl.float16 and tl.float32, as in Triton");
    if (rounding == "rtz")
      fail(loc, "fp_downcast_rounding='rtz' is not supported for tl.float8e4b15, whose conversion rounds to "
                "nearest, ties away from zero (Triton ignores the rounding mode there)");
  }
  bool floatDown = src.isFloat() && elem.isFloat() && ir::bitWidth(elem.elem) < ir::bitWidth(src.elem);
  if (!rounding.empty()) {
    if (rounding != "rtne" && rounding != "rtz")
      fail(loc, "invalid rounding mode '" + rounding + "'; fp_downcast_rounding must be 'rtne' or 'rtz'");
    if (!floatDown)
      fail(loc, "fp_downcast_rounding applies only to casts to a narrower float type, not " + elemName(src) +
                    " to " + elemName(elem));
  }
  Type dst = v->type.withElem(elem);
  auto cannot = [&](const std::string& why) {
    fail(loc, "cannot cast " + SValue::irValue(v).describe() + " to " + dtypeExpr(elem) + why);
  };
  if (elem.isPtr()) {
    if (src.isPtr()) return emit(cx, Opcode::Bitcast, {v}, dst, loc);
    if (!src.isInt()) cannot(" (only integers and pointers convert to pointers)");
    ir::Value* wide = v;
    if (ir::bitWidth(src.elem) != 64) wide = castElem(cx, v, Type::scalar(Scalar::I64), loc);
    return emit(cx, Opcode::Bitcast, {wide}, dst, loc);
  }
  if (src.isPtr()) {
    if (elem.isBool()) {
      ir::Value* bits = emit(cx, Opcode::Bitcast, {v}, v->type.withElem(Scalar::I64), loc);
      return truthOf(cx, bits, loc);
    }
    if (!elem.isInt() || ir::bitWidth(elem.elem) != 64) cannot(" (pointers convert only to 64-bit integers)");
    return emit(cx, Opcode::Bitcast, {v}, dst, loc);
  }
  if (elem.isBool()) return truthOf(cx, v, loc);
  std::vector<ir::Attr> attrs;
  if (!rounding.empty()) attrs.push_back(ir::Attr{"rounding", rounding});
  return emit(cx, Opcode::Cast, {v}, dst, loc, std::move(attrs));
}

ir::Value* bitcastElem(Context& cx, ir::Value* v, const Type& elem, const SourceLoc& loc) {
  Type src = v->type.element();
  if (src == elem) return v;
  if (src.isPtr() || elem.isPtr()) return castElem(cx, v, elem, loc);
  int ws = ir::bitWidth(src.elem), wd = ir::bitWidth(elem.elem);
  if (ws != wd)
    fail(loc, "cannot bitcast " + elemName(src) + " (" + std::to_string(ws) + " bits) to " + elemName(elem) + " (" +
                  std::to_string(wd) + " bits); bitcasts keep the bit width");
  return emit(cx, Opcode::Bitcast, {v}, v->type.withElem(elem), loc);
}

ir::Value* castTo(Context& cx, ir::Value* v, const Type& to, const SourceLoc& loc) {
  if (v->type == to) return v;
  if (v->type.isTensor() && !to.isTensor())
    fail(loc, "cannot convert " + SValue::irValue(v).describe() + " to the scalar type " + to.str());
  if (v->type.shape != to.shape) broadcastShape(v->type.shape, to.shape, loc);  // reports a mismatch
  ir::Value* c = castElem(cx, v, to.element(), loc);
  return broadcastTo(cx, c, to.shape, loc);
}

SValue castValue(Context& cx, const SValue& x, const Type& dtype, const std::string& rounding, bool bitcast,
                 const SourceLoc& loc) {
  if (dtype.isTensor()) fail(loc, "cast needs an element dtype, got " + dtypeExpr(dtype));
  ir::Value* v = toTensor(cx, x, loc, "the value to cast");
  if (bitcast) {
    if (!rounding.empty()) fail(loc, "fp_downcast_rounding cannot be combined with bitcast=True");
    return SValue::irValue(bitcastElem(cx, v, dtype, loc));
  }
  return SValue::irValue(castElem(cx, v, dtype, loc, rounding));
}

}  // namespace kiln::sema
