// erfc as a branch-free f64 sequence (f32 through it), accurate in the tail: for x >= 0,
// erfc(x) = e^(-x^2) g(t) / (1 + 2x) with t = (x - 4) / (x + 4) in [-1, 1) and g = (1 + 2x) e^(x^2) erfc(x),
// a smooth function of t fitted for kiln; erfc(-x) = 2 - erfc(x); 1 - erf(x) for |x| < 1/2. normcdf is
// erfc of -x / sqrt 2 carried as a double-double. Bounds: docs/ptx.md.
#include <array>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail::f64math {
namespace {

// g(t) = sum c[i] t^i: Chebyshev interpolation (mpmath, 27 nodes) of (1 + 2x) e^(x^2) erfc(x) at
// x = 4 (1 + t) / (1 - t), in monomial form; relative error 0.4 ulp with the coefficients rounded.
constexpr std::array<uint64_t, 27> kErfcG = {
    0x3FF3BA5916E9FD7F, 0xBFC1DF1AD154A28E, 0x3F8F7F5DF66FD7BE, 0x3FB16ECEFCFA533F,
    0xBFB9DDB23C3E9106, 0x3FB7FEE004E13186, 0xBFB0FB06DFE48B0E, 0x3FA3079EDF668F38,
    0xBF90962388548D8D, 0x3F749C6728DB72CD, 0xBF48D4A9990C5199, 0xBF2A1DF2AD41DDDE,
    0x3F23BE032DE511D3, 0xBEF9958A8C635C6B, 0xBEE788189C990557, 0x3ED7F235478FDCF6,
    0x3E9385BB6C82456A, 0xBEABADF24E872985, 0x3E75305495FA5317, 0x3E7D8D5B12B4BDEB,
    0xBE578888D24FA8A1, 0xBE4F9443297365A1, 0x3E3117F492198859, 0x3E1EBB009434F4EF,
    0xBE02D277A41632E3, 0xBDE2DBBBB75B6682, 0x3DC7D604A7F621F4};
constexpr uint64_t kTwoOverSqrtPi = 0x3FF20DD750429B6D;
constexpr uint64_t kSqrtHalfHi = 0x3FE6A09E667F3BCD, kSqrtHalfLo = 0xBC8BDD3413B26456;  // sqrt(1/2) = hi + lo

// erfc(x + xl) for |xl| <= 2^-50 |x| (xl invalid: none): erfc(x) - xl (2/sqrt(pi)) e^(-x^2), the low part
// folded in before the last roundings.
Reg erfcOfSum(Seq& s, Reg x, Reg xl) {
  Reg a = s.abs(x);
  Reg c = s.min(a, dbl(28.0));  // erfc underflows to 0 from 27.3 on
  Reg q = erfcxNonNegative(s, c);
  // e^-(z + zl), c^2 = z + zl exactly; scaled by 2^64 so that only the last product can be subnormal.
  Reg z = s.mul(c, c);
  Reg zl = s.fma(c, c, s.neg(z));
  Reg nz = s.neg(z);
  Reg k = s.rint(s.mul(nz, bits(kLog2E)));
  Reg nk = s.neg(k);
  Reg r = s.fma(nk, bits(kLn2Hi), nz);  // exact, as in expNoNan
  r = s.fma(nk, bits(kLn2Lo), r);
  Reg ez = scaledExp(s, s.add(k, dbl(64.0)), r, s.neg(zl));
  Reg slope = Reg{};  // xl (2/sqrt(pi)), erfc's slope without the e^(-x^2)
  if (xl.valid()) {
    slope = s.mul(xl, bits(kTwoOverSqrtPi));
    q = s.select(s.sub(q, slope), s.add(q, slope), s.test("ge", x, dbl(0.0)));  // erfc(-x) = 2 - erfc(x)
  }
  Reg pos = s.mul(s.mul(ez, q), dbl(0x1p-64));
  Reg res = s.select(s.sub(dbl(2.0), pos), pos, s.test("lt", x, dbl(0.0)));
  // |x| < 1/2: 1 - erf(x) (the fit's sum loses ~3 ulp near t = -1, where erfc is just below 1).
  Reg small = s.sub(dbl(1.0), erf(s, x));
  if (xl.valid()) small = s.fma(s.neg(slope), s.mul(ez, dbl(0x1p-64)), small);
  res = s.select(small, res, s.test("lt", a, dbl(0.5)));
  return s.select(x, res, s.test("nan", x, x));
}

}  // namespace

// q = g / (1 + 2c), 1 + 2c = dh + dl (TwoSum), the quotient refined by its remainder.
Reg erfcxNonNegative(Seq& s, Reg c) {
  Reg t = s.f("div.rn.f64", {s.sub(c, dbl(4.0)), s.add(c, dbl(4.0))});
  Reg g = s.horner(t, kErfcG);
  Reg c2 = s.add(c, c);
  Reg dh = s.add(dbl(1.0), c2);
  Reg bb = s.sub(dh, dbl(1.0));
  Reg dl = s.add(s.sub(dbl(1.0), s.sub(dh, bb)), s.sub(c2, bb));
  Reg q = s.f("div.rn.f64", {g, dh});
  Reg rem = s.fma(s.neg(q), dh, g);
  rem = s.fma(s.neg(q), dl, rem);
  return s.add(q, s.f("div.rn.f64", {rem, dh}));
}

Reg erfc(Seq& s, Reg x) { return erfcOfSum(s, x, Reg{}); }

// normcdf(x) = erfc(-x / sqrt 2) / 2 with -x / sqrt 2 as yh + yl (sqrt(1/2) as hi + lo): the tail's
// relative error would otherwise grow with 2y^2 times the rounding error of y.
Reg normcdf(Seq& s, Reg x) {
  Reg nx = s.neg(x);
  Reg yh = s.mul(nx, bits(kSqrtHalfHi));
  Reg yl = s.fma(nx, bits(kSqrtHalfLo), s.fma(nx, bits(kSqrtHalfHi), s.neg(yh)));
  yl = s.select(yl, dbl(0.0), s.test("lt", s.abs(x), dbl(64.0)));  // erfc is 0 or 2 beyond (and inf - inf)
  return s.mul(erfcOfSum(s, yh, yl), dbl(0.5));
}

}  // namespace kiln::ptx::detail::f64math
