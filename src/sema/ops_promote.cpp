// Triton's typing of runtime values: literal types of Python numbers, the computation type of a
// binary op (computation_type_impl, integer_promote_impl) and the operand preparation shared by
// every arithmetic, comparison and selection (binary_op_type_checking_impl).
#include <cmath>
#include <limits>

#include "ir/scalar_eval.h"
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

Type literalType(const SValue& num) {
  switch (num.kind) {
    case K::Bool: return Type::scalar(Scalar::I1);
    case K::Int:
      if (num.u64) return Type::scalar(Scalar::U64);  // [2^63, 2^64), as Triton
      return Type::scalar(num.i >= std::numeric_limits<int32_t>::min() && num.i <= std::numeric_limits<int32_t>::max()
                              ? Scalar::I32
                              : Scalar::I64);
    case K::Float: {
      // Triton keeps a float literal in f32 unless f32 would flush it to zero or overflow.
      double a = std::fabs(num.f);
      bool f32 = std::isinf(a) || std::isnan(a) || a == 0.0 ||
                 (a >= std::ldexp(1.0, -126) && a <= double(std::numeric_limits<float>::max()));
      return Type::scalar(f32 ? Scalar::F32 : Scalar::F64);
    }
    default: break;
  }
  throw InternalError(SourceLoc{}, "literalType of " + num.describe());
}

int typeKind(Scalar s) { return s == Scalar::I1 ? 0 : ir::isInt(s) ? 1 : 2; }

Scalar integerPromote(Scalar a, Scalar b) {
  int wa = ir::bitWidth(a), wb = ir::bitWidth(b);
  bool sa = ir::isSigned(a), sb = ir::isSigned(b);
  if (sa == sb) return wa > wb ? a : b;
  if (!sa) return wa >= wb ? a : b;  // a unsigned, b signed
  return wb >= wa ? b : a;           // b unsigned, a signed
}

static bool isF8(Scalar s) { return ir::isFloat(s) && ir::bitWidth(s) == 8; }

Scalar computationType(Scalar a, bool aWeak, Scalar b, bool bWeak, bool divOrMod, const std::string& operands,
                       const SourceLoc& loc) {
  // A Python number of a kind no higher than the tensor's does not take part (PyTorch's rule).
  if (aWeak != bWeak) {
    Scalar weak = aWeak ? a : b, strong = aWeak ? b : a;
    if (typeKind(weak) <= typeKind(strong)) {
      if (divOrMod && (strong == Scalar::F16 || strong == Scalar::BF16)) return Scalar::F32;
      return strong;
    }
  }
  if (a == Scalar::F64 || b == Scalar::F64) return Scalar::F64;
  if (a == Scalar::F32 || b == Scalar::F32) return Scalar::F32;
  // PTX has no f16/bf16 division or remainder: those compute in f32.
  if (a == Scalar::F16 || b == Scalar::F16) return divOrMod ? Scalar::F32 : Scalar::F16;
  if (a == Scalar::BF16 && b == Scalar::BF16) return divOrMod ? Scalar::F32 : Scalar::BF16;
  if (a == Scalar::BF16 || b == Scalar::BF16) return Scalar::F32;
  if (isF8(a) && isF8(b)) return a == b ? a : Scalar::F16;
  if (!ir::isInt(a) || !ir::isInt(b))
    fail(loc, "no common type for " + operands + " (" + std::string(ir::name(a)) + " and " +
                  std::string(ir::name(b)) + "); cast one of them explicitly");
  if (divOrMod && ir::isSigned(a) != ir::isSigned(b))
    fail(loc, "Cannot use /, // or % with " + operands + " because they have different signedness (" +
                  std::string(ir::name(a)) + " and " + std::string(ir::name(b)) +
                  "); cast them to the same signedness");
  return integerPromote(a, b);
}

void operandError(std::string_view op, const SValue& a, const SValue& b, const SourceLoc& loc,
                  const std::string& hint) {
  auto type = [](const SValue& v) { return v.isIR() && v.ir ? v.ir->type.str() : v.describe(); };
  fail(loc, "invalid operands of type " + type(a) + " and " + type(b) + " for " + std::string(op) +
                (hint.empty() ? "" : ": " + hint));
}

// Triton's range check of a Python int combined with a tensor of integer type `r`.
static void checkWeakRange(const SValue& s, Scalar r, const SValue& other, const SourceLoc& loc) {
  if (!ir::isInt(r) || (s.kind != K::Int && s.kind != K::Bool)) return;
  if (s.u64) {  // [2^63, 2^64) fits only uint64
    if (r != Scalar::U64)
      fail(loc, "the integer " + std::to_string(uint64_t(s.i)) + " is out of range for " + std::string(ir::name(r)) +
                    ", the type of " + other.describe() + "; cast one of them explicitly");
    return;
  }
  int w = ir::bitWidth(r);
  if (s.i < 0 && !ir::isSigned(r))
    fail(loc, "cannot combine " + other.describe() + " (unsigned) with the negative " + s.describe() +
                  "; cast one of them explicitly");
  int64_t lo = ir::isSigned(r) ? (w == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (w - 1))) : 0;
  int64_t hi = ir::isSigned(r) ? (w == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (w - 1)) - 1)
               : w >= 63       ? std::numeric_limits<int64_t>::max()
                               : (int64_t(1) << w) - 1;
  if (s.i < lo || s.i > hi)
    fail(loc, s.describe() + " is out of range for " + std::string(ir::name(r)) + ", the type of " +
                  other.describe() + "; cast one of them explicitly");
}

static Shape shapeOf(const SValue& v) { return v.isIR() ? v.ir->type.shape : Shape{}; }

std::pair<ir::Value*, ir::Value*> binaryOperands(Context& cx, const SValue& a, const SValue& b,
                                                 const BinaryRule& rule, std::string_view op,
                                                 const SourceLoc& loc) {
  if ((!a.isIR() && !a.isNumber()) || (!b.isIR() && !b.isNumber())) operandError(op, a, b, loc);
  Type ta = a.isIR() ? a.ir->type.element() : literalType(a);
  Type tb = b.isIR() ? b.ir->type.element() : literalType(b);
  auto checkPtr = [&](const Type& x, const Type& y, bool allow) {
    if (!x.isPtr()) return;
    if (!allow || (y.isPtr() && x != y) || y.isFloat()) operandError(op, a, b, loc);
  };
  checkPtr(ta, tb, rule.allowLhsPtr);
  checkPtr(tb, ta, rule.allowRhsPtr);
  if (rule.arithmetic && !ta.isPtr() && !tb.isPtr()) {
    Scalar r = computationType(ta.elem, a.isNumber(), tb.elem, b.isNumber(), rule.divOrMod,
                               a.describe() + " and " + b.describe(), loc);
    if (a.isNumber()) checkWeakRange(a, r, b, loc);
    if (b.isNumber()) checkWeakRange(b, r, a, loc);
    ta = tb = Type::scalar(r);
  }
  Shape shape = broadcastShape(shapeOf(a), shapeOf(b), loc);
  auto prepare = [&](const SValue& v, const Type& elem) -> ir::Value* {
    if (!v.isIR()) return constantOf(cx, v, elem.withShape(shape), loc);
    return broadcastTo(cx, castElem(cx, v.ir, elem, loc), shape, loc);
  };
  ir::Value* va = prepare(a, ta);
  ir::Value* vb = prepare(b, tb);
  return {va, vb};
}

// ---- constants

ir::Value* constantOf(Context& cx, const SValue& num, const Type& t, const SourceLoc& loc) {
  if (!num.isNumber() || t.isPtr()) throw InternalError(loc, "constantOf " + num.describe() + " as " + t.str());
  if (t.isInt()) {
    if (num.kind == K::Float) throw InternalError(loc, "float constant of integer type " + t.str());
    int64_t v = ir::normalize(t.elem, ir::intElem(num.i)).i;
    return emit(cx, ir::Opcode::Constant, {}, t, loc, {ir::Attr{"value", v}});
  }
  double d = num.kind == K::Float ? num.f : num.u64 ? double(uint64_t(num.i)) : double(num.i);
  d = ir::normalize(t.elem, ir::floatElem(d)).f;
  return emit(cx, ir::Opcode::Constant, {}, t, loc, {ir::Attr{"value", d}});
}

ir::Value* zeroOf(Context& cx, const Type& t, const SourceLoc& loc) {
  return constantOf(cx, t.isFloat() ? SValue::real(0.0) : SValue::integer(0), t, loc);
}

ir::Value* materialize(Context& cx, const SValue& v, const SourceLoc& loc) {
  if (v.isIR()) return v.ir;
  if (v.isNumber()) return constantOf(cx, v, literalType(v), loc);
  fail(loc, "cannot use " + v.describe() + " as a runtime value (only numbers and tensors can be)");
}

ir::Value* toTensor(Context& cx, const SValue& v, const SourceLoc& loc, std::string_view what) {
  if (v.isIR()) return v.ir;
  if (v.isNumber()) return materialize(cx, v, loc);
  fail(loc, std::string(what) + " must be a tensor or a number, got " + v.describe());
}

// ---- shapes

Shape broadcastShape(const Shape& a, const Shape& b, const SourceLoc& loc) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {  // right-aligned
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(loc, "cannot broadcast shapes " + shapeStr(a) + " and " + shapeStr(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

ir::Value* broadcastTo(Context& cx, ir::Value* v, const Shape& shape, const SourceLoc& loc) {
  const Type& t = v->type;
  if (t.shape == shape) return v;
  if (!t.isTensor()) return emit(cx, ir::Opcode::Splat, {v}, t.withShape(shape), loc);
  if (t.shape.size() > shape.size())
    fail(loc, "cannot broadcast " + t.str() + " to the lower-rank shape " + shapeStr(shape));
  for (size_t i = 0; i < t.shape.size(); ++i) {
    int64_t d = t.shape[i], want = shape[i + shape.size() - t.shape.size()];
    if (d != want && d != 1) fail(loc, "cannot broadcast " + t.str() + " to shape " + shapeStr(shape));
  }
  ir::Value* cur = v;
  while (cur->type.shape.size() < shape.size()) cur = expandDims(cx, cur, 0, loc);
  if (cur->type.shape != shape) cur = emit(cx, ir::Opcode::Broadcast, {cur}, cur->type.withShape(shape), loc);
  return cur;
}

void validateShape(const Shape& s, const SourceLoc& loc) {
  constexpr int64_t kMaxNumel = int64_t(1) << 20;  // Triton's TRITON_MAX_TENSOR_NUMEL
  // Size-1 dimensions cost nothing in numel, so only a rank bound keeps x[None, None, ...] (each
  // None one more dimension) from building types and ops quadratic in the number of indices.
  constexpr size_t kMaxRank = 32;
  if (s.size() > kMaxRank)
    fail(loc, "a tensor has at most " + std::to_string(kMaxRank) + " dimensions, this one would have " +
                  std::to_string(s.size()));
  int64_t numel = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    int64_t d = s[i];
    if (d <= 0 || (d & (d - 1)) != 0)
      fail(loc, "shape element " + std::to_string(i) + " must be a power of 2, got " + std::to_string(d) +
                    " (in shape " + shapeStr(s) + ")");
    if (d > kMaxNumel || numel * d > kMaxNumel)
      fail(loc, "shape " + shapeStr(s) + " has more than the maximum of " + std::to_string(kMaxNumel) +
                    " elements in a tensor");
    numel *= d;
  }
}

int64_t wrapAxis(int64_t axis, int64_t rank, const SourceLoc& loc) {
  if (axis < -rank || axis >= rank)
    fail(loc, "invalid axis " + std::to_string(axis) + " for a tensor of rank " + std::to_string(rank) +
                  " (expected " + std::to_string(-rank) + " <= axis < " + std::to_string(rank) + ")");
  return axis < 0 ? axis + rank : axis;
}

}  // namespace kiln::sema
