// pow(x, y) for f64 (and f32 through it) as a branch-free sequence: log|x| as a double-double accurate to
// ~2^-100 relative, y log|x| as a double-double, e^(that) with the low part folded into the reduced
// argument of the shared exponential; C's special cases selected at the end. Bounds: docs/ptx.md.
#include <array>
#include <bit>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail::f64math {
namespace {

constexpr uint64_t kInf = 0x7FF0000000000000, kNaN = 0x7FF8000000000000;

// hi + lo renormalized (|hi| >= |lo| or hi = 0).
DD fastTwoSum(Seq& s, Reg hi, Reg lo) {
  Reg h = s.add(hi, lo);
  return {h, s.sub(lo, s.sub(h, hi))};
}

DD ddMul(Seq& s, DD a, DD b) {
  Reg h = s.mul(a.hi, b.hi);
  Reg l = s.fma(a.hi, b.hi, s.neg(h));
  l = s.fma(a.hi, b.lo, l);
  l = s.fma(a.lo, b.hi, l);
  return fastTwoSum(s, h, l);
}

// 2 atanh(u / 2) = u + u^3/12 + u^5/80 + ... = sum u^(2n+1) / ((2n+1) 4^n): the coefficients of z^(n-2),
// n = 2 .. 13, for z = u^2 <= 0.118 (the remainder is below 2^-70 of the sum).
constexpr std::array<uint64_t, 12> kAtanhTail = [] {
  std::array<uint64_t, 12> c{};
  for (int n = 2; n <= 13; ++n) {
    double p = 1;
    for (int i = 0; i < n; ++i) p *= 4;
    c[size_t(n - 2)] = std::bit_cast<uint64_t>(1.0 / (double(2 * n + 1) * p));
  }
  return c;
}();
constexpr uint64_t kTwelfthHi = 0x3FB5555555555555, kTwelfthLo = 0x3C55555555555555;  // 1/12 = hi + lo

Reg pred(Seq& s, std::string_view m, Operand a, Operand b) { return s.op(RegClass::Pred, m, {a, b}); }
Reg truncOf(Seq& s, Reg x) { return s.f("cvt.rzi.f64.f64", {x}); }

}  // namespace

// log(x) for a positive finite x: k ln 2 + log(1 + f), log(1 + f) = 2 atanh(u / 2), u = 2f / (2 + f)
// carried as a double-double (the division's remainder recovered by fma), then
// u (1 + z (1/12 + z P(z))), z = u^2, with only P's sum in plain f64.
DD logDD(Seq& s, Reg x) {
  auto [k, f] = logReduce(s, x);
  Reg dh = s.add(dbl(2.0), f);
  Reg dl = s.add(s.sub(dbl(2.0), dh), f);  // 2 + f = dh + dl exactly (|f| < 1/2)
  Reg n = s.add(f, f);
  Reg uh = s.f("div.rn.f64", {n, dh});
  Reg rem = s.fma(s.neg(uh), dh, n);  // exact
  rem = s.fma(s.neg(uh), dl, rem);
  DD u{uh, s.f("div.rn.f64", {rem, dh})};
  DD z = ddMul(s, u, u);
  Reg w = s.mul(z.hi, s.horner(z.hi, kAtanhTail));
  Reg ih = s.add(bits(kTwelfthHi), w);
  Reg il = s.add(s.add(s.sub(bits(kTwelfthHi), ih), w), bits(kTwelfthLo));  // |w| < 1/12: exact sum
  DD c = ddMul(s, z, {ih, il});
  Reg eh = s.add(dbl(1.0), c.hi);
  Reg el = s.add(s.add(s.sub(dbl(1.0), eh), c.hi), c.lo);
  DD l = ddMul(s, u, {eh, el});
  // k ln 2 = kh + kl, then kh + l.hi exactly (|l.hi| < ln 2 <= |kh| unless k = 0).
  Reg kh = s.mul(k, bits(kLn2Hi));
  Reg kl = s.fma(k, bits(kLn2Hi), s.neg(kh));
  kl = s.fma(k, bits(kLn2Lo), kl);
  Reg sh = s.add(kh, l.hi);
  Reg se = s.add(s.sub(kh, sh), l.hi);
  return fastTwoSum(s, sh, s.add(se, s.add(l.lo, kl)));
}

Reg pow(Seq& s, Reg x, Reg y) {
  Reg a = s.abs(x);
  DD l = logDD(s, a);
  // log|x| of 0, inf and NaN: -inf, inf, NaN (no low part).
  Reg regular = pred(s, "and.pred", s.test("gt", a, dbl(0.0)), s.test("lt", a, bits(kInf)));
  Reg lh = s.select(l.hi, s.select(bits(0xFFF0000000000000ull), a, s.test("eq", a, dbl(0.0))), regular);
  // t = y log|x| = th + tl; tl only where th is finite and not far past the exponential's range.
  Reg th = s.mul(y, lh);
  Reg tl = s.fma(y, l.lo, s.fma(y, lh, s.neg(th)));
  tl = s.select(tl, dbl(0.0), pred(s, "and.pred", regular, s.test("lt", s.abs(th), dbl(800.0))));
  // e^t = 2^k e^(r + rl): k = rint(t / ln 2), r = th - k ln2Hi (exact), rl = tl - k ln2Lo.
  Reg tc = s.max(s.min(th, dbl(710.0)), dbl(-746.0));
  Reg k = s.rint(s.mul(tc, bits(kLog2E)));
  Reg nk = s.neg(k);
  Reg r = s.fma(nk, bits(kLn2Hi), tc);
  Reg rl = s.fma(nk, bits(kLn2Lo), tl);
  Reg res = scaledExp(s, k, r, rl);
  res = s.select(bits(kNaN), res, s.test("nan", th, th));
  // Negative x: odd integer y flips the sign, a finite non-integer y gives NaN.
  Reg yInt = s.test("eq", truncOf(s, y), y);
  Reg halfY = s.mul(y, dbl(0.5));
  Reg yOdd = pred(s, "and.pred", yInt, s.test("neu", truncOf(s, halfY), halfY));
  Reg xNeg = s.op(RegClass::Pred, "setp.lt.s64", {s.op(RegClass::B64, "mov.b64", {x}), 0});
  res = s.select(s.neg(res), res, pred(s, "and.pred", xNeg, yOdd));
  Reg xNegFinite = pred(s, "and.pred", s.test("lt", x, dbl(0.0)), s.test("gt", x, bits(0xFFF0000000000000ull)));
  Reg yFrac = pred(s, "and.pred", s.test("neu", truncOf(s, y), y), s.test("lt", s.abs(y), bits(kInf)));
  res = s.select(bits(kNaN), res, pred(s, "and.pred", xNegFinite, yFrac));
  // pow(x, +-0) = pow(1, y) = pow(-1, +-inf) = 1, NaN operands included.
  Reg one = pred(s, "or.pred", s.test("eq", y, dbl(0.0)), s.test("eq", x, dbl(1.0)));
  Reg minusOneInf = pred(s, "and.pred", s.test("eq", x, dbl(-1.0)), s.test("eq", s.abs(y), bits(kInf)));
  return s.select(dbl(1.0), res, pred(s, "or.pred", one, minusOneInf));
}

}  // namespace kiln::ptx::detail::f64math
