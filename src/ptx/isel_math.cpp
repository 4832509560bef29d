// f32/f64 math without a single accurate PTX instruction: exp, log, log2, sin, cos, tanh and erf
// as short fixed sequences (polynomials, range reductions, the .approx instructions where they are
// accurate), fmod as an exact loop. Accuracies (measured on an H200): docs/ptx.md.
#include <array>

#include "ptx/isel_impl.h"

namespace kiln::ptx::detail {

using ir::Opcode;
using ir::Scalar;

namespace {

constexpr uint32_t kLog2E = 0x3FB8AA3B;    // log2(e) rounded to f32
constexpr uint32_t kLn2 = 0x3F317218;      // ln(2) rounded to f32 ...
constexpr uint32_t kLn2Rest = 0xB102E308;  // ... and the rest: ln(2) - kLn2
constexpr uint32_t kF32Sign = 0x80000000;
constexpr uint32_t kLn2Hi = 0x3F317200;    // ln(2) = hi + lo, hi with trailing zeros (e * hi is exact)
constexpr uint32_t kLn2Lo = 0x35BFBE8E;
constexpr uint32_t kTwoLog2E = 0x4038AA3B;  // 2 log2(e)
constexpr uint32_t kMinNormal = 0x00800000;  // 2^-126

// log1p(f) = f + f^2 Q(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: Chebyshev fit, low coefficient first.
constexpr std::array<uint32_t, 9> kLog1pQ = {0xBEFFFFFF, 0x3EAAAAAA, 0xBE800106, 0x3E4CD009, 0xBE2A41C1,
                                             0x3E11752D, 0xBE066D19, 0x3E0247B9, 0xBD9D27FB};
// sin(r) = r + r s S(s), cos(r) = 1 + s C(s), s = r^2, |r| <= pi/4 (Chebyshev fits).
constexpr std::array<uint32_t, 4> kSinS = {0xBE2AAAAB, 0x3C088887, 0xB95009D4, 0x3636DEF7};
constexpr std::array<uint32_t, 4> kCosC = {0xBF000000, 0x3D2AAAA6, 0xBAB60704, 0x37CD3783};
// x - k pi/2 in three parts (Cody-Waite, with fma), and 2/pi.
constexpr uint32_t kNegPiHalf1 = 0xBFC90FDB, kNegPiHalf2 = 0x333BBD2E, kNegPiHalf3 = 0x26F72CED;
constexpr uint32_t kTwoOverPi = 0x3F22F983;

// tanh(x) = x + x s R(s), s = x^2, for |x| < 0.55: Chebyshev fit of (tanh(x)/x - 1)/s, low first.
constexpr uint32_t kTanhCut = 0x3F0CCCCD;  // 0.55
constexpr std::array<uint32_t, 5> kTanhR = {0xBEAAAAAA, 0x3E0887F5, 0xBD5CD022, 0x3CAE9107, 0xBBD89A9C};
// erf(x) = x + x P(x^2) for |x| < 0.9; erf(x) = 1 - 2^Q(|x|) above, Q fitted to log2(erfc) on
// [0.9, 3.95] (erf rounds to 1 in f32 from 3.95 on, so |x| is clamped there).
constexpr uint32_t kErfCut = 0x3F666666;  // 0.9
constexpr uint32_t kErfClamp = 0x407CCCCD;  // 3.95
constexpr std::array<uint32_t, 6> kErfP = {0x3E0375D3, 0xBEC0937E, 0x3DE70F31, 0xBCDB633D, 0x3BA4508B, 0xBA1FFA70};
constexpr std::array<uint32_t, 9> kErfQ = {0x39F47421, 0xBFD0B7CB, 0xBF695640, 0xBE22B1C5, 0x3D1C51B0,
                                           0xBBE19CF9, 0x3A62DCFE, 0xB88C8D7C, 0x36209C68};

// Horner evaluation of c[0] + c[1] x + ... in f32 with one fma per coefficient.
Reg horner(Entry& e, Reg x, std::span<const uint32_t> c) {
  Reg p = e.reg(RegClass::F32);
  size_t n = c.size() - 1;
  e.inst("fma.rn.f32", {p, x, f32Bits(c[n]), f32Bits(c[n - 1])});
  for (size_t i = n - 1; i-- > 0;) e.inst("fma.rn.f32", {p, p, x, f32Bits(c[i])});
  return p;
}

Reg f32(Entry& e) { return e.reg(RegClass::F32); }

// exp(x) = 2^t e^c with t = x log2(e) rounded and c = x - t ln 2 its exact residual (|c| < 1e-5), taken
// by two fmas with ln 2 = hi + lo; e^c = 1 + c to f32 precision, so the result is fma(2^t, c, 2^t).
// Without the correction the rounding of t costs |x|/2 ulp (50 ulp near x = 88; Triton's plain ex2 of
// x log2 e). A result of 0 or inf stays as ex2 gave it (c is NaN for infinite x).
void exp(Entry& e, Reg d, Reg x) {
  Reg t = f32(e), c = f32(e), r = f32(e), y = f32(e);
  Reg edge = e.reg(RegClass::Pred);
  e.inst("mul.rn.f32", {t, x, f32Bits(kLog2E)});
  e.inst("fma.rn.f32", {c, t, f32Bits(kLn2 ^ kF32Sign), x});
  e.inst("fma.rn.f32", {c, t, f32Bits(kLn2Rest ^ kF32Sign), c});
  e.inst("ex2.approx.f32", {r, t});
  e.inst("fma.rn.f32", {y, r, c, r});
  e.inst("setp.eq.f32", {edge, r, f32Bits(kF32Inf)});
  e.inst("setp.eq.or.f32", {edge, r, f32Bits(0), edge});
  e.inst("selp.f32", {d, r, y, edge});
}

// log(x) and log2(x): x = m 2^k with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), log1p(f) by
// polynomial: ~1 ulp everywhere, where lg2.approx's absolute error (2^-22) ruins results near
// x = 1. Zero, subnormal, negative, inf and NaN inputs take lg2.approx (exact enough there).
void logarithm(Entry& e, bool base2, Reg d, Reg x) {
  Reg i = e.reg(RegClass::B32), k = e.reg(RegClass::B32), iy = e.reg(RegClass::B32);
  Reg m = f32(e), f = f32(e), kf = f32(e), l = f32(e), r = f32(e), g = f32(e);
  Reg normal = e.reg(RegClass::Pred);
  e.inst("mov.b32", {i, x});
  e.inst("sub.s32", {i, i, hexImm(0x3F3504F3)});
  e.inst("shr.s32", {k, i, 23});
  e.inst("and.b32", {iy, i, hexImm(0x007FFFFF)});
  e.inst("add.s32", {iy, iy, hexImm(0x3F3504F3)});
  e.inst("mov.b32", {m, iy});
  e.inst("sub.rn.f32", {f, m, f32Bits(kF32One)});
  Reg p = horner(e, f, kLog1pQ);
  e.inst("mul.rn.f32", {p, p, f});
  e.inst("mul.rn.f32", {p, p, f});
  e.inst("cvt.rn.f32.s32", {kf, k});
  if (base2) {
    e.inst("add.rn.f32", {l, p, f});
    e.inst("fma.rn.f32", {r, l, f32Bits(0x3FB8AA3B), kf});
    e.inst("lg2.approx.f32", {g, x});
  } else {
    e.inst("fma.rn.f32", {p, kf, f32Bits(kLn2Lo), p});
    e.inst("add.rn.f32", {l, p, f});
    e.inst("fma.rn.f32", {r, kf, f32Bits(kLn2Hi), l});
    e.inst("lg2.approx.f32", {g, x});
    e.inst("mul.rn.f32", {g, g, f32Bits(kLn2)});
  }
  e.inst("setp.ge.f32", {normal, x, f32Bits(kMinNormal)});
  e.inst("setp.lt.and.f32", {normal, x, f32Bits(kF32Inf), normal});
  e.inst("selp.f32", {d, r, g, normal});
}

// sin/cos: k = rint(x 2/pi), r = x - k pi/2 in [-pi/4, pi/4] (three-part reduction, accurate for
// |x| up to ~1e5), then the sin or cos polynomial by the quadrant k mod 4; ~1.5 ulp.
// sin.approx is only accurate in absolute terms (2^-21), hundreds of ulp near its zeros.
void sinCos(Entry& e, bool sin, Reg d, Reg x) {
  Reg k = f32(e), r = f32(e), s = f32(e), sn = f32(e), cs = f32(e), v = f32(e), nv = f32(e);
  Reg q = e.reg(RegClass::B32), bit = e.reg(RegClass::B32);
  Reg odd = e.reg(RegClass::Pred), neg = e.reg(RegClass::Pred);
  e.inst("mul.rn.f32", {k, x, f32Bits(kTwoOverPi)});
  e.inst("cvt.rni.f32.f32", {k, k});
  e.inst("fma.rn.f32", {r, k, f32Bits(kNegPiHalf1), x});
  e.inst("fma.rn.f32", {r, k, f32Bits(kNegPiHalf2), r});
  e.inst("fma.rn.f32", {r, k, f32Bits(kNegPiHalf3), r});
  e.inst("cvt.rzi.s32.f32", {q, k});
  if (!sin) e.inst("add.s32", {q, q, 1});  // cos(x) = sin(x + pi/2)
  e.inst("mul.rn.f32", {s, r, r});
  Reg ps = horner(e, s, kSinS);
  e.inst("mul.rn.f32", {ps, ps, s});
  e.inst("fma.rn.f32", {sn, ps, r, r});
  Reg pc = horner(e, s, kCosC);
  e.inst("fma.rn.f32", {cs, pc, s, f32Bits(kF32One)});
  e.inst("and.b32", {bit, q, 1});
  e.inst("setp.ne.u32", {odd, bit, 0});
  e.inst("selp.f32", {v, cs, sn, odd});
  e.inst("and.b32", {bit, q, 2});
  e.inst("setp.ne.u32", {neg, bit, 0});
  e.inst("neg.f32", {nv, v});
  if (!sin) return e.inst("selp.f32", {d, nv, v, neg});
  Reg zero = e.reg(RegClass::Pred), w = f32(e);
  e.inst("selp.f32", {w, nv, v, neg});
  e.inst("setp.eq.f32", {zero, x, f32Bits(0)});  // the reduction turns -0 into +0: sin(-0) = -0
  e.inst("selp.f32", {d, x, w, zero});
}

// tanh.approx.f32 is only good to 2^-11; this sequence is within ~2 ulp. The sign is copied from x
// at the end, so tanh(-0) = -0; NaN takes the polynomial branch and stays NaN.
void tanh(Entry& e, Reg d, Reg x) {
  Reg a = f32(e), s = f32(e), lo = f32(e), t = f32(e), hi = f32(e), r = f32(e);
  Reg big = e.reg(RegClass::Pred);
  e.inst("abs.f32", {a, x});
  e.inst("mul.rn.f32", {s, a, a});
  Reg p = horner(e, s, kTanhR);
  e.inst("mul.rn.f32", {p, p, s});
  e.inst("fma.rn.f32", {lo, p, a, a});
  // 1 - 2 / (e^(2a) + 1): e^(2a) overflows to inf for large a, giving exactly 1.
  e.inst("mul.rn.f32", {t, a, f32Bits(kTwoLog2E)});
  e.inst("ex2.approx.f32", {t, t});
  e.inst("add.rn.f32", {t, t, f32Bits(kF32One)});
  e.inst("rcp.approx.f32", {t, t});
  e.inst("fma.rn.f32", {hi, t, f32Bits(0xC0000000), f32Bits(kF32One)});
  e.inst("setp.ge.f32", {big, a, f32Bits(kTanhCut)});
  e.inst("selp.f32", {r, hi, lo, big});
  e.inst("copysign.f32", {d, x, r});
}

void erf(Entry& e, Reg d, Reg x) {
  Reg a = f32(e), s = f32(e), lo = f32(e), c = f32(e), hi = f32(e), r = f32(e);
  Reg big = e.reg(RegClass::Pred);
  e.inst("abs.f32", {a, x});
  e.inst("mul.rn.f32", {s, a, a});
  Reg p = horner(e, s, kErfP);
  e.inst("fma.rn.f32", {lo, p, a, a});
  e.inst("min.f32", {c, a, f32Bits(kErfClamp)});
  Reg q = horner(e, c, kErfQ);
  e.inst("ex2.approx.f32", {q, q});
  e.inst("sub.rn.f32", {hi, f32Bits(kF32One), q});
  e.inst("setp.ge.f32", {big, a, f32Bits(kErfCut)});  // false for NaN: the polynomial keeps it NaN
  e.inst("selp.f32", {r, hi, lo, big});
  e.inst("copysign.f32", {d, x, r});
}

// fmod(a, b), exact (C fmod: the result has a's sign). y is doubled up to |a|, then |a| loses
// every y >= it on the way back down; each subtraction is exact (Sterbenz), so the loop is too.
// NaN when b is 0, a is inf or either is NaN; a itself when |a| < |b| (b = inf included).
void fmod(Entry& e, bool f64, Reg d, Reg a, Reg b) {
  RegClass rc = f64 ? RegClass::F64 : RegClass::F32;
  std::string t = f64 ? ".f64" : ".f32";
  Operand inf = f64 ? f64Bits(kF64Inf) : f32Bits(kF32Inf);
  Operand nan = f64 ? f64Bits(kF64NaN) : f32Bits(kF32NaN);
  Operand zero = f64 ? f64Bits(0) : f32Bits(0);
  Operand half = f64 ? f64Bits(0x3FE0000000000000ull) : f32Bits(0x3F000000);
  Reg x = e.reg(rc), ay = e.reg(rc), y = e.reg(rc), y2 = e.reg(rc);
  Reg p = e.reg(RegClass::Pred), q = e.reg(RegClass::Pred);
  Label grow = e.newLabel("fmod_grow"), shrink = e.newLabel("fmod_shrink"), done = e.newLabel("fmod_done");
  e.inst("abs" + t, {x, a});
  e.inst("abs" + t, {ay, b});
  e.inst("setp.ge" + t, {p, x, ay});  // loop only for 0 < |b| <= |a| < inf (NaNs fail every test)
  e.inst("setp.lt.and" + t, {p, x, inf, p});
  e.inst("setp.gt.and" + t, {p, ay, zero, p});
  e.bra(done, unless(p));
  e.inst("mov" + t, {y, ay});
  e.label(grow);
  e.inst("add.rn" + t, {y2, y, y});
  e.inst("setp.le" + t, {q, y2, x});
  e.inst("mov" + t, {y, y2}, when(q));
  e.bra(grow, when(q));
  e.label(shrink);
  e.inst("setp.ge" + t, {q, x, y});
  e.inst("sub.rn" + t, {x, x, y}, when(q));
  e.inst("setp.eq" + t, {q, y, ay});
  e.bra(done, when(q));
  e.inst("mul.rn" + t, {y, y, half});
  e.bra(shrink);
  e.label(done);
  e.inst("setp.gt" + t, {p, ay, zero});
  e.inst("setp.lt.and" + t, {p, x, inf, p});
  e.inst("selp" + t, {x, x, nan, p});
  e.inst("copysign" + t, {d, a, x});
}

}  // namespace

void selectFloatMath(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  const bool f64 = op.type == Scalar::F64;
  if (op.type != Scalar::F32 && !f64) internal(op.loc, "float math expects f32 or f64");
  if (op.op == Opcode::Rem) return fmod(e, f64, d, s[0], s[1]);
  if (selectLibdeviceMath(e, op, d, s)) return;  // math_libdevice.cpp
  if (op.op == Opcode::Rsqrt && f64) {
    e.inst("sqrt.rn.f64", {d, s[0]});  // two correct roundings: within 1 ulp
    return e.inst("rcp.rn.f64", {d, d});
  }
  using Seq = void (*)(Entry&, Reg, Reg);
  static constexpr std::pair<Opcode, Seq> kSequences[] = {
      {Opcode::Exp, exp},
      {Opcode::Log, [](Entry& e, Reg d, Reg x) { logarithm(e, false, d, x); }},
      {Opcode::Log2, [](Entry& e, Reg d, Reg x) { logarithm(e, true, d, x); }},
      {Opcode::Sin, [](Entry& e, Reg d, Reg x) { sinCos(e, true, d, x); }},
      {Opcode::Cos, [](Entry& e, Reg d, Reg x) { sinCos(e, false, d, x); }},
      {Opcode::Tanh, tanh},
      {Opcode::Erf, erf},
      {Opcode::Exp2, nullptr},  // one instruction on f32 (isel_float.cpp)
      {Opcode::Rsqrt, nullptr},
  };
  for (const auto& [o, seq] : kSequences) {
    if (o != op.op) continue;
    if (f64) return selectF64Math(e, op, d, s[0]);  // math_f64*.cpp
    if (seq) return seq(e, d, s[0]);
  }
  internal(op.loc, std::string("no float math sequence for '") + ir::info(op.op).spelling + "' on " +
                       std::string(ir::name(op.type)));
}

}  // namespace kiln::ptx::detail
