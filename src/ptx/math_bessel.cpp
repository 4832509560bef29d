// The Bessel functions j0, j1, y0, y1 (first and second kind) and i0, i1 (modified, first kind) as
// branch-free f64 sequences: the power series below a crossover, Hankel's asymptotic expansions above
// it; f32 runs them on the widened value (math_libdevice.cpp). Bounds (math_bessel_test): docs/ptx.md.
#include <array>
#include <bit>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail::f64math {

namespace {

constexpr double kEulerGamma = 0.57721566490153286;
constexpr double kTwoOverPi = 0.63661977236758134;
constexpr uint64_t kInf = 0x7FF0000000000000, kNaN = 0x7FF8000000000000;

// Power series in z = x^2 / 4, 36 terms (the last below 2^-60 of the sum at the crossovers):
// j0 = sum (-1)^k z^k / k!^2; j1 = x/2 sum (-1)^k z^k / (k! (k+1)!);
// y0 = 2/pi ((log(x/2) + gamma) j0 + sum (-1)^(k+1) H_k z^k / k!^2);
// y1 = -2/(pi x) + 2/pi log(x/2) j1 - x/(2 pi) sum (-1)^k (2 H_k + 1/(k+1) - 2 gamma) z^k / (k! (k+1)!);
// i0, i1: j0, j1's series without the signs. H_k = 1 + 1/2 + ... + 1/k.
constexpr size_t kTerms = 36;
enum class Series { J0, J1, Y0, Y1, I0, I1 };
constexpr std::array<uint64_t, kTerms> seriesOf(Series which) {
  std::array<uint64_t, kTerms> c{};
  double fk = 1, fk1 = 1, h = 0;  // k!, (k+1)!, H_k
  for (size_t k = 0; k < kTerms; ++k) {
    if (k > 0) fk *= double(k), h += 1.0 / double(k);
    fk1 = fk * double(k + 1);
    const double sign = k % 2 ? -1.0 : 1.0;
    double v = 0;
    switch (which) {
      case Series::J0: v = sign / (fk * fk); break;
      case Series::J1: v = sign / (fk * fk1); break;
      case Series::Y0: v = -sign * h / (fk * fk); break;
      case Series::Y1: v = sign * (2 * h + 1.0 / double(k + 1) - 2 * kEulerGamma) / (fk * fk1); break;
      case Series::I0: v = 1 / (fk * fk); break;
      case Series::I1: v = 1 / (fk * fk1); break;
    }
    c[k] = std::bit_cast<uint64_t>(v);
  }
  return c;
}
constexpr auto kJ0 = seriesOf(Series::J0), kJ1 = seriesOf(Series::J1), kY0 = seriesOf(Series::Y0),
               kY1 = seriesOf(Series::Y1), kI0 = seriesOf(Series::I0), kI1 = seriesOf(Series::I1);

// Hankel's expansion of order n (mu = 4 n^2) in w = 1/(8x): a_0 = 1, a_m = a_(m-1) (mu - (2m-1)^2) / m.
// J and Y: P = sum_even (-1)^(m/2) a_m w^m, Q = sum_odd (-1)^((m-1)/2) a_m w^m (24 terms: at x >= 12 the
// last is below 2^-45 of the first, the error of the truncated expansion ~1e-13 there);
// I: sum (-1)^m a_m w^m (20 terms; above x = 20 the truncation is below 2^-50).
constexpr size_t kHankel = 12, kHankelI = 20;
constexpr std::array<uint64_t, kHankel> hankelOf(int n, bool odd) {
  std::array<uint64_t, kHankel> c{};
  const double mu = 4.0 * n * n;
  double a = 1;
  for (size_t m = 0; m < 2 * kHankel; ++m) {
    if (m > 0) a *= (mu - double((2 * m - 1) * (2 * m - 1))) / double(m);
    if ((m % 2 == 1) == odd) c[m / 2] = std::bit_cast<uint64_t>((m / 2) % 2 ? -a : a);
  }
  return c;
}
constexpr std::array<uint64_t, kHankelI> hankelIOf(int n) {
  std::array<uint64_t, kHankelI> c{};
  const double mu = 4.0 * n * n;
  double a = 1;
  for (size_t m = 0; m < kHankelI; ++m) {
    if (m > 0) a *= (mu - double((2 * m - 1) * (2 * m - 1))) / double(m);
    c[m] = std::bit_cast<uint64_t>(m % 2 ? -a : a);
  }
  return c;
}
constexpr auto kP0 = hankelOf(0, false), kQ0 = hankelOf(0, true), kP1 = hankelOf(1, false), kQ1 = hankelOf(1, true);
constexpr auto kHI0 = hankelIOf(0), kHI1 = hankelIOf(1);

Reg div(Seq& s, Operand a, Operand b) { return s.f("div.rn.f64", {a, b}); }
Reg sqrt(Seq& s, Operand a) { return s.f("sqrt.rn.f64", {a}); }

// The large-x form of j_n (or y_n): sqrt(2/(pi a)) (P cos chi - Q sin chi) (or P sin chi + Q cos chi),
// chi = a - (2n+1) pi/4, from sin a and cos a (accurate for every a, math_f64_trig.cpp).
Reg hankel(Seq& s, Reg a, int n, bool second) {
  Reg w = div(s, dbl(0.125), a);
  Reg w2 = s.mul(w, w);
  Reg p = s.horner(w2, n == 0 ? kP0 : kP1);
  Reg q = s.mul(w, s.horner(w2, n == 0 ? kQ0 : kQ1));
  Reg sn = sin(s, a), cs = cos(s, a);
  // sqrt 2 cos chi and sqrt 2 sin chi
  Reg c = n == 0 ? s.add(cs, sn) : s.sub(sn, cs);
  Reg d = n == 0 ? s.sub(sn, cs) : s.neg(s.add(sn, cs));
  Reg r = second ? s.fma(p, d, s.mul(q, c)) : s.fma(p, c, s.neg(s.mul(q, d)));
  return s.mul(r, sqrt(s, div(s, dbl(kTwoOverPi / 2), a)));  // sqrt(2/(pi a)) / sqrt 2
}

constexpr double kCrossJ = 12.0, kCrossI = 20.0;

// j0(|x|), j1 with x's sign: the series below 12, Hankel's form above (0 at infinity).
Reg besselJ(Seq& s, Reg x, int n) {
  Reg a = s.abs(x);
  Reg z = s.mul(s.mul(a, a), dbl(0.25));
  Reg series = s.horner(z, n == 0 ? kJ0 : kJ1);
  if (n == 1) series = s.mul(series, s.mul(a, dbl(0.5)));
  Reg big = s.test("gt", a, dbl(kCrossJ));
  Reg r = s.select(hankel(s, s.select(a, dbl(kCrossJ), big), n, false), series, big);
  r = s.select(dbl(0.0), r, s.test("eq", a, bits(kInf)));
  if (n == 1) r = s.mul(r, s.f("copysign.f64", {x, dbl(1.0)}));  // odd: j1(-x) = -j1(x), -0 for -0
  return s.select(x, r, s.test("nan", x, x));
}

// y0, y1: the series (with j's) below 12, Hankel's form above; NaN below 0, -inf at 0, 0 at infinity.
Reg besselY(Seq& s, Reg x, int n) {
  Reg tiny = s.test("lt", x, dbl(0x1p-900));  // y1's 1/x overflows; the leading terms are exact there
  Reg a = s.select(dbl(0x1p-900), x, tiny);
  Reg z = s.mul(s.mul(a, a), dbl(0.25));
  Reg lg = logOf(s, s.mul(a, dbl(0.5)));
  Reg series;
  if (n == 0) {
    Reg j = s.horner(z, kJ0);
    series = s.mul(s.fma(s.add(lg, dbl(kEulerGamma)), j, s.horner(z, kY0)), dbl(kTwoOverPi));
  } else {
    Reg half = s.mul(a, dbl(0.5));
    Reg j = s.mul(s.horner(z, kJ1), half);
    Reg tail = s.mul(s.horner(z, kY1), half);
    series = s.sub(s.fma(s.mul(lg, dbl(kTwoOverPi)), j, div(s, dbl(-kTwoOverPi), a)), s.mul(tail, dbl(kTwoOverPi / 2)));
  }
  Reg big = s.test("gt", a, dbl(kCrossJ));
  Reg r = s.select(hankel(s, s.select(a, dbl(kCrossJ), big), n, true), series, big);
  Reg lead = n == 0 ? s.mul(s.add(logOf(s, x), dbl(kEulerGamma - 0.69314718055994531)), dbl(kTwoOverPi))
                    : div(s, dbl(-kTwoOverPi), s.abs(x));
  r = s.select(lead, r, tiny);
  r = s.select(dbl(0.0), r, s.test("eq", x, bits(kInf)));
  return s.select(bits(kNaN), r, s.test("ltu", x, dbl(0.0)));  // NaN and negatives (-0 is 0: -inf)
}

// i0(|x|), i1 with x's sign: the series below 20, e^a / sqrt(2 pi a) times Hankel's sum above (the
// exponential in two halves, so that the result overflows only where it must, past 713.98).
Reg besselI(Seq& s, Reg x, int n) {
  Reg a = s.abs(x);
  Reg z = s.mul(s.mul(a, a), dbl(0.25));
  Reg series = s.horner(z, n == 0 ? kI0 : kI1);
  if (n == 1) series = s.mul(series, s.mul(a, dbl(0.5)));
  Reg big = s.test("gt", a, dbl(kCrossI));
  Reg ab = s.select(a, dbl(kCrossI), big);
  Reg sum = s.horner(div(s, dbl(0.125), ab), n == 0 ? kHI0 : kHI1);
  Reg h = expNoNan(s, s.mul(ab, dbl(0.5)));
  Reg scaled = s.mul(s.mul(h, div(s, sum, sqrt(s, s.mul(ab, dbl(6.283185307179586))))), h);
  Reg r = s.select(scaled, series, big);
  r = s.select(bits(kInf), r, s.test("gt", a, dbl(714.0)));  // overflowed (and sqrt(2 pi a) may have)
  if (n == 1) r = s.f("copysign.f64", {x, r});
  return s.select(x, r, s.test("nan", x, x));
}
}  // namespace

Reg besselJ0(Seq& s, Reg x) { return besselJ(s, x, 0); }
Reg besselJ1(Seq& s, Reg x) { return besselJ(s, x, 1); }
Reg besselY0(Seq& s, Reg x) { return besselY(s, x, 0); }
Reg besselY1(Seq& s, Reg x) { return besselY(s, x, 1); }
Reg besselI0(Seq& s, Reg x) { return besselI(s, x, 0); }
Reg besselI1(Seq& s, Reg x) { return besselI(s, x, 1); }

}  // namespace kiln::ptx::detail::f64math
