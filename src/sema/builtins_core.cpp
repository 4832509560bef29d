// Core tl builtins: program ids, arange, full/zeros, where, casts, compiler hints, compile-time
// assertions and printing, cdiv and next_power_of_2, and the names kiln knows but rejects.
#include <cstdio>

#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

SValue programIndex(CallArgs& a, Opcode op, const char* what) {
  int64_t axis = a.intArg(0);
  if (axis < 0 || axis > 2) a.fail(std::string(what) + " axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return SValue::irValue(emit(*a.cx, op, {}, Type::scalar(Scalar::I32), a.loc, {{"axis", axis}}));
}
SValue programId(CallArgs& a) { return programIndex(a, Opcode::ProgramId, "tl.program_id"); }
SValue numPrograms(CallArgs& a) { return programIndex(a, Opcode::NumPrograms, "tl.num_programs"); }

SValue arange(CallArgs& a) {
  for (size_t i = 0; i < 2; ++i)
    if (a.at(i).kind != K::Int)
      a.fail("arange's arguments must be constexpr ints, got " + a.at(i).describe() + " for '" + a.names[i] + "'");
  int64_t start = a.at(0).i, end = a.at(1).i;
  if (start < 0 || end > (int64_t(1) << 31))
    a.fail("arange's arguments must be non-negative and fit in int32, got start=" + std::to_string(start) +
           ", end=" + std::to_string(end));
  if (end <= start)
    a.fail("arange's end argument must be greater than the start argument, got start=" + std::to_string(start) +
           ", end=" + std::to_string(end));
  int64_t n = end - start;
  if ((n & (n - 1)) != 0) a.fail("arange's range must be a power of 2, got " + std::to_string(n));
  validateShape({n}, a.loc);
  return SValue::irValue(emit(*a.cx, Opcode::Arange, {}, Type::tensor({n}, Scalar::I32), a.loc,
                              {{"end", end}, {"start", start}}));
}

// A number that must fit an element type exactly (tl.full's value).
void checkFits(const CallArgs& a, const SValue& num, const Type& t) {
  if (!t.isInt()) return;
  if (num.kind == K::Float) a.fail(a.display + "(): the value " + pyRepr(num) + " is not an integer but dtype is " + dtypeExpr(t));
  int w = ir::bitWidth(t.elem);
  if (num.u64) {  // [2^63, 2^64): only uint64 holds it
    if (t.elem != Scalar::U64) a.fail(a.display + "(): the value " + pyRepr(num) + " is out of range for " + dtypeExpr(t));
    return;
  }
  bool ok = ir::isSigned(t.elem) ? (w == 64 || (num.i >= -(int64_t(1) << (w - 1)) && num.i < (int64_t(1) << (w - 1))))
                                 : (num.i >= 0 && (w >= 63 || num.i < (int64_t(1) << w)));
  if (!ok) a.fail(a.display + "(): the value " + pyRepr(num) + " is out of range for " + dtypeExpr(t));
}

SValue fullOf(CallArgs& a, const Shape& shape, const SValue& value, const Type& dtype) {
  validateShape(shape, a.loc);
  if (dtype.isPtr()) a.fail(a.display + "(): dtype must be a number type, got " + dtypeExpr(dtype));
  if (value.isNumber()) {
    checkFits(a, value, dtype);
    return SValue::irValue(constantOf(*a.cx, value, dtype.withShape(shape), a.loc));
  }
  if (!value.isIR() || value.ir->type.isTensor())
    a.fail(a.display + "(): the value must be a number or a scalar, got " + value.describe());
  ir::Value* v = castElem(*a.cx, value.ir, dtype, a.loc);
  return SValue::irValue(broadcastTo(*a.cx, v, shape, a.loc));
}

SValue full(CallArgs& a) { return fullOf(a, a.shapeArg(a.at(0), "the shape"), a.at(1), a.dtypeArg(2)); }
SValue zeros(CallArgs& a) { return fullOf(a, a.shapeArg(a.at(0), "the shape"), SValue::integer(0), a.dtypeArg(1)); }
SValue zerosLike(CallArgs& a) {
  const SValue& x = a.at(0);
  if (!x.isIR()) a.fail(a.display + "() needs a tensor, got " + x.describe());
  return fullOf(a, x.ir->type.shape, SValue::integer(0), x.ir->type.element());
}

SValue where(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* cond = castElem(cx, toTensor(cx, a.at(0), a.loc, "tl.where's condition"), Type::scalar(Scalar::I1), a.loc);
  auto [x, y] = binaryOperands(cx, a.at(1), a.at(2), BinaryRule{true, true, true, false}, "tl.where", a.loc);
  Shape shape = broadcastShape(cond->type.shape, x->type.shape, a.loc);
  cond = broadcastTo(cx, cond, shape, a.loc);
  x = broadcastTo(cx, x, shape, a.loc);
  y = broadcastTo(cx, y, shape, a.loc);
  return SValue::irValue(emit(cx, Opcode::Select, {cond, x, y}, x->type, a.loc));
}

SValue cast(CallArgs& a) {
  return castValue(*a.cx, a.at(0), a.dtypeArg(1), a.strArg(2, ""), a.boolArg(3, false), a.loc);
}

// `op` is null for a hint kiln's IR does not carry (validated, then dropped).
SValue hint(CallArgs& a, const Opcode* op, bool scalarCountsAsRank1) {
  ir::Value* x = toTensor(*a.cx, a.at(0), a.loc, a.display + "()'s input");
  std::vector<int64_t> values = a.intList(a.at(1), "values");
  size_t rank = size_t(x->type.rank());
  if (rank == 0 && !scalarCountsAsRank1) a.fail(a.display + "() needs a tensor, got " + a.at(0).describe());
  if (rank == 0) rank = 1;
  if (values.size() != rank)
    a.fail(a.display + "(): values has " + std::to_string(values.size()) + " entries but the input has rank " +
           std::to_string(x->type.rank()));
  for (int64_t v : values)
    if (v <= 0) a.fail(a.display + "(): values must be positive, got " + std::to_string(v));
  if (!op) return SValue::irValue(x);
  return SValue::irValue(emit(*a.cx, *op, {x}, x->type, a.loc, {{"values", values}}));
}
constexpr Opcode kMultipleOf = Opcode::MultipleOf, kMaxContiguous = Opcode::MaxContiguous;
SValue multipleOf(CallArgs& a) { return hint(a, &kMultipleOf, true); }
SValue maxContiguous(CallArgs& a) { return hint(a, &kMaxContiguous, false); }
SValue maxConstancy(CallArgs& a) { return hint(a, nullptr, false); }
SValue assume(CallArgs& a) {
  toTensor(*a.cx, a.at(0), a.loc, "tl.assume's condition");
  return SValue::none();  // an optimisation hint; dropping it is always correct
}

SValue staticAssert(CallArgs& a) {
  bool ok = constexprTruth(a.at(0), a.loc, "tl.static_assert's condition");
  std::string msg = a.has(1) ? pyStr(a.at(1)) : "";
  if (!ok) a.fail("static_assert failed" + (msg.empty() ? "" : ": " + msg));
  return SValue::none();
}

SValue staticPrint(CallArgs& a) {
  std::string sep = a.strArg(0, " "), end = a.strArg(1, "\n"), out;
  for (size_t i = 0; i < a.rest.size(); ++i) out += (i ? sep : "") + pyStr(a.rest[i]);
  out += end;
  std::fputs(out.c_str(), stderr);
  return SValue::none();
}

SValue deviceAssert(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* cond = truthOf(cx, toTensor(cx, a.at(0), a.loc, "tl.device_assert's condition"), a.loc);
  std::string msg = a.has(1) ? pyStr(a.at(1)) : "";
  if (a.has(2)) {  // assert where the mask holds: cond or not mask
    ir::Value* mask = truthOf(cx, toTensor(cx, a.at(2), a.loc, "tl.device_assert's mask"), a.loc);
    Shape shape = broadcastShape(cond->type.shape, mask->type.shape, a.loc);
    cond = broadcastTo(cx, cond, shape, a.loc);
    mask = broadcastTo(cx, mask, shape, a.loc);
    ir::Value* skip = emit(cx, Opcode::Not, {mask}, mask->type, a.loc);
    cond = emit(cx, Opcode::Or, {cond, skip}, cond->type, a.loc);
  }
  cx.b.create(Opcode::Assert, {cond}, {}, {{"message", msg}}, a.loc);
  return SValue::none();
}

SValue constexprFn(CallArgs& a) {
  const SValue& v = a.at(0);
  if (v.isIR() || !v.isConstexpr()) a.fail("tl.constexpr() needs a compile-time value, got " + v.describe());
  return v;
}

SValue cdiv(CallArgs& a) {
  Context& cx = *a.cx;
  SValue num = binary(cx, ast::BinOp::Add, a.at(0), a.at(1), a.loc);
  num = binary(cx, ast::BinOp::Sub, num, SValue::integer(1), a.loc);
  return binary(cx, ast::BinOp::FloorDiv, num, a.at(1), a.loc);
}

SValue nextPowerOf2(CallArgs& a) {
  int64_t n = a.intArg(0);
  if (n > (int64_t(1) << 62)) a.fail("next_power_of_2(" + std::to_string(n) + ") overflows int64");
  int64_t p = 1;
  if (n <= 0) return SValue::integer(n == 0 ? 0 : 1);
  while (p < n) p <<= 1;
  return SValue::integer(p);
}

SValue pointerType(CallArgs& a) {
  Type t = a.dtypeArg(0);
  if (t.isPtr()) a.fail("tl.pointer_type of a pointer type is not supported");
  return SValue::dtype(Type::ptr(t.elem));
}

SValue swizzle2d(CallArgs& a) {
  Context& cx = *a.cx;
  const SourceLoc& l = a.loc;
  auto op = [&](ast::BinOp o, const SValue& x, const SValue& y) { return binary(cx, o, x, y, l); };
  const SValue &i = a.at(0), &j = a.at(1), &sizeI = a.at(2), &sizeJ = a.at(3), &sizeG = a.at(4);
  SValue ij = op(ast::BinOp::Add, op(ast::BinOp::Mul, i, sizeJ), j);
  SValue sizeGJ = op(ast::BinOp::Mul, sizeG, sizeJ);
  SValue group = op(ast::BinOp::FloorDiv, ij, sizeGJ);
  SValue offI = op(ast::BinOp::Mul, group, sizeG);
  SValue g = elementwiseMinMax(cx, false, op(ast::BinOp::Sub, sizeI, offI), sizeG, false, l);
  ij = op(ast::BinOp::Mod, ij, sizeGJ);
  SValue newI = op(ast::BinOp::Add, offI, op(ast::BinOp::Mod, ij, g));
  SValue newJ = op(ast::BinOp::FloorDiv, ij, g);
  return SValue::tuple({newI, newJ});
}

SValue forOnly(CallArgs& a) {
  a.fail(a.display + "() can only be used as the iterable of a for loop");
}
SValue whileOnly(CallArgs& a) { a.fail(a.display + "() can only be used as the condition of a while loop"); }
SValue decoratorOnly(CallArgs& a) {
  a.fail(a.display + " is a decorator or host-side helper; it cannot be called inside a kernel");
}
SValue annotationOnly(CallArgs& a) {
  a.fail(a.display + " is a type used in annotations; it cannot be called inside a kernel");
}

constexpr BuiltinDef kCore[] = {
    {"program_id", kTl, "axis", programId},
    {"num_programs", kTl, "axis", numPrograms},
    {"arange", kTl, "start end", arange},
    {"full", kTl, "shape value dtype", full},
    {"zeros", kTl, "shape dtype", zeros},
    {"zeros_like", kTl, "input", zerosLike},
    {"where", kTl, "condition x y", where},
    {"cast", kTl | kMember, "input dtype fp_downcast_rounding? bitcast?", cast},
    {"to", kMember, "input dtype fp_downcast_rounding? bitcast?", cast},
    {"multiple_of", kTl, "input values", multipleOf},
    {"max_contiguous", kTl, "input values", maxContiguous},
    {"max_constancy", kTl, "input values", maxConstancy},
    {"assume", kTl, "cond", assume},
    {"static_assert", kTl, "cond msg?", staticAssert},
    {"static_print", kTl, "*values sep? end? file? flush?", staticPrint},
    {"device_assert", kTl, "cond msg? mask?", deviceAssert},
    {"constexpr", kTl, "value", constexprFn},
    {"cdiv", kTl | kTriton | kMember, "x div", cdiv},
    {"next_power_of_2", kTriton, "n", nextPowerOf2},
    {"pointer_type", kTl, "element_ty", pointerType},
    {"swizzle2d", kTl, "i j size_i size_j size_g", swizzle2d},
    {"range", kTl, nullptr, forOnly},
    {"static_range", kTl, nullptr, forOnly},
    {"condition", kTl, nullptr, whileOnly},  // `while tl.condition(c, disable_licm=...)`: lower_loop.cpp
    {"jit", kTriton, nullptr, decoratorOnly},
    {"autotune", kTriton, nullptr, decoratorOnly},
    {"heuristics", kTriton, nullptr, decoratorOnly},
    {"Config", kTriton, nullptr, decoratorOnly},
    {"tensor", kTl, nullptr, annotationOnly},
    {"dtype", kTl, nullptr, annotationOnly},
    {"tensor_descriptor", kTl, nullptr, annotationOnly},
    {"const", kTl, nullptr, annotationOnly},
};

}  // namespace

std::span<const BuiltinDef> coreBuiltins() { return kCore; }

}  // namespace kiln::sema
