// The meaning of the Bessel ops (bessel_j0 .. bessel_i1): libstdc++'s C++17 special functions in long
// double (its double ones of i0 and i1 are off by up to ~64 ulp), rounded to double; they take x >= 0
// only, so they are extended by symmetry (j0, i0 even; j1, i1 odd); y0 and y1 are NaN below 0.
#include <cmath>

#include "ir/scalar_eval.h"

namespace kiln::ir {

double besselOf(Opcode op, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x), sign = std::signbit(x) ? -1.0 : 1.0;
  if (op == Opcode::BesselY0 || op == Opcode::BesselY1) {
    if (x < 0) return NAN;
    if (x == 0) return -INFINITY;
    if (std::isinf(x)) return 0.0;
    if (x < 0x1p-900)  // the leading terms (libstdc++ throws on 1/x overflowing)
      return op == Opcode::BesselY0 ? (std::log(x) - M_LN2 + 0.57721566490153286) * (2 / M_PI) : -(2 / M_PI) / x;
    return double(std::cyl_neumannl(op == Opcode::BesselY0 ? 0 : 1, x));
  }
  if (op == Opcode::BesselJ0) return std::isinf(a) ? 0.0 : double(std::cyl_bessel_jl(0, a));
  if (op == Opcode::BesselJ1) return sign * (std::isinf(a) ? 0.0 : double(std::cyl_bessel_jl(1, a)));
  if (a > 714) return op == Opcode::BesselI1 ? sign * INFINITY : INFINITY;  // overflows (libstdc++ may throw)
  double i = double(std::cyl_bessel_il(op == Opcode::BesselI0 ? 0 : 1, a));
  return op == Opcode::BesselI1 ? sign * i : i;
}

}  // namespace kiln::ir
