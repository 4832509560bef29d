// The Bessel functions j0, j1, y0, y1 (first and second kind) and i0, i1 (modified, first kind) as
// branch-free f64 sequences: the power series below a crossover, Hankel's asymptotic expansions above
// it; i0 and i1 carry both beyond f64 (double-double) and round once. f32 runs them on the widened value
// (math_libdevice.cpp). Bounds (math_libdevice_test): docs/ptx.md.
#include <array>
#include <bit>
#include <limits>
#include <span>

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
// I: sum (-1)^m a_m w^m (32 terms; from x = 20 on the truncation is below 2^-56 of the sum).
constexpr size_t kHankel = 12, kHankelI = 32;
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

// i0 and i1's leading series coefficients 1/k!^2 and 1/(k! (k+1)!) as hi + lo pairs: the quotient in long
// double (k! exact, two roundings: within 2^-63), split into the nearest f64 and the f64 nearest the rest.
static_assert(std::numeric_limits<long double>::digits >= 64, "the i0/i1 coefficients need a 64-bit long double");
constexpr size_t kSeriesExtended = 18;  // terms from 18 on sum to below 2^-10 of i0, i1 at x <= 20
struct HiLo {
  uint64_t hi, lo;
};
constexpr std::array<HiLo, kSeriesExtended> seriesIHiLoOf(int n) {
  std::array<HiLo, kSeriesExtended> c{};
  long double fk = 1;
  for (size_t k = 0; k < kSeriesExtended; ++k) {
    if (k > 0) fk *= (long double)k;
    const long double v = 1.0L / (fk * (n == 0 ? fk : fk * (long double)(k + 1)));
    const double hi = double(v);
    c[k] = {std::bit_cast<uint64_t>(hi), std::bit_cast<uint64_t>(double(v - (long double)hi))};
  }
  return c;
}
constexpr auto kI0HiLo = seriesIHiLoOf(0), kI1HiLo = seriesIHiLoOf(1);

// e^r = 1 + r + r^2/2 + r^3 E(r), E's coefficients 1/(j+3)! (Taylor to r^14: the remainder is below 2^-62
// for |r| <= 0.3466).
constexpr std::array<uint64_t, 12> kExpCubic = [] {
  std::array<uint64_t, 12> c{};
  double f = 6;  // 3!
  for (size_t j = 0; j < c.size(); ++j) c[j] = std::bit_cast<uint64_t>(1 / f), f *= double(j + 4);
  return c;
}();
constexpr uint64_t kTwoPiHi = 0x401921FB54442D18, kTwoPiLo = 0x3CB1A62633145C07;  // 2 pi = hi + lo

// The series of i0 (n = 0) or i1 / (a/2) in z = a^2/4 for 0 <= a <= 20, as hi + lo within ~2^-60:
// z = zh + zl exactly (the square's error by fma), the terms from kSeriesExtended on by f64 Horner
// in zh, then Horner in double-double: p <- c_k + z p with z p's product error recovered by fma and the
// sum's by two-sum (the low part is not renormalized: it stays below ~60 ulp of the high part).
DD seriesI(Seq& s, Reg a, int n) {
  Reg sq = s.mul(a, a);
  Reg zh = s.mul(sq, dbl(0.25)), zl = s.mul(s.fma(a, a, s.neg(sq)), dbl(0.25));
  const auto& lead = n == 0 ? kI0HiLo : kI1HiLo;
  Reg ph = s.horner(zh, std::span<const uint64_t>(n == 0 ? kI0 : kI1).subspan(kSeriesExtended));
  Reg pl;  // none before the first step
  for (size_t k = kSeriesExtended; k-- > 0;) {
    Reg th = s.mul(ph, zh);
    Reg tl = s.fma(ph, zh, s.neg(th));
    tl = s.fma(ph, zl, tl);
    if (pl.valid()) tl = s.fma(pl, zh, tl);
    Reg sum = s.add(bits(lead[k].hi), th);
    Reg back = s.sub(sum, bits(lead[k].hi));
    Reg err = s.add(s.sub(bits(lead[k].hi), s.sub(sum, back)), s.sub(th, back));  // c + th - sum exactly
    pl = s.add(s.add(err, bits(lead[k].lo)), tl);
    ph = sum;
  }
  return {ph, pl};
}

Reg besselISeries(Seq& s, Reg a, int n) {
  DD p = seriesI(s, a, n);
  if (n == 0) return s.add(p.hi, p.lo);
  Reg half = s.mul(a, dbl(0.5));
  return s.fma(half, p.hi, s.mul(half, p.lo));
}

// m 2^k for an integral f64 k in [-2044, 2046], in two exact steps and one rounding (overflow to inf).
Reg timesPow2(Seq& s, Reg m, Reg k) {
  Reg ki = s.op(RegClass::B32, "cvt.rzi.s32.f64", {k});
  Reg k1 = s.op(RegClass::B32, "shr.s32", {ki, 1});
  Reg k2 = s.op(RegClass::B32, "sub.s32", {ki, k1});
  Reg r = m;
  for (Reg e : {k1, k2}) {
    Reg biased = s.op(RegClass::B32, "add.s32", {e, 1023});
    Reg field = s.op(RegClass::B64, "shl.b64", {s.op(RegClass::B64, "cvt.u64.u32", {biased}), 52});
    r = s.mul(r, s.op(RegClass::F64, "mov.b64", {field}));
  }
  return r;
}

// e^a / sqrt(2 pi a) S(1/(8a)) for a in [20, 714], S Hankel's sum: e^a = 2^k (eh + el) within ~2^-60
// (r = a - k ln 2 exact from kLn2Hi, 1 + r + r^2/2 + r^3 E(r) summed exactly), 1 / sqrt(2 pi a) = uh + ul
// (2 pi a, its square root and its reciprocal each with their residual), S = 1 + q (|q| < 0.02, q within
// ~2^-52 of itself); the product of the three rounded once, then scaled by 2^k exactly.
Reg besselIAsymptotic(Seq& s, Reg a, int n) {
  const auto& hankelI = n == 0 ? kHI0 : kHI1;
  Reg w = div(s, dbl(0.125), a);
  Reg q = s.mul(w, s.horner(w, std::span<const uint64_t>(hankelI).subspan(1)));  // S - 1
  Reg vh = s.mul(a, bits(kTwoPiHi));
  Reg vl = s.fma(a, bits(kTwoPiLo), s.fma(a, bits(kTwoPiHi), s.neg(vh)));
  Reg sh = sqrt(s, vh);
  Reg sl = div(s, s.add(s.fma(s.neg(sh), sh, vh), vl), s.add(sh, sh));
  Reg uh = div(s, dbl(1.0), sh);
  Reg ul = s.mul(uh, s.sub(s.fma(s.neg(uh), sh, dbl(1.0)), s.mul(uh, sl)));
  Reg t = s.mul(uh, q);  // (uh + ul)(1 + q) = th + tl
  Reg th = s.add(uh, t);
  Reg tl = s.add(s.sub(uh, th), t);  // exact: |uh| > |t|
  tl = s.add(tl, s.add(s.fma(uh, q, s.neg(t)), s.fma(ul, q, ul)));

  Reg k = s.rint(s.mul(a, bits(kLog2E)));
  Reg nk = s.neg(k);
  Reg r = s.fma(nk, bits(kLn2Hi), a);  // exact (math_f64.cpp's expNoNan)
  Reg rl = s.mul(nk, bits(kLn2Lo));
  Reg r2 = s.mul(r, r);
  Reg r2l = s.fma(r, r, s.neg(r2));
  Reg half = s.mul(r2, dbl(0.5));
  Reg s1 = s.add(dbl(1.0), r);
  Reg e1 = s.add(s.sub(dbl(1.0), s1), r);  // exact: |r| < 1
  Reg quad = s.add(s1, half);
  Reg e2 = s.add(s.sub(s1, quad), half);  // exact: s1 > 0.65 > r^2/2
  Reg cubic = s.mul(s.mul(r2, r), s.horner(r, kExpCubic));
  Reg eh = s.add(quad, cubic);
  Reg e3 = s.add(s.sub(quad, eh), cubic);  // exact: |cubic| < 0.007
  Reg el = s.add(s.add(e1, e2), s.fma(r2l, dbl(0.5), e3));
  el = s.fma(eh, rl, el);  // e^(r + rl) = e^r (1 + rl), |rl| < 2^-45

  Reg ph = s.mul(eh, th);
  Reg pl = s.fma(eh, th, s.neg(ph));
  pl = s.fma(eh, tl, pl);
  pl = s.fma(el, th, pl);
  return timesPow2(s, s.add(ph, pl), k);
}

// i0(|x|), i1 with x's sign: the series below 20, e^a / sqrt(2 pi a) times Hankel's sum above, both
// carried beyond f64 and rounded once at the end (0.56 ulp measured: docs/ptx.md); inf past 714.
Reg besselI(Seq& s, Reg x, int n) {
  Reg a = s.abs(x);
  Reg big = s.test("gt", a, dbl(kCrossI));
  Reg series = besselISeries(s, s.min(a, dbl(kCrossI)), n);
  Reg scaled = besselIAsymptotic(s, s.min(s.max(a, dbl(kCrossI)), dbl(714.0)), n);
  Reg r = s.select(scaled, series, big);
  r = s.select(bits(kInf), r, s.test("gt", a, dbl(714.0)));  // overflowed
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
