// erfinv, erfcinv and normcdfinv as branch-free f64 sequences (f32 through them): a first guess refined
// by Newton steps on kiln's own erf and erfc sequences. Where the result is below 0.4769 (erfinv(1/2))
// the steps solve erf(y) = a; above, log erfc(y) = log p, whose Newton step is well behaved across
// the whole tail (log erfc(y) is nearly -y^2). Bounds: docs/ptx.md.
#include <array>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail::f64math {
namespace {

constexpr uint64_t kInf = 0x7FF0000000000000, kNaN = 0x7FF8000000000000;
constexpr uint64_t kHalfSqrtPi = 0x3FEC5BF891B4EF6B, kSqrtPi = 0x3FFC5BF891B4EF6B;
constexpr uint64_t kSqrt2Hi = 0x3FF6A09E667F3BCD, kSqrt2Lo = 0xBC9BDD3413B26456;  // sqrt 2 = hi + lo
// erfinv's Maclaurin series to a^11 (sqrt(pi)/2 times 1, pi/12, 7 pi^2/480, ...), in a^2: within
// 1.4e-5 relative at a = 1/2.
constexpr std::array<uint64_t, 6> kErfinvSeries = {0x3FEC5BF891B4EF6B, 0x3FCDB29FB2FEE5E4, 0x3FC053C2C0AB91C5,
                                                   0x3FB62847C47DDA48, 0x3FB0A13189C6EF7A, 0x3FAA7C85C89BB08B};

Reg pred(Seq& s, std::string_view m, Operand a, Operand b) { return s.op(RegClass::Pred, m, {a, b}); }

// erfinv(a) for a in [0, 1/2]: the series, then two Newton steps y -= (erf(y) - a) (sqrt(pi)/2) e^(y^2)
// (the error squares each step: 1.4e-5, ~1e-10, below 2^-53).
Reg erfinvSmall(Seq& s, Reg a) {
  Reg y = s.mul(a, s.horner(s.mul(a, a), kErfinvSeries));
  for (int i = 0; i < 2; ++i) {
    Reg d = s.sub(erf(s, y), a);
    Reg slope = s.mul(expNoNan(s, s.mul(y, y)), bits(kHalfSqrtPi));
    y = s.fma(s.neg(d), slope, y);
  }
  return y;
}

// erfcinv(p) for p in [2^-1074, 1/2): the asymptotic first guess y^2 = w - log(sqrt(pi w)), w = -log p
// (16% high at p = 1/2, far closer in the tail), then four Newton steps on
// g(y) = log erfc(y) - log p = -y^2 + log erfcx(y) - log p, y += g (sqrt(pi)/2) erfcx(y), with y^2 exact
// as hi + lo and log p as a double-double, so that g keeps its accuracy where its terms cancel.
Reg erfcinvTail(Seq& s, Reg p) {
  DD lp = logDD(s, p);
  Reg w = s.neg(lp.hi);
  Reg guess = s.sub(w, logOf(s, s.mul(bits(kSqrtPi), s.f("sqrt.rn.f64", {w}))));
  Reg y = s.f("sqrt.rn.f64", {s.max(guess, dbl(0.09))});
  for (int i = 0; i < 4; ++i) {
    Reg c = s.min(s.max(y, dbl(0.3)), dbl(28.0));
    Reg ex = erfcxNonNegative(s, c);
    Reg z = s.mul(c, c);
    Reg zl = s.fma(c, c, s.neg(z));
    Reg g = s.sub(s.sub(s.sub(s.neg(z), lp.hi), zl), lp.lo);  // -z - log p: exact where they cancel
    g = s.add(g, logOf(s, ex));
    y = s.fma(g, s.mul(ex, bits(kHalfSqrtPi)), c);
  }
  return y;
}

// The nonnegative inverse for a = 1 - p: the erf steps where a <= 1/2 (a is exact there: p >= 1/2),
// the tail's otherwise; p = 0 gives inf.
Reg inverseNonNegative(Seq& s, Reg a, Reg p) {
  Reg small = s.test("le", a, dbl(0.5));
  Reg ys = erfinvSmall(s, s.min(a, dbl(0.5)));
  Reg yt = erfcinvTail(s, s.min(s.max(p, bits(1)), dbl(0.5)));
  Reg y = s.select(ys, yt, small);
  return s.select(bits(kInf), y, s.test("eq", p, dbl(0.0)));
}

}  // namespace

// erfinv(x): y with x's sign; |x| = 1 gives inf, |x| > 1 NaN.
Reg erfinv(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg y = inverseNonNegative(s, a, s.sub(dbl(1.0), a));  // 1 - a exact where the tail uses it (a > 1/2)
  y = s.f("copysign.f64", {x, y});
  y = s.select(bits(kNaN), y, s.test("gt", a, dbl(1.0)));
  return s.select(x, y, s.test("nan", x, x));
}

// erfcinv(q) for q in [0, 2]: p = min(q, 2 - q) (2 - q exact for q >= 1), negative where q > 1.
Reg erfcinv(Seq& s, Reg q) {
  Reg upper = s.test("gt", q, dbl(1.0));
  Reg p = s.select(s.sub(dbl(2.0), q), q, upper);
  Reg a = s.sub(dbl(1.0), p);  // exact where the erf steps use it (p >= 1/2)
  Reg y = inverseNonNegative(s, a, p);
  y = s.select(s.neg(y), y, upper);
  Reg outside = pred(s, "or.pred", s.test("lt", q, dbl(0.0)), s.test("gt", q, dbl(2.0)));
  y = s.select(bits(kNaN), y, outside);
  return s.select(q, y, s.test("nan", q, q));
}

// normcdfinv(p) = -sqrt 2 erfcinv(2p) (2p exact; sqrt 2 as hi + lo); normcdfinv(1/2) = +0, 0 and 1 give
// -inf and inf.
Reg normcdfinv(Seq& s, Reg p) {
  Reg y = erfcinv(s, s.add(p, p));
  Reg r = s.neg(s.fma(y, bits(kSqrt2Hi), s.mul(y, bits(kSqrt2Lo))));
  r = s.select(s.neg(y), r, s.test("eq", s.abs(y), bits(kInf)));  // (inf - inf in the fma)
  return s.select(dbl(0.0), r, s.test("eq", r, dbl(0.0)));
}

}  // namespace kiln::ptx::detail::f64math
