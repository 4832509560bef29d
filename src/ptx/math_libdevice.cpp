// libdevice's functions beyond the language's own math (expm1, log1p, log10, exp10, tan, asin, acos,
// atan, atan2, sinh, cosh, asinh, acosh, atanh, cbrt, hypot; pow, the Bessel functions and the others in
// math_f64.h are their own files') as branch-free f64 sequences built on the f64 exp/log/sin/cos of
// math_f64*.cpp; f32 (and f16/bf16 through it) runs the same sequence
// on the widened value and rounds once. Bounds (measured in math_libdevice_test): docs/ptx.md.
#include <array>
#include <bit>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail {

namespace f64math {
namespace {

using ir::Opcode;

constexpr uint64_t kPio2Hi = 0x3FF921FB54442D18, kPio2Lo = 0x3C91A62633145C07;
constexpr uint64_t kPiHi = 0x400921FB54442D18, kPiLo = 0x3CA1A62633145C07;
constexpr uint64_t kPio6Hi = 0x3FE0C152382D7366, kPio6Lo = 0xBC8EE6913347C2A6;
constexpr uint64_t kSqrt3Hi = 0x3FFBB67AE8584CAA, kSqrt3Lo = 0x3C9CEC95D0B5C1E3;
constexpr uint64_t kInvLn10Hi = 0x3FDBCB7B1526E50E, kInvLn10Lo = 0x3C695355BAAAFAD3;
constexpr uint64_t kLog2Of10Hi = 0x400A934F0979A371, kLog2Of10Lo = 0x3CA7F2495FB7FA6D;
constexpr uint64_t kInf = 0x7FF0000000000000, kNaN = 0x7FF8000000000000;

// atan(u) = u + u z P(z), z = u^2 <= 0.0718 (|u| <= 2 - sqrt 3): the Taylor series to z^15 (its
// remainder is below 2^-57 of the result there).
constexpr std::array<uint64_t, 15> kAtanP = [] {
  std::array<uint64_t, 15> c{};
  for (int n = 1; n <= 15; ++n) c[size_t(n - 1)] = std::bit_cast<uint64_t>((n % 2 ? -1.0 : 1.0) / double(2 * n + 1));
  return c;
}();
// sinh(a) = a + a z S(z), z = a^2 < 1: the Taylor series to z^9 (remainder below 2^-62).
constexpr std::array<uint64_t, 9> kSinhS = [] {
  std::array<uint64_t, 9> c{};
  double f = 1;
  for (int n = 1; n <= 9; ++n) {
    f *= double(2 * n) * double(2 * n + 1);
    c[size_t(n - 1)] = std::bit_cast<uint64_t>(1.0 / f);
  }
  return c;
}();

Reg div(Seq& s, Operand a, Operand b) { return s.f("div.rn.f64", {a, b}); }
Reg sqrt(Seq& s, Operand a) { return s.f("sqrt.rn.f64", {a}); }
Reg copysign(Seq& s, Reg signOf, Reg magnitude) { return s.f("copysign.f64", {signOf, magnitude}); }
Reg pred(Seq& s, std::string_view m, Operand a, Operand b) { return s.op(RegClass::Pred, m, {a, b}); }
Reg isNan(Seq& s, Reg x) { return s.test("nan", x, x); }
Reg keepNan(Seq& s, Reg x, Reg y) { return s.select(x, y, isNan(s, x)); }

// log1p(x) = log(u) x / (u - 1), u = 1 + x rounded (the rounding error of u cancels; Goldberg).
Reg log1p(Seq& s, Reg x) {
  Reg u = s.add(dbl(1.0), x);
  Reg r = s.mul(logOf(s, u), div(s, x, s.sub(u, dbl(1.0))));  // x / (u - 1) ~ 1: no overflow
  r = s.select(x, r, s.test("eq", u, dbl(1.0)));  // |x| below half an ulp of 1 (and +-0)
  return s.select(x, r, s.test("eq", x, bits(kInf)));
}

// expm1(x) = (u - 1) x / log(u), u = e^x rounded (Kahan); -1 below -38, e^x above 40 (u - 1 = u there).
Reg expm1(Seq& s, Reg x) {
  Reg u = expNoNan(s, x);
  Reg r = div(s, s.mul(s.sub(u, dbl(1.0)), x), logOf(s, u));
  r = s.select(x, r, s.test("eq", u, dbl(1.0)));
  r = s.select(dbl(-1.0), r, s.test("lt", x, dbl(-38.0)));
  r = s.select(u, r, s.test("gt", x, dbl(40.0)));
  return keepNan(s, x, r);
}

// log10(x) = log(x) (1/ln 10 as hi + lo).
Reg log10(Seq& s, Reg x) {
  Reg l = logOf(s, x);
  Reg r = s.fma(l, bits(kInvLn10Hi), s.mul(l, bits(kInvLn10Lo)));
  return s.select(r, s.mul(l, bits(kInvLn10Hi)), s.test("lt", s.abs(l), bits(kInf)));
}

// 10^x = 2^p (1 + pl ln 2), p + pl = x log2(10) to ~2^-106.
Reg exp10(Seq& s, Reg x) {
  Reg p = s.mul(x, bits(kLog2Of10Hi));
  Reg pl = s.fma(x, bits(kLog2Of10Lo), s.fma(x, bits(kLog2Of10Hi), s.neg(p)));
  Reg y = exp2Of(s, p);
  Reg r = s.fma(y, s.mul(pl, bits(kLn2Hi)), y);
  // 2^p alone where it is infinite or pl is not finite (x = +-inf: pl is NaN).
  Reg refine = pred(s, "and.pred", s.test("lt", y, bits(kInf)), s.test("lt", s.abs(pl), bits(kInf)));
  return s.select(r, y, refine);
}

Reg tan(Seq& s, Reg x) { return div(s, sin(s, x), cos(s, x)); }

// atan(t) for t in [0, 1] (or NaN): above 2 - sqrt 3, atan(t) = pi/6 + atan((t sqrt 3 - 1) / (t + sqrt 3)).
Reg atanUnit(Seq& s, Reg t) {
  Reg mid = s.test("gt", t, dbl(0.2679491924311227));
  Reg num = s.fma(t, bits(kSqrt3Lo), s.fma(t, bits(kSqrt3Hi), dbl(-1.0)));
  Reg u = s.select(div(s, num, s.add(t, bits(kSqrt3Hi))), t, mid);
  Reg z = s.mul(u, u);
  Reg p = s.fma(s.mul(u, z), s.horner(z, kAtanP), u);
  Reg shifted = s.add(s.add(p, bits(kPio6Lo)), bits(kPio6Hi));
  return s.select(shifted, p, mid);
}
// pi/2 - r, for r in [0, pi/4] (the first subtraction is exact when r >= pi/4 / 2).
Reg pio2Minus(Seq& s, Reg r) { return s.add(s.sub(bits(kPio2Hi), r), bits(kPio2Lo)); }

Reg atan(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg big = s.test("gt", a, dbl(1.0));
  Reg r = atanUnit(s, s.select(div(s, dbl(1.0), a), a, big));
  r = s.select(pio2Minus(s, r), r, big);
  return copysign(s, x, r);
}

// asin(x) = atan(|x| / sqrt((1 - |x|)(1 + |x|))) with x's sign.
Reg asin(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg q = s.mul(s.sub(dbl(1.0), a), s.add(dbl(1.0), a));
  return copysign(s, x, atan(s, div(s, a, sqrt(s, q))));
}

// acos(x) = 2 atan(sqrt((1 - x) / (1 + x))).
Reg acos(Seq& s, Reg x) {
  Reg v = sqrt(s, div(s, s.sub(dbl(1.0), x), s.add(dbl(1.0), x)));
  return s.mul(atan(s, v), dbl(2.0));
}

// atan2(y, x): atan of min/max of the magnitudes, folded by quadrant; both infinite: pi/4 multiples.
Reg atan2(Seq& s, Reg y, Reg x) {
  Reg ay = s.abs(y), ax = s.abs(x);
  Reg big = s.test("gt", ay, ax);
  Reg d = s.max(ay, ax);
  Reg q = div(s, s.min(ay, ax), d);
  q = s.select(dbl(0.0), q, s.test("eq", d, dbl(0.0)));
  Reg bothInf = pred(s, "and.pred", s.test("eq", ay, bits(kInf)), s.test("eq", ax, bits(kInf)));
  q = s.select(dbl(1.0), q, bothInf);
  Reg r = atanUnit(s, q);
  r = s.select(pio2Minus(s, r), r, big);
  Reg xb = s.op(RegClass::B64, "mov.b64", {x});
  Reg xNeg = s.op(RegClass::Pred, "setp.lt.s64", {xb, 0});
  r = s.select(s.add(s.sub(bits(kPiHi), r), bits(kPiLo)), r, xNeg);
  r = copysign(s, y, r);
  return s.select(bits(kNaN), r, s.test("nan", x, y));
}

Reg sinh(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg z = s.mul(a, a);
  Reg series = s.fma(s.mul(a, z), s.horner(z, kSinhS), a);
  Reg e = expNoNan(s, a);
  Reg viaExp = s.mul(s.sub(e, div(s, dbl(1.0), e)), dbl(0.5));
  Reg h = expNoNan(s, s.mul(a, dbl(0.5)));  // e^a would overflow before sinh does
  Reg huge = s.mul(s.mul(h, dbl(0.5)), h);
  Reg r = s.select(series, s.select(viaExp, huge, s.test("lt", a, dbl(700.0))), s.test("lt", a, dbl(1.0)));
  return keepNan(s, x, copysign(s, x, r));
}

Reg cosh(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg e = expNoNan(s, a);
  Reg viaExp = s.fma(e, dbl(0.5), div(s, dbl(0.5), e));
  Reg h = expNoNan(s, s.mul(a, dbl(0.5)));
  Reg huge = s.mul(s.mul(h, dbl(0.5)), h);
  return keepNan(s, x, s.select(viaExp, huge, s.test("lt", a, dbl(700.0))));
}

// log(a) + ln 2, for a > 2^28 (where sqrt(a^2 + 1) is a to the last bit).
Reg logTwice(Seq& s, Reg a) { return s.add(s.add(logOf(s, a), bits(kLn2Lo)), bits(kLn2Hi)); }

// asinh(|x|) = log1p(a + a^2 / (1 + sqrt(1 + a^2))), with x's sign.
Reg asinh(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg q = s.mul(a, a);
  Reg r = log1p(s, s.add(a, div(s, q, s.add(dbl(1.0), sqrt(s, s.add(dbl(1.0), q))))));
  r = s.select(logTwice(s, a), r, s.test("gt", a, dbl(0x1p28)));
  return keepNan(s, x, copysign(s, x, r));
}

// acosh(x) = log1p(t + sqrt(2t + t^2)), t = x - 1; NaN below 1.
Reg acosh(Seq& s, Reg x) {
  Reg t = s.sub(x, dbl(1.0));
  Reg r = log1p(s, s.add(t, sqrt(s, s.fma(t, t, s.add(t, t)))));
  r = s.select(logTwice(s, x), r, s.test("gt", x, dbl(0x1p28)));
  return s.select(bits(kNaN), r, s.test("ltu", x, dbl(1.0)));
}

// atanh(x) = log1p(2a / (1 - a)) / 2, with x's sign.
Reg atanh(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg r = s.mul(log1p(s, div(s, s.add(a, a), s.sub(dbl(1.0), a))), dbl(0.5));
  return keepNan(s, x, copysign(s, x, r));
}

// cbrt: y = 2^(log2(a) / 3), then one Newton step; tiny a scaled by 2^600 (the result by 2^-200).
Reg cbrt(Seq& s, Reg x) {
  Reg a = s.abs(x);
  Reg tiny = s.test("lt", a, dbl(0x1p-600));
  Reg as = s.select(s.mul(a, dbl(0x1p600)), a, tiny);
  Reg y = exp2Of(s, div(s, log2Of(s, as), dbl(3.0)));
  Reg y2 = s.mul(y, y);
  Reg resid = s.fma(y2, y, s.neg(as));
  y = s.sub(y, div(s, resid, s.mul(y2, dbl(3.0))));
  y = s.select(s.mul(y, dbl(0x1p-200)), y, tiny);
  Reg edge = pred(s, "or.pred", s.test("eq", a, dbl(0.0)), s.test("equ", a, bits(kInf)));
  return copysign(s, x, s.select(a, y, edge));
}

// hypot(x, y) = m sqrt(1 + (n/m)^2), m = max(|x|, |y|), n = min: inf if either is, else NaN if either is.
Reg hypot(Seq& s, Reg x, Reg y) {
  Reg a = s.abs(x), b = s.abs(y);
  Reg m = s.max(a, b), n = s.min(a, b);
  Reg r = div(s, n, m);
  Reg h = s.mul(m, sqrt(s, s.fma(r, r, dbl(1.0))));
  h = s.select(dbl(0.0), h, s.test("eq", m, dbl(0.0)));
  h = s.select(bits(kNaN), h, s.test("nan", x, y));
  Reg inf = pred(s, "or.pred", s.test("eq", a, bits(kInf)), s.test("eq", b, bits(kInf)));
  return s.select(bits(kInf), h, inf);
}

}  // namespace
}  // namespace f64math

bool selectLibdeviceMath(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  using ir::Opcode;
  using Unary = Reg (*)(f64math::Seq&, Reg);
  using Binary = Reg (*)(f64math::Seq&, Reg, Reg);
  static constexpr std::pair<Opcode, Unary> kUnary[] = {
      {Opcode::Expm1, f64math::expm1}, {Opcode::Log1p, f64math::log1p}, {Opcode::Log10, f64math::log10},
      {Opcode::Exp10, f64math::exp10}, {Opcode::Tan, f64math::tan},     {Opcode::Asin, f64math::asin},
      {Opcode::Acos, f64math::acos},   {Opcode::Atan, f64math::atan},   {Opcode::Sinh, f64math::sinh},
      {Opcode::Cosh, f64math::cosh},   {Opcode::Asinh, f64math::asinh}, {Opcode::Acosh, f64math::acosh},
      {Opcode::Atanh, f64math::atanh}, {Opcode::Cbrt, f64math::cbrt},
      {Opcode::BesselJ0, f64math::besselJ0}, {Opcode::BesselJ1, f64math::besselJ1},
      {Opcode::BesselY0, f64math::besselY0}, {Opcode::BesselY1, f64math::besselY1},
      {Opcode::BesselI0, f64math::besselI0}, {Opcode::BesselI1, f64math::besselI1},
      {Opcode::Erfc, f64math::erfc}, {Opcode::Normcdf, f64math::normcdf},
      {Opcode::Erfinv, f64math::erfinv}, {Opcode::Erfcinv, f64math::erfcinv},
      {Opcode::Normcdfinv, f64math::normcdfinv},
  };
  static constexpr std::pair<Opcode, Binary> kBinary[] = {
      {Opcode::Atan2, f64math::atan2}, {Opcode::Hypot, f64math::hypot}, {Opcode::Pow, f64math::pow}};
  bool known = false;
  for (const auto& u : kUnary) known = known || u.first == op.op;
  for (const auto& b : kBinary) known = known || b.first == op.op;
  if (!known) return false;
  const bool f32 = op.type == ir::Scalar::F32;
  if (!f32 && op.type != ir::Scalar::F64) internal(op.loc, "libdevice math expects f32 or f64");
  f64math::Seq q(e);
  std::vector<Reg> in;
  for (Reg x : s) {
    if (!f32) {
      in.push_back(x);
      continue;
    }
    Reg w = e.reg(RegClass::F64);
    e.inst("cvt.f64.f32", {w, x});
    in.push_back(w);
  }
  e.comment(std::string(f32 ? "f32 " : "f64 ") + ir::info(op.op).spelling + " (in f64)");
  Reg r;
  for (const auto& [o, fn] : kUnary)
    if (o == op.op) r = fn(q, in.at(0));
  for (const auto& [o, fn] : kBinary)
    if (o == op.op) r = fn(q, in.at(0), in.at(1));
  e.inst(f32 ? "cvt.rn.f32.f64" : "mov.f64", {d, r});
  return true;
}

}  // namespace kiln::ptx::detail
