// The meaning of the special-function ops (erfc and the others after the Bessel functions in ops.def):
// computed in long double with the C library where it has the function (scalar_special.h), rounded once
// to double here and to the op's type by the caller.
#include <cmath>
#include <string>

#include "ir/scalar_eval.h"
#include "ir/scalar_special.h"
#include "support/diagnostic.h"

namespace kiln::ir {

namespace {

// sqrt(1/2) = kSqrtHalfHi + kSqrtHalfLo to ~2^-128 (hi: 64 bits).
constexpr long double kSqrtHalfHi = 0xB504F333F9DE6484p-64L, kSqrtHalfLo = 1.895032558893257079655062e-20L;
constexpr long double kTwoOverSqrtPi = 1.128379167095512573896158903121545172L;

// erfc(y + yl) for a small yl: erfc(y) minus the first-order term.
long double erfcOfSum(long double y, long double yl) {
  if (yl == 0 || std::isinf(y)) return erfcl(y);
  return erfcl(y) - yl * kTwoOverSqrtPi * expl(-y * y);
}

}  // namespace

// normcdf(x) = erfc(-x / sqrt 2) / 2, -x / sqrt 2 carried beyond long double (the tail's relative error
// is 2y^2 times that of y).
long double normcdfLong(long double x) {
  long double yh = -x * kSqrtHalfHi;
  long double yl = std::isinf(x) ? 0.0L : fmal(-x, kSqrtHalfHi, -yh) - x * kSqrtHalfLo;
  return erfcOfSum(yh, yl) / 2;
}

namespace {

// The y in [lo, hi] where the monotonic f crosses v, by bisection to adjacent long doubles.
template <class F>
long double bisect(F f, long double v, long double lo, long double hi, bool decreasing) {
  for (int i = 0; i < 200; ++i) {
    long double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    ((f(mid) > v) != decreasing ? hi : lo) = mid;
  }
  return lo + (hi - lo) / 2;
}

// erfinv(a) for a in [0, 1/2] (the first terms of the series below 2^-32, where the next is negligible).
long double erfinvSmall(long double a) {
  if (a < 0x1p-32L) return a * 0.886226925452758013649083741671L;
  return bisect([](long double y) { return erfl(y); }, a, 0, 0.48L, false);
}

// erfcinv(p) for p in (0, 1]: 1 - p is exact for p >= 1/2.
long double erfcinvPositive(long double p) {
  if (p >= 0.5L) return erfinvSmall(1 - p);
  return bisect([](long double y) { return erfcl(y); }, p, 0.47L, 110, true);
}

}  // namespace

long double erfinvLong(long double x) {
  long double a = std::fabs(x);
  if (std::isnan(x) || a > 1) return NAN;
  long double y = a == 1 ? INFINITY : a <= 0.5L ? erfinvSmall(a) : erfcinvPositive(1 - a);
  return std::copysign(y, x);
}

long double erfcinvLong(long double q) {
  if (std::isnan(q) || q < 0 || q > 2) return NAN;
  if (q == 0 || q == 2) return q == 0 ? INFINITY : -INFINITY;
  return q > 1 ? -erfcinvPositive(2 - q) : erfcinvPositive(q);
}

// normcdfinv(p) = -sqrt 2 erfcinv(2p); +0 at p = 1/2.
long double normcdfinvLong(long double p) {
  long double r = -1.414213562373095048801688724209698079L * erfcinvLong(2 * p);
  return r == 0 ? 0.0L : r;
}

double specialOf(Opcode op, double x) {
  const long double v = x;
  switch (op) {
    case Opcode::Erfc: return double(erfcl(v));
    case Opcode::Normcdf: return double(normcdfLong(v));
    case Opcode::Erfinv: return double(erfinvLong(v));
    case Opcode::Erfcinv: return double(erfcinvLong(v));
    case Opcode::Normcdfinv: return double(normcdfinvLong(v));
    default: throw InternalError({}, std::string("not a special function: ") + info(op).spelling);
  }
}

}  // namespace kiln::ir
