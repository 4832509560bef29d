// Internal to the f64 math files (math_f64*.cpp): a small helper that emits one f64 instruction per
// call into a fresh register, and the pieces the sequences share (Horner, the scaled exponential).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "ptx/isel_impl.h"

namespace kiln::ptx::detail::f64math {

inline Operand dbl(double v) { return f64Imm(v); }
inline Operand bits(uint64_t b) { return f64Bits(b); }

// One value per register, in SSA style: ptxas allocates, so the sequences stay readable.
class Seq {
 public:
  explicit Seq(Entry& e) : e(e) {}
  Entry& e;

  Reg op(RegClass c, std::string_view mnemonic, std::vector<Operand> srcs) {
    Reg d = e.reg(c);
    srcs.insert(srcs.begin(), d);
    e.inst(mnemonic, srcs);
    return d;
  }
  Reg f(std::string_view mnemonic, std::vector<Operand> srcs) { return op(RegClass::F64, mnemonic, std::move(srcs)); }
  Reg add(Operand a, Operand b) { return f("add.rn.f64", {a, b}); }
  Reg sub(Operand a, Operand b) { return f("sub.rn.f64", {a, b}); }
  Reg mul(Operand a, Operand b) { return f("mul.rn.f64", {a, b}); }
  Reg fma(Operand a, Operand b, Operand c) { return f("fma.rn.f64", {a, b, c}); }
  Reg neg(Operand a) { return f("neg.f64", {a}); }
  Reg abs(Operand a) { return f("abs.f64", {a}); }
  Reg min(Operand a, Operand b) { return f("min.f64", {a, b}); }
  Reg max(Operand a, Operand b) { return f("max.f64", {a, b}); }
  Reg rint(Operand a) { return f("cvt.rni.f64.f64", {a}); }
  // a if p else b
  Reg select(Operand a, Operand b, Reg p) { return f("selp.f64", {a, b, p}); }
  // setp.CMP.f64 (CMP: "lt", "gtu", "nan", ...)
  Reg test(std::string_view cmp, Operand a, Operand b) {
    return op(RegClass::Pred, "setp." + std::string(cmp) + ".f64", {a, b});
  }
  // c[0] + c[1] x + ... + c[n] x^n, one fma per coefficient (coefficients as f64 bit patterns).
  Reg horner(Reg x, std::span<const uint64_t> c) {
    size_t n = c.size() - 1;
    Reg p = fma(x, bits(c[n]), bits(c[n - 1]));
    for (size_t i = n - 1; i-- > 0;) p = fma(p, x, bits(c[i]));
    return p;
  }
};

// ln 2 = kLn2Hi + kLn2Lo (kLn2Hi: ln 2 rounded to f64).
inline constexpr uint64_t kLn2Hi = 0x3FE62E42FEFA39EFull, kLn2Lo = 0x3C7ABC9E3B39803Full;
inline constexpr uint64_t kLog2E = 0x3FF71547652B82FEull;  // 1/ln 2 rounded

// 2^k e^(r + rl): k an integral f64 in [-1076, 1024], |r| <= 0.3467, |rl| <= 2^-50 |r| (rl may be an
// invalid Reg: no low part). The factor 2^k is applied as two powers of two, so that the first
// product is exact and only the last one rounds (subnormal results are rounded once).
Reg scaledExp(Seq& s, Reg k, Reg r, Reg rl);

// e^x for all x except NaN (the caller selects NaN through): clamped to [-746, 710] first.
Reg expNoNan(Seq& s, Reg x);

// x = 2^k (1 + f) for a positive finite x (subnormals included): k an integral f64, f exact in
// [sqrt(1/2) - 1, sqrt(2) - 1).
struct LogReduction {
  Reg k, f;
};
LogReduction logReduce(Seq& s, Reg x);

// 2^x, log(x), log2(x) with every special value (NaN, infinities, zeros, negatives) handled.
Reg exp2Of(Seq& s, Reg x);
Reg logOf(Seq& s, Reg x);
Reg log2Of(Seq& s, Reg x);

// The sequences of math_f64_trig.cpp.
Reg sin(Seq& s, Reg x);
Reg cos(Seq& s, Reg x);
Reg tanh(Seq& s, Reg x);
Reg erf(Seq& s, Reg x);

// The Bessel functions of math_bessel.cpp.
Reg besselJ0(Seq& s, Reg x);
Reg besselJ1(Seq& s, Reg x);
Reg besselY0(Seq& s, Reg x);
Reg besselY1(Seq& s, Reg x);
Reg besselI0(Seq& s, Reg x);
Reg besselI1(Seq& s, Reg x);

// erfc and normcdf (math_erfc.cpp).
Reg erfc(Seq& s, Reg x);
Reg normcdf(Seq& s, Reg x);

// A value hi + lo with |lo| <= ulp(hi) / 2.
struct DD {
  Reg hi, lo;
};

// pow(x, y) with C's special cases, through logDD: log(x) of a positive finite x as a double-double
// (~2^-100 relative) (math_pow.cpp).
Reg pow(Seq& s, Reg x, Reg y);
DD logDD(Seq& s, Reg x);

// erfcx(c) = e^(c^2) erfc(c) for c in [0, 28] (math_erfc.cpp's fit; within ~3 ulp, 0.5 ulp from c = 1/2).
Reg erfcxNonNegative(Seq& s, Reg c);

// erfinv, erfcinv, normcdfinv (math_erfinv.cpp).
Reg erfinv(Seq& s, Reg x);
Reg erfcinv(Seq& s, Reg x);
Reg normcdfinv(Seq& s, Reg x);

}  // namespace kiln::ptx::detail::f64math
