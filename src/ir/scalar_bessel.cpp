// The meaning of the Bessel ops (bessel_j0 .. bessel_i1): libstdc++'s C++17 special functions in long
// double (its double ones of i0 and i1 are off by up to ~64 ulp), rounded to double by besselOf; they take
// x >= 0 only, so they are extended by symmetry (j0, i0 even; j1, i1 odd); y0 and y1 are NaN below 0.
#include <cmath>
#include <string>

#include "ir/scalar_eval.h"
#include "ir/scalar_special.h"
#include "support/diagnostic.h"

namespace kiln::ir {

long double besselLong(Opcode op, long double x) {
  if (std::isnan(x)) return x;
  const long double a = std::fabs(x), sign = std::signbit(x) ? -1.0L : 1.0L;
  switch (op) {
    case Opcode::BesselY0:
    case Opcode::BesselY1: {
      if (x < 0) return NAN;
      if (x == 0) return -INFINITY;
      if (std::isinf(x)) return 0.0L;
      if (x < 0x1p-900L)  // the leading terms (libstdc++ throws on 1/x overflowing)
        return op == Opcode::BesselY0 ? (logl(x) - M_LN2l + 0.577215664901532860606512L) * 2 / M_PIl
                                      : -2 / (M_PIl * x);
      return std::cyl_neumannl(op == Opcode::BesselY0 ? 0 : 1, x);
    }
    case Opcode::BesselJ0: return std::isinf(a) ? 0.0L : std::cyl_bessel_jl(0, a);
    case Opcode::BesselJ1: return sign * (std::isinf(a) ? 0.0L : std::cyl_bessel_jl(1, a));
    case Opcode::BesselI0:
    case Opcode::BesselI1: {
      const long double s = op == Opcode::BesselI1 ? sign : 1.0L;
      if (a > 714) return s * INFINITY;  // past f64's range (libstdc++ may throw)
      return s * std::cyl_bessel_il(op == Opcode::BesselI0 ? 0 : 1, a);
    }
    default: throw InternalError({}, std::string("not a Bessel function: ") + info(op).spelling);
  }
}

double besselOf(Opcode op, double x) { return double(besselLong(op, x)); }

}  // namespace kiln::ir
