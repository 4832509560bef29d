// f32/f64 math without a single PTX instruction: exp, log, sin, cos, tanh and erf as short fixed
// sequences around the .approx instructions, fmod as an exact loop. Accuracies: docs/ptx.md.
#include <array>

#include "ptx/isel_impl.h"

namespace kiln::ptx::detail {

using ir::Opcode;
using ir::Scalar;

namespace {

constexpr uint32_t kLog2E = 0x3FB8AA3B;     // log2(e)
constexpr uint32_t kLn2 = 0x3F317218;       // ln(2)
constexpr uint32_t kTwoLog2E = 0x4038AA3B;  // 2 log2(e)
constexpr uint32_t kInv2Pi = 0x3E22F983;    // 1 / (2 pi)
constexpr uint32_t k2PiHi = 0x40C90FDB;     // 2 pi = hi + lo (Cody-Waite)
constexpr uint32_t k2PiLo = 0xB43BBD2E;

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

void exp(Entry& e, Reg d, Reg x) {  // as Triton: 2^(x log2 e)
  Reg t = f32(e);
  e.inst("mul.rn.f32", {t, x, f32Bits(kLog2E)});
  e.inst("ex2.approx.f32", {d, t});
}

void log(Entry& e, Reg d, Reg x) {
  Reg t = f32(e);
  e.inst("lg2.approx.f32", {t, x});
  e.inst("mul.rn.f32", {d, t, f32Bits(kLn2)});
}

// sin/cos.approx reduce their argument with a single-precision product, which loses ~|x| 2^-24 of
// the angle; a Cody-Waite reduction to [-pi, pi] first keeps the error at the instruction's own.
void sinCos(Entry& e, bool sin, Reg d, Reg x) {
  Reg k = f32(e), r = f32(e);
  e.inst("mul.rn.f32", {k, x, f32Bits(kInv2Pi)});
  e.inst("cvt.rni.f32.f32", {k, k});
  e.inst("neg.f32", {k, k});
  e.inst("fma.rn.f32", {r, k, f32Bits(k2PiHi), x});
  e.inst("fma.rn.f32", {r, k, f32Bits(k2PiLo), r});
  e.inst(sin ? "sin.approx.f32" : "cos.approx.f32", {d, r});
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

[[noreturn]] void unsupportedF64(const ElementOp& op) {
  throw CompileError(op.loc, std::string("f64 ") + ir::info(op.op).spelling + " is not supported on the GPU yet");
}

}  // namespace

void selectFloatMath(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  const bool f64 = op.type == Scalar::F64;
  if (op.type != Scalar::F32 && !f64) internal(op.loc, "float math expects f32 or f64");
  if (op.op == Opcode::Rem) return fmod(e, f64, d, s[0], s[1]);
  if (op.op == Opcode::Rsqrt && f64) {
    e.inst("sqrt.rn.f64", {d, s[0]});  // two correct roundings: within 1 ulp
    return e.inst("rcp.rn.f64", {d, d});
  }
  using Seq = void (*)(Entry&, Reg, Reg);
  static constexpr std::pair<Opcode, Seq> kSequences[] = {
      {Opcode::Exp, exp},
      {Opcode::Log, log},
      {Opcode::Sin, [](Entry& e, Reg d, Reg x) { sinCos(e, true, d, x); }},
      {Opcode::Cos, [](Entry& e, Reg d, Reg x) { sinCos(e, false, d, x); }},
      {Opcode::Tanh, tanh},
      {Opcode::Erf, erf},
      {Opcode::Exp2, nullptr},  // one instruction on f32 (isel_float.cpp)
      {Opcode::Log2, nullptr},
      {Opcode::Rsqrt, nullptr},
  };
  for (const auto& [o, seq] : kSequences) {
    if (o != op.op) continue;
    if (f64) unsupportedF64(op);
    if (seq) return seq(e, d, s[0]);
  }
  internal(op.loc, std::string("no float math sequence for '") + ir::info(op.op).spelling + "' on " +
                       std::string(ir::name(op.type)));
}

}  // namespace kiln::ptx::detail
