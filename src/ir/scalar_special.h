// The special-function and Bessel ops (erfc .. normcdfinv, bessel_j0 .. bessel_i1) in long double: the
// interpreter's meaning (specialOf and besselOf in scalar_eval.h round these once to double) and the
// reference the CTA simulator tests measure the PTX sequences against.
#pragma once
#include "ir/ir.h"

namespace kiln::ir {

long double normcdfLong(long double x);     // erfc(-x / sqrt 2) / 2, the argument carried beyond long double
long double erfinvLong(long double x);      // NaN outside [-1, 1], +-inf at +-1
long double erfcinvLong(long double q);     // NaN outside [0, 2], inf at 0, -inf at 2
long double normcdfinvLong(long double p);  // -sqrt 2 erfcinv(2p), +0 at p = 1/2

// bessel_j0 .. bessel_i1 with their extensions: j0, i0 even, j1, i1 odd, y0, y1 NaN below 0 and -inf at
// 0, i0 and i1 infinite past 714 (where f64 overflows). Throws InternalError for any other op.
long double besselLong(Opcode op, long double x);

}  // namespace kiln::ir
