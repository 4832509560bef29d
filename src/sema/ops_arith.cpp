// Operators on values: constexpr operands follow Python (ops_constexpr.cpp); runtime values follow
// Triton: promotion and broadcasting, C division and remainder on integers, true division to a
// float type, pointer arithmetic, comparisons to i1 and logical and/or/not.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

// A pointer offset as ptr_add reads it (signed): unsigned offsets narrower than 64 bits are
// zero-extended first, as Triton does.
ir::Value* signedOffset(Context& cx, ir::Value* off, const SourceLoc& loc) {
  Type t = off->type.element();
  if (t.isInt() && !ir::isSigned(t.elem) && ir::bitWidth(t.elem) < 64)
    return castElem(cx, off, Type::scalar(Scalar::I64), loc);
  return off;
}

SValue pointerAdd(Context& cx, const SValue& a, const SValue& b, bool subtract, const SourceLoc& loc) {
  const char* op = subtract ? "-" : "+";
  auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{true, !subtract, false, false}, op, loc);
  if (va->type.isPtr() && vb->type.isPtr()) fail(loc, std::string("cannot ") + (subtract ? "subtract" : "add") +
                                                          " two pointers: " + a.describe() + " and " + b.describe());
  if (vb->type.isPtr()) std::swap(va, vb);  // offset + pointer
  if (!vb->type.isInt()) operandError(op, a, b, loc, "pointer offsets must be integers");
  ir::Value* off = signedOffset(cx, vb, loc);
  if (subtract) off = emit(cx, Opcode::Neg, {off}, off->type, loc);
  return SValue::irValue(emit(cx, Opcode::PtrAdd, {va, off}, va->type, loc));
}

// `a >> b` in the promoted type, arithmetic when the left operand is a signed runtime value even if
// the promoted type is unsigned (Triton picks ashr by the left tensor's dtype: int8 >> uint8 is a
// uint8 holding the sign-filled bits), else by the promoted type: shr on a signed type is
// arithmetic, on an unsigned one logical. A Python-number left operand goes by the promoted type,
// as Triton's interpreter does (its compiler would pick by the right operand's signedness; the two
// differ only for a negative number shifted by an unsigned tensor narrower than 32 bits).
SValue shiftRight(Context& cx, const SValue& a, const SValue& b, const SourceLoc& loc) {
  auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{}, ">>", loc);
  if (!va->type.isInt()) operandError(">>", a, b, loc, "bitwise operators need integers");
  const Scalar t = va->type.elem;
  const bool signedLeft = a.isIR() && ir::isSigned(a.ir->type.elem);
  if (!signedLeft || ir::isSigned(t))
    return SValue::irValue(emit(cx, Opcode::Shr, {va, vb}, va->type, loc));
  // The same bits as the signed type of that width, shifted there and read back as unsigned.
  const Type s = Type::scalar(t == Scalar::U8 ? Scalar::I8 : t == Scalar::U16 ? Scalar::I16
                              : t == Scalar::U32 ? Scalar::I32 : Scalar::I64);
  ir::Value* sa = bitcastElem(cx, va, s, loc);
  ir::Value* sb = bitcastElem(cx, vb, s, loc);
  ir::Value* r = emit(cx, Opcode::Shr, {sa, sb}, sa->type, loc);
  return SValue::irValue(bitcastElem(cx, r, va->type.element(), loc));
}

SValue arithmetic(Context& cx, ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  const char* sp = ast::spelling(op);
  switch (op) {
    case ast::BinOp::Add:
    case ast::BinOp::Sub: {
      Type ta = a.isIR() ? a.ir->type : Type{}, tb = b.isIR() ? b.ir->type : Type{};
      if ((a.isIR() && ta.isPtr()) || (b.isIR() && tb.isPtr())) return pointerAdd(cx, a, b, op == ast::BinOp::Sub, loc);
      auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{}, sp, loc);
      return SValue::irValue(emit(cx, op == ast::BinOp::Add ? Opcode::Add : Opcode::Sub, {va, vb}, va->type, loc));
    }
    case ast::BinOp::Mul: {
      auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{}, sp, loc);
      return SValue::irValue(emit(cx, Opcode::Mul, {va, vb}, va->type, loc));
    }
    case ast::BinOp::Div: {  // true division: integers divide as f32
      auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{false, false, true, true}, sp, loc);
      if (va->type.isInt()) {
        va = castElem(cx, va, Type::scalar(Scalar::F32), loc);
        vb = castElem(cx, vb, Type::scalar(Scalar::F32), loc);
      }
      return SValue::irValue(emit(cx, Opcode::Div, {va, vb}, va->type, loc));
    }
    case ast::BinOp::FloorDiv:
    case ast::BinOp::Mod: {
      auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{false, false, true, true}, sp, loc);
      if (op == ast::BinOp::FloorDiv && !va->type.isInt())
        operandError(sp, a, b, loc, "// needs integers (it truncates toward zero, as in C); for floats use "
                                    "tl.floor(a / b)");
      return SValue::irValue(emit(cx, op == ast::BinOp::Mod ? Opcode::Rem : Opcode::Div, {va, vb}, va->type, loc));
    }
    case ast::BinOp::RShift: return shiftRight(cx, a, b, loc);
    case ast::BinOp::LShift:
    case ast::BinOp::BitAnd:
    case ast::BinOp::BitOr:
    case ast::BinOp::BitXor: {
      auto [va, vb] = binaryOperands(cx, a, b, BinaryRule{}, sp, loc);
      if (!va->type.isInt()) operandError(sp, a, b, loc, "bitwise operators need integers");
      Opcode code = op == ast::BinOp::LShift   ? Opcode::Shl
                    : op == ast::BinOp::BitAnd ? Opcode::And
                    : op == ast::BinOp::BitOr  ? Opcode::Or
                                               : Opcode::Xor;
      return SValue::irValue(emit(cx, code, {va, vb}, va->type, loc));
    }
    case ast::BinOp::Pow:
      operandError(sp, a, b, loc, "** is only evaluated on constexprs; on tensors use tl.exp2(y * tl.log2(x))");
    case ast::BinOp::MatMul: operandError(sp, a, b, loc, "use tl.dot(a, b) for matrix products");
  }
  operandError(sp, a, b, loc);
}

const char* predOf(ast::CmpOp op) {
  switch (op) {
    case ast::CmpOp::Eq: return "eq";
    case ast::CmpOp::NotEq: return "ne";
    case ast::CmpOp::Lt: return "lt";
    case ast::CmpOp::LtE: return "le";
    case ast::CmpOp::Gt: return "gt";
    case ast::CmpOp::GtE: return "ge";
    case ast::CmpOp::Is:
    case ast::CmpOp::IsNot:
    case ast::CmpOp::In:
    case ast::CmpOp::NotIn: break;
  }
  return nullptr;
}

}  // namespace

SValue binary(Context& cx, ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  if (!a.isIR() && !b.isIR()) return constexprBinary(op, a, b, loc);
  return arithmetic(cx, op, a, b, loc);
}

SValue unary(Context& cx, ast::UnaryOp op, const SValue& a, const SourceLoc& loc) {
  if (!a.isIR()) return constexprUnary(op, a, loc);
  ir::Value* v = a.ir;
  const Type& t = v->type;
  auto bad = [&]() {
    fail(loc, std::string("bad operand type for unary ") + ast::spelling(op) + ": " + a.describe());
  };
  switch (op) {
    case ast::UnaryOp::Pos:
      if (t.isPtr()) bad();
      return a;
    case ast::UnaryOp::Neg:
      if (t.isPtr()) bad();
      return SValue::irValue(emit(cx, Opcode::Neg, {v}, t, loc));
    case ast::UnaryOp::Invert:
      if (!t.isInt()) bad();
      return SValue::irValue(emit(cx, Opcode::Not, {v}, t, loc));
    case ast::UnaryOp::Not: {
      if (t.isPtr()) bad();
      if (t.isBool()) return SValue::irValue(emit(cx, Opcode::Not, {v}, t, loc));
      ir::Value* zero = zeroOf(cx, t, loc);
      return SValue::irValue(
          emit(cx, Opcode::Cmp, {v, zero}, t.withElem(Scalar::I1), loc, {ir::Attr{"pred", std::string("eq")}}));
    }
  }
  throw InternalError(loc, "unknown unary operator");
}

SValue compare(Context& cx, ast::CmpOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  if (op == ast::CmpOp::Is || op == ast::CmpOp::IsNot) {
    if (!a.isIR() && !b.isIR()) return constexprCompare(op, a, b, loc);
    bool same = a.isIR() && b.isIR() && a.ir == b.ir;  // identity of runtime values
    return SValue::boolean(op == ast::CmpOp::Is ? same : !same);
  }
  if (!a.isIR() && !b.isIR()) return constexprCompare(op, a, b, loc);
  const char* sp = ast::spelling(op);
  const char* pred = predOf(op);
  if (!pred) operandError(sp, a, b, loc, "membership tests are only evaluated on constexprs");
  bool ptrA = a.isIR() && a.ir->type.isPtr(), ptrB = b.isIR() && b.ir->type.isPtr();
  std::pair<ir::Value*, ir::Value*> ops;
  if (ptrA || ptrB) {
    // Pointers compare for (in)equality as addresses; Triton rejects pointer comparisons outright.
    bool eq = op == ast::CmpOp::Eq || op == ast::CmpOp::NotEq;
    if (!eq || !ptrA || !ptrB) operandError(sp, a, b, loc, "pointers only compare with == and != to pointers");
    ops = binaryOperands(cx, a, b, BinaryRule{true, true, false, false}, sp, loc);
    Type u64 = Type::scalar(Scalar::U64);
    ops.first = emit(cx, Opcode::Bitcast, {ops.first}, ops.first->type.withElem(u64), loc);
    ops.second = emit(cx, Opcode::Bitcast, {ops.second}, ops.second->type.withElem(u64), loc);
  } else {
    // Triton's comparison operators turn a Python number into a tensor of its literal type first,
    // so numbers take part in promotion here (x_i8 < 300 compares in i32).
    auto strong = [&](const SValue& v) { return v.isNumber() ? SValue::irValue(materialize(cx, v, loc)) : v; };
    ops = binaryOperands(cx, strong(a), strong(b), BinaryRule{}, sp, loc);
  }
  Type rt = ops.first->type.withElem(Scalar::I1);
  return SValue::irValue(emit(cx, Opcode::Cmp, {ops.first, ops.second}, rt, loc, {ir::Attr{"pred", std::string(pred)}}));
}

SValue logical(Context& cx, ast::BoolOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  if (!a.isIR() && !b.isIR()) {  // normally short-circuited by the lowering; Python's value rule
    bool ta = pyTruth(a);
    return op == ast::BoolOp::And ? (ta ? b : a) : (ta ? a : b);
  }
  auto toBool = [&](const SValue& v) -> ir::Value* {
    if (v.isIR()) return truthOf(cx, v.ir, loc);
    if (v.isConstexpr() && v.kind != K::Tuple) return constantOf(cx, SValue::boolean(pyTruth(v)), Type::scalar(Scalar::I1), loc);
    fail(loc, "cannot use " + v.describe() + " in a runtime 'and'/'or'");
  };
  ir::Value* va = toBool(a);
  ir::Value* vb = toBool(b);
  Shape shape = broadcastShape(va->type.shape, vb->type.shape, loc);
  va = broadcastTo(cx, va, shape, loc);
  vb = broadcastTo(cx, vb, shape, loc);
  return SValue::irValue(emit(cx, op == ast::BoolOp::And ? Opcode::And : Opcode::Or, {va, vb}, va->type, loc));
}

}  // namespace kiln::sema
