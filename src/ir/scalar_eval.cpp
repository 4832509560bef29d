// Exact per-element semantics of element-wise ops (see scalar_eval.h and docs/semantics.md): integer
// wrapping, division, shifts and bit counts, comparisons, float min/max and math rounded once to the
// type (the rounding and the conversions are scalar_convert.cpp's).
#include "ir/scalar_eval.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "ir/scalar_int.h"
#include "support/diagnostic.h"

namespace kiln::ir {

using detail::widthMask;
using detail::wrapInt;

// ---------------------------------------------------------------- element-wise ops

bool decodeElementwise(const Op& attrOp, Scalar t, ElementwiseFn& out) {
  // The family says which element types an op is defined on (ops.def).
  enum Kind { Arith, IntOnly, FloatOnly, AnyType } kind = AnyType;
  switch (familyOf(attrOp.opcode)) {
    case Family::Arith: kind = Arith; break;
    case Family::Bitwise: kind = IntOnly; break;
    case Family::Math: kind = FloatOnly; break;
    case Family::Compare: kind = AnyType; break;
    case Family::Constant: case Family::Index: case Family::Shape: case Family::Cast: case Family::Pointer:
    case Family::Memory: case Family::Reduce: case Family::Dot: case Family::Exchange: case Family::Hint: case Family::Control:
    case Family::Terminator: case Family::Assert: case Family::Asm: case Family::Layout: case Family::Shared: case Family::Async:
    case Family::Sync: case Family::Mma: case Family::Partition:
      return false;
  }
  bool ok = kind == AnyType || (kind == Arith && t != Scalar::Ptr) || (kind == IntOnly && isInt(t)) ||
            (kind == FloatOnly && isFloat(t));
  if (!ok)
    throw InternalError(attrOp.loc, std::string("op '") + attrOp.name() + "' is not defined on " +
                                        std::string(name(t)));
  out = ElementwiseFn{attrOp.opcode, t, 0, false};
  if (attrOp.opcode == Opcode::Cmp) {
    static constexpr const char* kPreds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    std::string p = attrOp.strAttrOr("pred", "");
    auto it = std::find_if(std::begin(kPreds), std::end(kPreds), [&](const char* s) { return p == s; });
    if (it == std::end(kPreds)) throw InternalError(attrOp.loc, "cmp has an unknown predicate '" + p + "'");
    out.pred = uint8_t(it - std::begin(kPreds));
  }
  if (attrOp.opcode == Opcode::Min || attrOp.opcode == Opcode::Max)
    out.propagateNan = attrOp.intAttrOr("propagate_nan", 0) != 0;
  if (attrOp.opcode == Opcode::Rounded) {
    std::string f = attrOp.strAttrOr("fn", ""), m = attrOp.strAttrOr("mode", "");
    if (!roundedFnFromName(f, out.roundedFn)) throw InternalError(attrOp.loc, "rounded has an unknown fn '" + f + "'");
    if (!roundModeFromName(m, out.mode)) throw InternalError(attrOp.loc, "rounded has an unknown mode '" + m + "'");
    if (t != Scalar::F32 && t != Scalar::F64)
      throw InternalError(attrOp.loc, "op 'rounded' is not defined on " + std::string(name(t)));
  }
  return true;
}

bool evalElementwise(const Op& attrOp, Scalar t, const Elem* operands, Elem& out, bool& divByZero) {
  ElementwiseFn fn;
  if (!decodeElementwise(attrOp, t, fn)) return false;
  evalElementwise(fn, operands, out, divByZero);
  return true;
}

namespace {

bool isNan(double x) { return std::isnan(x); }

// Float min/max: -0.0 orders below +0.0; NaN is ignored unless propagateNan.
double floatMin(double a, double b, bool propagateNan) {
  if (isNan(a) || isNan(b)) return propagateNan ? (isNan(a) ? a : b) : (isNan(a) ? b : a);
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double floatMax(double a, double b, bool propagateNan) {
  if (isNan(a) || isNan(b)) return propagateNan ? (isNan(a) ? a : b) : (isNan(a) ? b : a);
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

bool compareInts(uint8_t pred, Scalar t, Elem a, Elem b) {
  bool sgn = isSigned(t);
  bool lt = sgn ? a.i < b.i : a.u < b.u;
  bool gt = sgn ? a.i > b.i : a.u > b.u;
  switch (pred) {
    case 0: return a.u == b.u;
    case 1: return a.u != b.u;
    case 2: return lt;
    case 3: return !gt;
    case 4: return gt;
    default: return !lt;  // ge (pred is 0..5 by construction)
  }
}

bool compareFloats(uint8_t pred, double a, double b) {
  switch (pred) {
    case 0: return a == b;
    case 1: return !(a == b);  // unordered or not equal: NaN != NaN
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

Elem intDivRem(bool div, Scalar t, Elem a, Elem b, bool& divByZero) {
  if (b.u == 0) {  // what NVIDIA GPUs return: an all-ones quotient, the dividend as remainder
    divByZero = true;
    return div ? wrapInt(t, ~uint64_t(0)) : a;
  }
  if (!isSigned(t)) return wrapInt(t, div ? a.u / b.u : a.u % b.u);
  if (b.i == -1) return div ? wrapInt(t, uint64_t(0) - a.u) : intElem(0);  // INT_MIN / -1 wraps
  return wrapInt(t, uint64_t(div ? a.i / b.i : a.i % b.i));
}

Elem intShift(bool left, Scalar t, Elem a, Elem b) {
  uint64_t amount = b.u & widthMask(t);  // the shift amount is read as unsigned
  bool sgn = isSigned(t);
  if (amount >= uint64_t(bitWidth(t))) {
    bool fill = !left && sgn && a.i < 0;  // arithmetic shift right fills with the sign
    return wrapInt(t, fill ? ~uint64_t(0) : 0);
  }
  if (left) return wrapInt(t, a.u << amount);
  return sgn ? wrapInt(t, uint64_t(a.i >> amount)) : wrapInt(t, a.u >> amount);
}

Elem intMinMax(bool isMin, Scalar t, Elem a, Elem b) {
  bool aLess = isSigned(t) ? a.i < b.i : a.u < b.u;
  return aLess == isMin ? a : b;
}

Elem umulhi(Scalar t, Elem a, Elem b) {
  unsigned __int128 p = (unsigned __int128)(a.u & widthMask(t)) * (b.u & widthMask(t));
  return wrapInt(t, uint64_t(p >> bitWidth(t)));
}

// The high half of the product, the operands read as signed or unsigned by t.
Elem mulhi(Scalar t, Elem a, Elem b) {
  if (!isSigned(t)) return umulhi(t, a, b);
  __int128 p = (__int128)a.i * b.i;  // a.i, b.i hold the values sign-extended
  return wrapInt(t, uint64_t(p >> bitWidth(t)));
}

Elem bitCount(Opcode op, Scalar t, Elem a) {
  const int w = bitWidth(t);
  const uint64_t v = a.u & widthMask(t);
  if (op == Opcode::Popc) return intElem(std::popcount(v));
  if (op == Opcode::Clz) return intElem(std::countl_zero(v) - (64 - w));
  uint64_t r = 0;  // Brev
  for (int i = 0; i < w; ++i) r |= ((v >> i) & 1) << (w - 1 - i);
  return wrapInt(t, r);
}

// byte_perm(x, y, s): the eight bytes y:x (x the low four); byte i of the result is byte (s >> 4i) & 7.
Elem bytePerm(Scalar t, Elem x, Elem y, Elem s) {
  const uint64_t both = ((y.u & 0xFFFFFFFF) << 32) | (x.u & 0xFFFFFFFF);
  uint64_t r = 0;
  for (int i = 0; i < 4; ++i) r |= ((both >> (8 * ((s.u >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return wrapInt(t, r);
}

// A NaN as the math functions see it: quiet. The C library answers a signaling NaN with NaN where a quiet
// one can give a number (pow(NaN, 0) = 1, hypot(inf, NaN) = inf); the GPU has no signaling NaNs (its
// conversions to f32 and f64 quiet them), and a narrow format's NaN decodes with its quiet bit as stored.
double quiet(double v) {
  if (!std::isnan(v)) return v;
  return std::bit_cast<double>(std::bit_cast<uint64_t>(v) | uint64_t(1) << 51);  // the payload stays
}

}  // namespace

// Operand types were checked by decodeElementwise: integer-only ops see integers here, float
// math sees floats. Float results are computed in double and rounded once to fn.t.
void evalElementwise(const ElementwiseFn& fn, const Elem* x, Elem& out, bool& divByZero) {
  const Scalar t = fn.t;
  const bool fl = isFloat(t);
  const Elem a = x[0];
  auto f = [&](double r) { out = floatElem(roundTo(t, r)); };
  switch (fn.op) {
    case Opcode::Add: if (fl) f(a.f + x[1].f); else out = wrapInt(t, a.u + x[1].u); return;
    case Opcode::Sub: if (fl) f(a.f - x[1].f); else out = wrapInt(t, a.u - x[1].u); return;
    case Opcode::Mul: if (fl) f(a.f * x[1].f); else out = wrapInt(t, a.u * x[1].u); return;
    case Opcode::Div: if (fl) f(a.f / x[1].f); else out = intDivRem(true, t, a, x[1], divByZero); return;
    case Opcode::Rem:
      if (fl) f(std::fmod(a.f, x[1].f));
      else out = intDivRem(false, t, a, x[1], divByZero);
      return;
    case Opcode::And: out = wrapInt(t, a.u & x[1].u); return;
    case Opcode::Or: out = wrapInt(t, a.u | x[1].u); return;
    case Opcode::Xor: out = wrapInt(t, a.u ^ x[1].u); return;
    case Opcode::Shl: out = intShift(true, t, a, x[1]); return;
    case Opcode::Shr: out = intShift(false, t, a, x[1]); return;
    case Opcode::Min:
      out = fl ? floatElem(floatMin(a.f, x[1].f, fn.propagateNan)) : intMinMax(true, t, a, x[1]);
      return;
    case Opcode::Max:
      out = fl ? floatElem(floatMax(a.f, x[1].f, fn.propagateNan)) : intMinMax(false, t, a, x[1]);
      return;
    case Opcode::UMulHi: out = umulhi(t, a, x[1]); return;
    case Opcode::Fma: out = floatElem(fmaTo(t, a.f, x[1].f, x[2].f)); return;
    case Opcode::Neg: out = fl ? floatElem(-a.f) : wrapInt(t, uint64_t(0) - a.u); return;
    case Opcode::Not: out = wrapInt(t, ~a.u); return;
    case Opcode::Abs:
      out = fl ? floatElem(std::fabs(a.f)) : (isSigned(t) && a.i < 0 ? wrapInt(t, uint64_t(0) - a.u) : a);
      return;
    case Opcode::Exp: f(std::exp(a.f)); return;
    case Opcode::Exp2: f(std::exp2(a.f)); return;
    case Opcode::Log: f(std::log(a.f)); return;
    case Opcode::Log2: f(std::log2(a.f)); return;
    case Opcode::Sqrt: f(std::sqrt(a.f)); return;
    case Opcode::Rsqrt: f(1.0 / std::sqrt(a.f)); return;
    case Opcode::Sin: f(std::sin(a.f)); return;
    case Opcode::Cos: f(std::cos(a.f)); return;
    case Opcode::Tanh: f(std::tanh(a.f)); return;
    case Opcode::Erf: f(std::erf(a.f)); return;
    case Opcode::Floor: f(std::floor(a.f)); return;
    case Opcode::Ceil: f(std::ceil(a.f)); return;
    case Opcode::Trunc: f(std::trunc(a.f)); return;
    case Opcode::Rint: f(std::nearbyint(a.f)); return;  // the default rounding mode: to nearest, ties to even
    case Opcode::RoundTf32: f(roundToTF32(a.f)); return;
    case Opcode::Expm1: f(std::expm1(a.f)); return;
    case Opcode::Log1p: f(std::log1p(a.f)); return;
    case Opcode::Log10: f(std::log10(a.f)); return;
    case Opcode::Exp10: f(std::pow(10.0, a.f)); return;
    case Opcode::Tan: f(std::tan(a.f)); return;
    case Opcode::Asin: f(std::asin(a.f)); return;
    case Opcode::Acos: f(std::acos(a.f)); return;
    case Opcode::Atan: f(std::atan(a.f)); return;
    case Opcode::Sinh: f(std::sinh(a.f)); return;
    case Opcode::Cosh: f(std::cosh(a.f)); return;
    case Opcode::Asinh: f(std::asinh(a.f)); return;
    case Opcode::Acosh: f(std::acosh(a.f)); return;
    case Opcode::Atanh: f(std::atanh(a.f)); return;
    case Opcode::Cbrt: f(std::cbrt(a.f)); return;
    case Opcode::Atan2: f(std::atan2(a.f, x[1].f)); return;
    case Opcode::Hypot: f(std::hypot(quiet(a.f), quiet(x[1].f))); return;
    case Opcode::Pow: f(std::pow(quiet(a.f), quiet(x[1].f))); return;
    case Opcode::BesselJ0: case Opcode::BesselJ1: case Opcode::BesselY0: case Opcode::BesselY1:
    case Opcode::BesselI0: case Opcode::BesselI1: f(besselOf(fn.op, a.f)); return;
    case Opcode::Erfc: case Opcode::Normcdf: case Opcode::Erfinv: case Opcode::Erfcinv: case Opcode::Normcdfinv:
      f(specialOf(fn.op, a.f));
      return;
    case Opcode::Clz: case Opcode::Popc: case Opcode::Brev: out = bitCount(fn.op, t, a); return;
    case Opcode::MulHi: out = mulhi(t, a, x[1]); return;
    case Opcode::BytePerm: out = bytePerm(t, a, x[1], x[2]); return;
    case Opcode::Rounded: {
      double v[3] = {a.f, 0, 0};
      for (int k = 1; k < roundedArity(fn.roundedFn); ++k) v[k] = x[k].f;
      out = floatElem(roundedArith(t, fn.roundedFn, fn.mode, v));
      return;
    }
    case Opcode::Cmp:
      out = intElem(fl ? compareFloats(fn.pred, a.f, x[1].f)
                       : compareInts(fn.pred, t == Scalar::Ptr ? Scalar::U64 : t, a, x[1]));
      return;
    case Opcode::Select: out = a.u & 1 ? x[1] : x[2]; return;
    default:  // not element-wise (ops.def's family column): decodeElementwise never yields one
      break;
  }
  throw InternalError({}, std::string("op '") + info(fn.op).spelling + "' is not element-wise");
}

}  // namespace kiln::ir
