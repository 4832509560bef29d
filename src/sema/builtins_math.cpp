// Element-wise math builtins (tl.* and their tl.math.* aliases): exp/log/sqrt/... on f32 and f64 as
// Triton's libdevice convention requires, abs, fma, umulhi, fdiv/div_rn, maximum/minimum/clamp with
// propagate_nan, tl.add/sub/mul (the operators as functions), and the compositions sigmoid and softmax.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

ir::Value* floatOperand(CallArgs& a, size_t i, bool f32Only) {
  ir::Value* x = toTensor(*a.cx, a.at(i), a.loc, a.display + "()'s argument");
  Scalar e = x->type.elem;
  if (e != Scalar::F32 && (f32Only || e != Scalar::F64))
    a.fail(a.display + "() expects " + (f32Only ? "f32" : "f32 or f64") + " values, got " + a.at(i).describe() +
           "; convert with .to(tl.float32)");
  return x;
}

ir::Value* unaryOp(Context& cx, Opcode op, ir::Value* x, const SourceLoc& loc, std::vector<ir::Attr> attrs = {}) {
  return emit(cx, op, {x}, x->type, loc, std::move(attrs));
}

template <Opcode op>
SValue mathUnary(CallArgs& a) {
  return SValue::irValue(unaryOp(*a.cx, op, floatOperand(a, 0, false), a.loc));
}

SValue sqrtRn(CallArgs& a) {
  return SValue::irValue(unaryOp(*a.cx, Opcode::Sqrt, floatOperand(a, 0, true), a.loc, {{"rounding", std::string("rn")}}));
}

SValue absFn(CallArgs& a) {
  ir::Value* x = toTensor(*a.cx, a.at(0), a.loc, "tl.abs's argument");
  if (x->type.isPtr()) a.fail("tl.abs() expects numbers, got " + a.at(0).describe());
  if (x->type.isInt() && !ir::isSigned(x->type.elem)) return SValue::irValue(x);  // unsigned: a no-op
  return SValue::irValue(unaryOp(*a.cx, Opcode::Abs, x, a.loc));
}

bool propagateNanArg(const CallArgs& a, size_t i) {
  if (!a.has(i)) return false;
  const SValue& v = a.at(i);
  if (v.kind != SValue::Kind::Bool && v.kind != SValue::Kind::Int)
    a.fail(a.display + "(): propagate_nan must be tl.PropagateNan.ALL / NONE or a bool, got " + v.describe());
  return v.i != 0;
}

ir::Value* promoteBf16(Context& cx, ir::Value* v, const SourceLoc& loc) {
  return v->type.elem == Scalar::BF16 ? castElem(cx, v, Type::scalar(Scalar::F32), loc) : v;
}

SValue minMax(CallArgs& a, bool isMax) {
  return elementwiseMinMax(*a.cx, isMax, a.at(0), a.at(1), propagateNanArg(a, 2), a.loc);
}
SValue maximum(CallArgs& a) { return minMax(a, true); }
SValue minimum(CallArgs& a) { return minMax(a, false); }

SValue clamp(CallArgs& a) {
  Context& cx = *a.cx;
  auto arg = [&](size_t i) {
    return SValue::irValue(promoteBf16(cx, toTensor(cx, a.at(i), a.loc, "tl.clamp's argument"), a.loc));
  };
  SValue x = arg(0), lo = arg(1), hi = arg(2);
  auto [lo1, hi1] = binaryOperands(cx, lo, hi, BinaryRule{}, "tl.clamp", a.loc);
  auto [x1, lo2] = binaryOperands(cx, x, SValue::irValue(lo1), BinaryRule{}, "tl.clamp", a.loc);
  auto [x2, hi2] = binaryOperands(cx, SValue::irValue(x1), SValue::irValue(hi1), BinaryRule{}, "tl.clamp", a.loc);
  lo2 = broadcastTo(cx, lo2, x2->type.shape, a.loc);
  if (!x2->type.isFloat()) a.fail("tl.clamp() supports only floating-point values, got " + a.at(0).describe());
  std::vector<ir::Attr> attrs;
  if (propagateNanArg(a, 3)) attrs.push_back({"propagate_nan", int64_t(1)});
  ir::Value* m = emit(cx, Opcode::Max, {x2, lo2}, x2->type, a.loc, attrs);
  return SValue::irValue(emit(cx, Opcode::Min, {m, hi2}, x2->type, a.loc, attrs));
}

SValue fma(CallArgs& a) {
  Context& cx = *a.cx;
  auto [x, y] = binaryOperands(cx, a.at(0), a.at(1), BinaryRule{}, "tl.fma", a.loc);
  auto [z, x2] = binaryOperands(cx, a.at(2), SValue::irValue(x), BinaryRule{}, "tl.fma", a.loc);
  auto [z2, y2] = binaryOperands(cx, SValue::irValue(z), SValue::irValue(y), BinaryRule{}, "tl.fma", a.loc);
  x2 = broadcastTo(cx, castElem(cx, x2, z2->type.element(), a.loc), z2->type.shape, a.loc);
  if (!z2->type.isFloat()) a.fail("tl.fma() needs floating-point operands, got " + z2->type.str());
  return SValue::irValue(emit(cx, Opcode::Fma, {x2, y2, z2}, z2->type, a.loc));
}

SValue umulhi(CallArgs& a) {
  for (size_t i = 0; i < 2; ++i) {
    const SValue& v = a.at(i);
    Scalar e = v.isIR() ? v.ir->type.elem : Scalar::I32;
    if (e != Scalar::I32 && e != Scalar::I64 && e != Scalar::U32 && e != Scalar::U64)
      a.fail("tl.umulhi() expects i32, i64, u32 or u64 values, got " + v.describe());
  }
  auto [x, y] = binaryOperands(*a.cx, a.at(0), a.at(1), BinaryRule{}, "tl.umulhi", a.loc);
  return SValue::irValue(emit(*a.cx, Opcode::UMulHi, {x, y}, x->type, a.loc));
}

SValue divide(CallArgs& a, bool rn, bool f32Only) {
  Context& cx = *a.cx;
  SValue x = SValue::irValue(floatOperand(a, 0, f32Only)), y = SValue::irValue(floatOperand(a, 1, f32Only));
  auto [vx, vy] = binaryOperands(cx, x, y, BinaryRule{}, a.display, a.loc);
  std::vector<ir::Attr> attrs;
  if (rn) attrs.push_back({"rounding", std::string("rn")});
  return SValue::irValue(emit(cx, Opcode::Div, {vx, vy}, vx->type, a.loc, std::move(attrs)));
}
ir::Value* anyFloat(CallArgs& a, size_t i) {
  ir::Value* v = toTensor(*a.cx, a.at(i), a.loc, a.display + "()'s argument");
  if (!v->type.isFloat()) a.fail(a.display + "() needs floating-point operands, got " + a.at(i).describe());
  return v;
}
SValue fdiv(CallArgs& a) {
  Context& cx = *a.cx;
  SValue x = SValue::irValue(anyFloat(a, 0)), y = SValue::irValue(anyFloat(a, 1));
  auto [vx, vy] = binaryOperands(cx, x, y, BinaryRule{}, "tl.fdiv", a.loc);
  std::vector<ir::Attr> attrs;
  if (a.boolArg(2, false)) attrs.push_back({"rounding", std::string("rn")});
  return SValue::irValue(emit(cx, Opcode::Div, {vx, vy}, vx->type, a.loc, std::move(attrs)));
}
SValue divRn(CallArgs& a) { return divide(a, true, true); }

// tl.add / tl.sub / tl.mul: Triton's functions behind the operators, with the operators' promotion.
// sanitize_overflow (a constexpr bool) asks Triton's debug mode for integer-overflow checks; kiln's
// interpreter has its own (check_overflow, docs/python.md), so the flag changes nothing here.
template <ast::BinOp Op>
SValue arithmetic(CallArgs& a) {
  a.boolArg(2, true);
  return binary(*a.cx, Op, a.at(0), a.at(1), a.loc);
}

SValue sigmoid(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = toTensor(cx, a.at(0), a.loc, "tl.sigmoid's argument");
  if (x->type.elem != Scalar::F32 && x->type.elem != Scalar::F64)
    a.fail("tl.sigmoid() expects f32 or f64 values (it uses tl.exp), got " + a.at(0).describe());
  ir::Value* e = unaryOp(cx, Opcode::Exp, unaryOp(cx, Opcode::Neg, x, a.loc), a.loc);
  SValue den = binary(cx, ast::BinOp::Add, SValue::integer(1), SValue::irValue(e), a.loc);
  return binary(cx, ast::BinOp::Div, SValue::integer(1), den, a.loc);
}

SValue softmax(CallArgs& a) {
  Context& cx = *a.cx;
  const SValue& x = a.at(0);
  if (!x.isIR() || !x.ir->type.isTensor()) a.fail("tl.softmax() needs a tensor, got " + x.describe());
  int64_t dim = a.has(1) ? a.intArg(1) : 0;
  bool keep = a.boolArg(2, false);
  SValue m = reduceValue(cx, x, "max", dim, keep, a.loc);
  SValue z = binary(cx, ast::BinOp::Sub, x, m, a.loc);
  if (z.ir->type.elem != Scalar::F32 && z.ir->type.elem != Scalar::F64)
    a.fail("tl.softmax() expects f32 or f64 values (it uses tl.exp), got " + x.describe());
  SValue num = SValue::irValue(unaryOp(cx, Opcode::Exp, z.ir, a.loc));
  SValue den = reduceValue(cx, num, "sum", dim, keep, a.loc);
  auto [vn, vd] = binaryOperands(cx, num, den, BinaryRule{}, "tl.softmax", a.loc);
  std::vector<ir::Attr> attrs;
  if (a.boolArg(3, false)) attrs.push_back({"rounding", std::string("rn")});
  return SValue::irValue(emit(cx, Opcode::Div, {vn, vd}, vn->type, a.loc, std::move(attrs)));
}

constexpr unsigned kFn = kTl | kMath | kMember;
constexpr BuiltinDef kMathDefs[] = {
    {"abs", kFn | kLibdevice, "x", absFn},
    {"exp", kFn | kLibdevice, "x", mathUnary<Opcode::Exp>},
    {"exp2", kFn | kLibdevice, "x", mathUnary<Opcode::Exp2>},
    {"log", kFn | kLibdevice, "x", mathUnary<Opcode::Log>},
    {"log2", kFn | kLibdevice, "x", mathUnary<Opcode::Log2>},
    {"cos", kFn | kLibdevice, "x", mathUnary<Opcode::Cos>},
    {"sin", kFn | kLibdevice, "x", mathUnary<Opcode::Sin>},
    {"sqrt", kFn | kLibdevice, "x", mathUnary<Opcode::Sqrt>},
    {"rsqrt", kFn | kLibdevice, "x", mathUnary<Opcode::Rsqrt>},
    {"erf", kFn | kLibdevice, "x", mathUnary<Opcode::Erf>},
    {"tanh", kLibdevice, "x", mathUnary<Opcode::Tanh>},  // libdevice only: triton.language has no tanh
    {"floor", kFn | kLibdevice, "x", mathUnary<Opcode::Floor>},
    {"ceil", kFn | kLibdevice, "x", mathUnary<Opcode::Ceil>},
    {"sqrt_rn", kFn | kLibdevice, "x", sqrtRn},
    {"fma", kTl | kMath | kLibdevice, "x y z", fma},
    {"umulhi", kTl | kMath, "x y", umulhi},
    {"fdiv", kTl | kMath, "x y ieee_rounding?", fdiv},
    {"div_rn", kTl | kMath, "x y", divRn},  // libdevice.div_rn (also fp64) is builtins_libdevice_round.cpp's
    {"maximum", kTl, "x y propagate_nan?", maximum},
    {"minimum", kTl, "x y propagate_nan?", minimum},
    {"max", kMath, "x y propagate_nan?", maximum},
    {"min", kMath, "x y propagate_nan?", minimum},
    {"clamp", kTl, "x min max propagate_nan?", clamp},
    {"add", kTl, "x y sanitize_overflow?", arithmetic<ast::BinOp::Add>},
    {"sub", kTl, "x y sanitize_overflow?", arithmetic<ast::BinOp::Sub>},
    {"mul", kTl, "x y sanitize_overflow?", arithmetic<ast::BinOp::Mul>},
    {"sigmoid", kTl | kMember, "x", sigmoid},
    {"softmax", kTl | kMember, "x dim? keep_dims? ieee_rounding?", softmax},
};

}  // namespace

SValue elementwiseMinMax(Context& cx, bool isMax, const SValue& x, const SValue& y, bool propagateNan,
                         const SourceLoc& loc) {
  // Triton converts both to tensors first: Python numbers take their literal type here.
  const char* name = isMax ? "tl.maximum" : "tl.minimum";
  SValue tx = SValue::irValue(promoteBf16(cx, toTensor(cx, x, loc, std::string(name) + "'s argument"), loc));
  SValue ty = SValue::irValue(promoteBf16(cx, toTensor(cx, y, loc, std::string(name) + "'s argument"), loc));
  auto [vx, vy] = binaryOperands(cx, tx, ty, BinaryRule{}, name, loc);
  std::vector<ir::Attr> attrs;
  if (propagateNan && vx->type.isFloat()) attrs.push_back({"propagate_nan", int64_t(1)});
  return SValue::irValue(emit(cx, isMax ? Opcode::Max : Opcode::Min, {vx, vy}, vx->type, loc, std::move(attrs)));
}

std::span<const BuiltinDef> mathBuiltins() { return kMathDefs; }

}  // namespace kiln::sema
