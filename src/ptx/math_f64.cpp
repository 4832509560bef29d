// f64 exp, exp2, log and log2 as branch-free PTX sequences (PTX has no f64 transcendental
// instruction): argument reduction, polynomials fitted for kiln, extra-precise final steps.
// The trigonometric, tanh and erf sequences are in math_f64_trig.cpp; accuracies in docs/ptx.md.
#include <array>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail {

namespace f64math {
namespace {

// e^r = 1 + r + r^2 Q(r) for |r| <= 0.3467: near-minimax fit (max error 0.005 ulp of the result).
constexpr std::array<uint64_t, 11> kExpQ = {
    0x3FE0000000000000, 0x3FC555555555555C, 0x3FA555555555555E, 0x3F8111111110EB9C,
    0x3F56C16C16C1343A, 0x3F2A01A01B3C62CE, 0x3EFA01A01B4AD46C, 0x3EC71DDEF7369A63,
    0x3E927E4BE8C4FF8D, 0x3E5AF6D0BC674EB9, 0x3E21F9ED32BC3D1B};
// 2 atanh(s) = 2s + s z T(z), z = s^2 <= 0.02945 (|s| <= 3 - 2 sqrt 2): near-minimax fit.
constexpr std::array<uint64_t, 7> kLogT = {0x3FE55555555555D7, 0x3FD999999996E19B, 0x3FD2492494F1CB0F,
                                           0x3FCC71C48AB6E7AD, 0x3FC7467F96372C89, 0x3FC3978DD1C402C4,
                                           0x3FC3083C8175A986};
constexpr uint64_t kLog2ELo = 0x3C7777D0FFDA0D24;  // 1/ln 2 - kLog2E
constexpr uint64_t kSqrtHalf = 0x3FE6A09E667F3BCD;  // sqrt(1/2)
constexpr uint64_t kMinNormal = 0x0010000000000000;  // 2^-1022
constexpr uint64_t kMaxFinite = 0x7FEFFFFFFFFFFFFF;

// 2^k as an f64, k a .b32 integer in [-1022, 1023]: the exponent field written directly.
Reg pow2(Seq& s, Reg k) {
  Reg biased = s.op(RegClass::B32, "add.s32", {k, 1023});
  Reg wide = s.op(RegClass::B64, "cvt.u64.u32", {biased});
  Reg field = s.op(RegClass::B64, "shl.b64", {wide, 52});
  return s.op(RegClass::F64, "mov.b64", {field});
}

// Selects NaN inputs through unchanged (min/max in the clamps would turn them into numbers).
Reg keepNan(Seq& s, Reg x, Reg y) { return s.select(x, y, s.test("nan", x, x)); }

Reg exp2(Seq& s, Reg x) {
  // 2^x = 2^k 2^f, f = x - k in [-1/2, 1/2] (exact); 2^f = e^(f ln 2) with f ln 2 as rh + rl.
  Reg xc = s.max(s.min(x, dbl(1024.0)), dbl(-1076.0));
  Reg k = s.rint(xc);
  Reg f = s.sub(xc, k);
  Reg rh = s.mul(f, bits(kLn2Hi));
  Reg rl = s.fma(f, bits(kLn2Hi), s.neg(rh));
  rl = s.fma(f, bits(kLn2Lo), rl);
  return keepNan(s, x, scaledExp(s, k, rh, rl));
}

// log(x) of a positive normal or subnormal x as k ln 2 + hi + lo: x = m 2^k, m in [sqrt(1/2),
// sqrt(2)), f = m - 1 (exact), s = f / (2 + f), log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + z T(z))
// with f - f^2/2 carried as hi + lo (the rounding errors of f^2/2 and of the subtraction recovered).
struct LogParts {
  Reg k, hi, lo;
};
LogParts logParts(Seq& s, Reg x) {
  auto [k, f] = logReduce(s, x);
  Reg q = s.f("div.rn.f64", {f, s.add(f, dbl(2.0))});
  Reg z = s.mul(q, q);
  Reg r = s.mul(z, s.horner(z, kLogT));
  Reg hf = s.mul(f, dbl(0.5));
  Reg hfsq = s.mul(hf, f);
  Reg hfsqErr = s.fma(hf, f, s.neg(hfsq));  // f^2/2 = hfsq + hfsqErr exactly
  Reg hi = s.sub(f, hfsq);
  Reg lo = s.sub(s.sub(f, hi), hfsq);  // exact: |f| >= f^2/2
  lo = s.sub(lo, hfsqErr);
  lo = s.fma(q, s.add(hfsq, r), lo);
  return {k, hi, lo};
}

// Zero gives -inf, negative numbers NaN, +inf and NaN themselves.
Reg logSpecials(Seq& s, Reg x, Reg y) {
  y = s.select(bits(0xFFF0000000000000ull), y, s.test("eq", x, dbl(0.0)));
  y = s.select(bits(kF64NaN), y, s.test("lt", x, dbl(0.0)));
  return s.select(x, y, s.test("gtu", x, bits(kMaxFinite)));
}

Reg log(Seq& s, Reg x) {
  LogParts p = logParts(s, x);
  // k ln 2 = kh + kl (kh = k * kLn2Hi rounded, its error recovered by fma), then kh + hi exactly.
  Reg kh = s.mul(p.k, bits(kLn2Hi));
  Reg kl = s.fma(p.k, bits(kLn2Hi), s.neg(kh));
  kl = s.fma(p.k, bits(kLn2Lo), kl);
  Reg sum = s.add(kh, p.hi);
  Reg err = s.add(s.sub(kh, sum), p.hi);  // exact: |kh| >= |hi| unless kh = 0
  Reg tail = s.add(s.add(err, p.lo), kl);
  return logSpecials(s, x, s.add(sum, tail));
}

Reg log2(Seq& s, Reg x) {
  LogParts p = logParts(s, x);
  // (hi + lo) / ln 2 = mh + ml, then k + mh exactly (|k| >= 1 > |mh| unless k = 0).
  Reg mh = s.mul(p.hi, bits(kLog2E));
  Reg ml = s.fma(p.hi, bits(kLog2E), s.neg(mh));
  ml = s.fma(p.hi, bits(kLog2ELo), ml);
  ml = s.fma(p.lo, bits(kLog2E), ml);
  Reg sum = s.add(p.k, mh);
  Reg err = s.add(s.sub(p.k, sum), mh);
  return logSpecials(s, x, s.add(sum, s.add(err, ml)));
}

}  // namespace

LogReduction logReduce(Seq& s, Reg x) {
  Reg tiny = s.test("lt", x, bits(kMinNormal));  // subnormals are scaled by 2^54 first
  Reg xs = s.select(s.mul(x, dbl(0x1p54)), x, tiny);
  Reg adjust = s.select(dbl(-54.0), dbl(0.0), tiny);
  Reg b = s.op(RegClass::B64, "mov.b64", {xs});
  Reg i = s.op(RegClass::B64, "sub.s64", {b, hexImm(kSqrtHalf)});
  Reg ke = s.op(RegClass::B64, "shr.s64", {i, 52});
  Reg k = s.add(s.op(RegClass::F64, "cvt.rn.f64.s64", {ke}), adjust);
  Reg mb = s.op(RegClass::B64, "and.b64", {i, hexImm(0x000FFFFFFFFFFFFFull)});
  mb = s.op(RegClass::B64, "add.s64", {mb, hexImm(kSqrtHalf)});
  Reg m = s.op(RegClass::F64, "mov.b64", {mb});
  return {k, s.sub(m, dbl(1.0))};
}

Reg exp2Of(Seq& s, Reg x) { return exp2(s, x); }
Reg logOf(Seq& s, Reg x) { return log(s, x); }
Reg log2Of(Seq& s, Reg x) { return log2(s, x); }

Reg scaledExp(Seq& s, Reg k, Reg r, Reg rl) {
  Reg z = s.mul(r, r);
  Reg t = s.fma(z, s.horner(r, kExpQ), r);     // e^r - 1
  if (rl.valid()) t = s.add(t, s.fma(t, rl, rl));  // e^(r + rl) - 1 = t + (1 + t) rl
  Reg p = s.add(dbl(1.0), t);
  Reg ki = s.op(RegClass::B32, "cvt.rzi.s32.f64", {k});
  Reg k1 = s.op(RegClass::B32, "shr.s32", {ki, 1});  // floor(k / 2): k1, k - k1 in [-538, 512]
  Reg k2 = s.op(RegClass::B32, "sub.s32", {ki, k1});
  Reg f1 = pow2(s, k1);  // (one statement each: the emitted order must not depend on the compiler)
  Reg f2 = pow2(s, k2);
  return s.mul(s.mul(p, f1), f2);
}

Reg expNoNan(Seq& s, Reg x) {
  // e^x = 2^k e^r, k = rint(x / ln 2), r = x - k ln 2: the first fma is exact (both terms are
  // multiples of 2^-53 or k = 0, and |r| < 1/2), the second adds the low part of ln 2.
  Reg xc = s.max(s.min(x, dbl(710.0)), dbl(-746.0));
  Reg k = s.rint(s.mul(xc, bits(kLog2E)));
  Reg nk = s.neg(k);
  Reg r = s.fma(nk, bits(kLn2Hi), xc);
  r = s.fma(nk, bits(kLn2Lo), r);
  return scaledExp(s, k, r, Reg{});
}

}  // namespace f64math

void selectF64Math(Entry& e, const ElementOp& op, Reg d, Reg x) {
  using ir::Opcode;
  using Fn = Reg (*)(f64math::Seq&, Reg);
  static constexpr std::pair<Opcode, Fn> kFunctions[] = {
      {Opcode::Exp, [](f64math::Seq& s, Reg x) { return f64math::keepNan(s, x, f64math::expNoNan(s, x)); }},
      {Opcode::Exp2, f64math::exp2},
      {Opcode::Log, f64math::log},
      {Opcode::Log2, f64math::log2},
      {Opcode::Sin, f64math::sin},
      {Opcode::Cos, f64math::cos},
      {Opcode::Tanh, f64math::tanh},
      {Opcode::Erf, f64math::erf},
  };
  for (const auto& [o, fn] : kFunctions) {
    if (o != op.op) continue;
    f64math::Seq s(e);
    e.comment(std::string("f64 ") + ir::info(o).spelling);
    return e.inst("mov.f64", {d, fn(s, x)});
  }
  internal(op.loc, std::string("no f64 math sequence for '") + ir::info(op.op).spelling + "'");
}

}  // namespace kiln::ptx::detail
