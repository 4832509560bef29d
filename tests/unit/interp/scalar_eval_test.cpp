// Exact element semantics (ir/scalar_eval): float rounding to every narrow format, integer
// wrapping, division, shifts, NaN rules of min/max/cmp, conversions and bitcasts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/scalar_eval.h"
#include "support/diagnostic.h"

namespace kiln::ir {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Elem I(int64_t v) { return intElem(v); }
Elem F(double v) { return floatElem(v); }

// Evaluates `oc` on elements of type t; `dbz` receives the division-by-zero flag.
Elem eval(Opcode oc, Scalar t, std::initializer_list<Elem> xs, std::vector<Attr> attrs = {},
          bool* dbz = nullptr) {
  Op op(oc, SourceLoc{});
  op.attrs = std::move(attrs);
  Elem out{};
  bool divByZero = false;
  std::vector<Elem> v(xs);
  EXPECT_TRUE(evalElementwise(op, t, v.data(), out, divByZero));
  if (dbz) *dbz = divByZero;
  else EXPECT_FALSE(divByZero);
  return out;
}
int64_t evalI(Opcode oc, Scalar t, std::initializer_list<Elem> xs, std::vector<Attr> attrs = {}) {
  return eval(oc, t, xs, std::move(attrs)).i;
}
double evalF(Opcode oc, Scalar t, std::initializer_list<Elem> xs, std::vector<Attr> attrs = {}) {
  return eval(oc, t, xs, std::move(attrs)).f;
}
bool cmp(Scalar t, const char* pred, Elem a, Elem b) {
  return eval(Opcode::Cmp, t, {a, b}, {Attr{"pred", std::string(pred)}}).i != 0;
}

// ---------------------------------------------------------------- rounding

TEST(Rounding, F16NearestEvenTies) {
  EXPECT_EQ(roundToF16(1 + std::ldexp(1, -11)), 1.0);                          // tie -> even (down)
  EXPECT_EQ(roundToF16(1 + 3 * std::ldexp(1, -11)), 1 + std::ldexp(1, -9));    // tie -> even (up)
  EXPECT_EQ(roundToF16(1 + std::ldexp(1, -11) + std::ldexp(1, -30)), 1 + std::ldexp(1, -10));
  EXPECT_EQ(roundToF16(2049), 2048);
  EXPECT_EQ(roundToF16(2051), 2052);
  EXPECT_EQ(roundToF16(-2049), -2048);
}

TEST(Rounding, F16OverflowAndSubnormals) {
  EXPECT_EQ(roundToF16(65504), 65504);
  EXPECT_EQ(roundToF16(65519.99), 65504);
  EXPECT_EQ(roundToF16(65520), kInf);  // the tie above the max rounds to even, which is 2^16: inf
  EXPECT_EQ(roundToF16(-65520), -kInf);
  EXPECT_EQ(roundToF16(1e300), kInf);
  EXPECT_EQ(roundToF16(std::ldexp(1, -24)), std::ldexp(1, -24));      // smallest subnormal
  EXPECT_EQ(roundToF16(std::ldexp(1, -25)), 0.0);                     // tie with 0 -> 0
  EXPECT_EQ(roundToF16(std::ldexp(1.5, -25)), std::ldexp(1, -24));
  EXPECT_EQ(roundToF16(std::ldexp(3, -25)), std::ldexp(1, -23));      // tie -> even
  EXPECT_EQ(roundToF16(std::ldexp(1023, -24)), std::ldexp(1023, -24));  // largest subnormal
  EXPECT_TRUE(std::signbit(roundToF16(-std::ldexp(1, -30))));         // underflow keeps the sign
  EXPECT_TRUE(std::isnan(roundToF16(kNaN)));
  EXPECT_EQ(roundToF16(-kInf), -kInf);
}

TEST(Rounding, F16Bits) {
  EXPECT_EQ(toBits(Scalar::F16, F(1.0)), 0x3C00u);
  EXPECT_EQ(toBits(Scalar::F16, F(-2.0)), 0xC000u);
  EXPECT_EQ(toBits(Scalar::F16, F(-0.0)), 0x8000u);
  EXPECT_EQ(toBits(Scalar::F16, F(65504)), 0x7BFFu);
  EXPECT_EQ(toBits(Scalar::F16, F(kInf)), 0x7C00u);
  EXPECT_EQ(toBits(Scalar::F16, F(std::ldexp(1, -24))), 0x0001u);
  EXPECT_EQ(toBits(Scalar::F16, F(std::ldexp(1, -14))), 0x0400u);
  EXPECT_EQ(fromBits(Scalar::F16, 0x03FF).f, std::ldexp(1023, -24));
  EXPECT_EQ(fromBits(Scalar::F16, 0x7C00).f, kInf);
  EXPECT_EQ(fromBits(Scalar::F16, 0x3555).f, roundToF16(1.0 / 3));
  EXPECT_TRUE(std::isnan(fromBits(Scalar::F16, 0x7E00).f));
  // NaN payloads (signalling ones too) survive bits -> element -> bits.
  EXPECT_EQ(toBits(Scalar::F16, fromBits(Scalar::F16, 0x7C01)), 0x7C01u);
  EXPECT_EQ(toBits(Scalar::F16, fromBits(Scalar::F16, 0xFE3F)), 0xFE3Fu);
}

TEST(Rounding, BF16) {
  EXPECT_EQ(roundToBF16(1 + std::ldexp(1, -8)), 1.0);
  EXPECT_EQ(roundToBF16(1 + 3 * std::ldexp(1, -8)), 1 + std::ldexp(1, -6));
  EXPECT_EQ(roundToBF16(0x1.FEp127), 0x1.FEp127);
  EXPECT_EQ(roundToBF16(0x1.FFp127), kInf);
  EXPECT_EQ(roundToBF16(std::ldexp(1, -133)), std::ldexp(1, -133));  // smallest subnormal
  EXPECT_EQ(roundToBF16(std::ldexp(1, -134)), 0.0);
  EXPECT_EQ(toBits(Scalar::BF16, F(1.0)), 0x3F80u);
  EXPECT_EQ(toBits(Scalar::BF16, F(-kInf)), 0xFF80u);
  EXPECT_EQ(fromBits(Scalar::BF16, 0x4049).f, 3.140625);
  EXPECT_EQ(roundToBF16(3.14159265), 3.140625);
}

TEST(Rounding, F8E4M3SaturatesAndHasOneNaN) {
  EXPECT_EQ(roundToF8E4M3(448), 448);
  EXPECT_EQ(roundToF8E4M3(464), 448);  // tie between 448 and 480: even is 448
  EXPECT_EQ(roundToF8E4M3(480), 448);  // saturates: 480 is the NaN encoding's place
  EXPECT_EQ(roundToF8E4M3(1e9), 448);
  EXPECT_EQ(roundToF8E4M3(kInf), 448);
  EXPECT_EQ(roundToF8E4M3(-kInf), -448);
  EXPECT_EQ(roundToF8E4M3(-1000), -448);
  EXPECT_EQ(roundToF8E4M3(256), 256);  // exponent field 1111 holds normal numbers in e4m3
  EXPECT_EQ(roundToF8E4M3(1.0625), 1.0);
  EXPECT_EQ(roundToF8E4M3(1.1875), 1.25);
  EXPECT_EQ(roundToF8E4M3(std::ldexp(1, -9)), std::ldexp(1, -9));  // smallest subnormal
  EXPECT_EQ(roundToF8E4M3(std::ldexp(1, -10)), 0.0);
  EXPECT_TRUE(std::isnan(roundToF8E4M3(kNaN)));
  EXPECT_EQ(toBits(Scalar::F8E4M3, F(448)), 0x7Eu);
  EXPECT_EQ(toBits(Scalar::F8E4M3, F(-448)), 0xFEu);
  EXPECT_EQ(toBits(Scalar::F8E4M3, F(kNaN)), 0x7Fu);
  EXPECT_EQ(toBits(Scalar::F8E4M3, F(1.0)), 0x38u);
  EXPECT_TRUE(std::isnan(fromBits(Scalar::F8E4M3, 0x7F).f));
  EXPECT_TRUE(std::isnan(fromBits(Scalar::F8E4M3, 0xFF).f));
  EXPECT_EQ(fromBits(Scalar::F8E4M3, 0x78).f, 256);
  EXPECT_EQ(fromBits(Scalar::F8E4M3, 0x01).f, std::ldexp(1, -9));
}

TEST(Rounding, F8E5M2) {
  EXPECT_EQ(roundToF8E5M2(57344), 57344);
  EXPECT_EQ(roundToF8E5M2(61440), kInf);  // tie above the max rounds to even: overflow
  EXPECT_EQ(roundToF8E5M2(1.125), 1.0);
  EXPECT_EQ(roundToF8E5M2(1.375), 1.5);
  EXPECT_EQ(toBits(Scalar::F8E5M2, F(57344)), 0x7Bu);
  EXPECT_EQ(toBits(Scalar::F8E5M2, F(-kInf)), 0xFCu);
  EXPECT_EQ(fromBits(Scalar::F8E5M2, 0x7C).f, kInf);
  EXPECT_TRUE(std::isnan(fromBits(Scalar::F8E5M2, 0x7D).f));
  EXPECT_EQ(toBits(Scalar::F8E5M2, fromBits(Scalar::F8E5M2, 0x7D)), 0x7Du);
  EXPECT_EQ(fromBits(Scalar::F8E5M2, 0x01).f, std::ldexp(1, -16));
}

TEST(Rounding, TF32TiesAwayAndF32) {
  EXPECT_EQ(roundToTF32(1 + std::ldexp(1, -11)), 1 + std::ldexp(1, -10));  // tie away from zero
  EXPECT_EQ(roundToTF32(-(1 + std::ldexp(1, -11))), -(1 + std::ldexp(1, -10)));
  EXPECT_EQ(roundToTF32(1 + std::ldexp(1, -12)), 1.0);
  EXPECT_EQ(roundToTF32(1 + 3 * std::ldexp(1, -12)), 1 + std::ldexp(1, -10));
  EXPECT_EQ(truncateToTF32(1 + 3 * std::ldexp(1, -12)), 1.0);  // toward zero, as the tensor cores read f32
  EXPECT_EQ(truncateToTF32(-(2 - std::ldexp(1, -23))), -(2 - std::ldexp(1, -10)));
  EXPECT_EQ(truncateToTF32(kInf), kInf);
  EXPECT_TRUE(std::isnan(truncateToTF32(std::nan(""))));
  EXPECT_EQ(roundToF32(1 + std::ldexp(1, -24)), 1.0);
  EXPECT_EQ(roundToF32(1 + std::ldexp(1, -24) + std::ldexp(1, -40)), 1 + std::ldexp(1, -23));
  EXPECT_EQ(roundToF32(1e39), kInf);
  EXPECT_EQ(roundTo(Scalar::F16, 65520, /*rtz=*/true), 65504);
  EXPECT_EQ(roundTo(Scalar::F16, -1.999, /*rtz=*/true), -1.998046875);
}

// round_tf32 (split_dots' big part of a tf32x3 operand): cvt.rna.tf32.f32, an f32 result whose low 13
// bits are clear; past tf32's largest finite value it overflows to infinity, as rounding away from zero
// does; infinities and NaN stay; f32 subnormals round at the same bit position.
TEST(Rounding, RoundTf32Op) {
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(1 + std::ldexp(1, -11))}), 1 + std::ldexp(1, -10));
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(-(1 + std::ldexp(1, -11)))}), -(1 + std::ldexp(1, -10)));
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(1 + std::ldexp(1, -11) - std::ldexp(1, -23))}), 1.0);
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(std::ldexp(2 - std::ldexp(1, -23), 127))}), kInf);
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(-kInf)}), -kInf);
  EXPECT_TRUE(std::isnan(evalF(Opcode::RoundTf32, Scalar::F32, {F(kNaN)})));
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(std::ldexp(1, -137))}), std::ldexp(1, -136));  // a tie
  EXPECT_EQ(evalF(Opcode::RoundTf32, Scalar::F32, {F(std::ldexp(1, -138))}), 0.0);
}

// ---------------------------------------------------------------- integers

TEST(Ints, WrapToWidth) {
  EXPECT_EQ(evalI(Opcode::Add, Scalar::I8, {I(127), I(1)}), -128);
  EXPECT_EQ(evalI(Opcode::Add, Scalar::U8, {I(255), I(1)}), 0);
  EXPECT_EQ(evalI(Opcode::Mul, Scalar::I8, {I(16), I(16)}), 0);
  EXPECT_EQ(evalI(Opcode::Mul, Scalar::I8, {I(-3), I(50)}), 106);  // -150 mod 256
  EXPECT_EQ(evalI(Opcode::Sub, Scalar::U16, {I(0), I(1)}), 65535);
  EXPECT_EQ(evalI(Opcode::Add, Scalar::I32, {I(INT32_MAX), I(1)}), INT32_MIN);
  EXPECT_EQ(evalI(Opcode::Add, Scalar::I1, {I(1), I(1)}), 0);
  EXPECT_EQ(evalI(Opcode::Neg, Scalar::I8, {I(-128)}), -128);
  EXPECT_EQ(evalI(Opcode::Abs, Scalar::I32, {I(INT32_MIN)}), INT32_MIN);
  EXPECT_EQ(evalI(Opcode::Abs, Scalar::I8, {I(-5)}), 5);
  EXPECT_EQ(evalI(Opcode::Not, Scalar::I1, {I(1)}), 0);
  EXPECT_EQ(evalI(Opcode::Not, Scalar::I1, {I(0)}), 1);
  EXPECT_EQ(evalI(Opcode::Not, Scalar::U8, {I(0x0F)}), 0xF0);
  EXPECT_EQ(evalI(Opcode::Xor, Scalar::I1, {I(1), I(1)}), 0);
  EXPECT_EQ(evalI(Opcode::Or, Scalar::I1, {I(0), I(1)}), 1);
  EXPECT_EQ(evalI(Opcode::And, Scalar::I16, {I(-1), I(0x1234)}), 0x1234);
  EXPECT_EQ(normalize(Scalar::I8, I(200)).i, -56);
  EXPECT_EQ(normalize(Scalar::U32, I(-1)).i, 0xFFFFFFFF);
}

TEST(Ints, Division) {
  EXPECT_EQ(evalI(Opcode::Div, Scalar::I32, {I(-7), I(2)}), -3);  // truncates toward zero
  EXPECT_EQ(evalI(Opcode::Rem, Scalar::I32, {I(-7), I(2)}), -1);
  EXPECT_EQ(evalI(Opcode::Rem, Scalar::I32, {I(7), I(-2)}), 1);
  EXPECT_EQ(evalI(Opcode::Div, Scalar::I32, {I(INT32_MIN), I(-1)}), INT32_MIN);
  EXPECT_EQ(evalI(Opcode::Rem, Scalar::I32, {I(INT32_MIN), I(-1)}), 0);
  EXPECT_EQ(evalI(Opcode::Div, Scalar::I64, {I(INT64_MIN), I(-1)}), INT64_MIN);
  EXPECT_EQ(evalI(Opcode::Rem, Scalar::I64, {I(INT64_MIN), I(-1)}), 0);
  EXPECT_EQ(evalI(Opcode::Div, Scalar::I8, {I(-128), I(-1)}), -128);
  EXPECT_EQ(evalI(Opcode::Div, Scalar::U32, {I(0xFFFFFFFF), I(2)}), 0x7FFFFFFF);  // unsigned
  EXPECT_EQ(evalI(Opcode::Rem, Scalar::U8, {I(255), I(10)}), 5);
  bool dbz = false;
  EXPECT_EQ(eval(Opcode::Div, Scalar::I32, {I(5), I(0)}, {}, &dbz).i, -1);
  EXPECT_TRUE(dbz);
  dbz = false;
  EXPECT_EQ(eval(Opcode::Rem, Scalar::U64, {I(5), I(0)}, {}, &dbz).i, 5);
  EXPECT_TRUE(dbz);
  dbz = false;
  eval(Opcode::Div, Scalar::F32, {F(1), F(0)}, {}, &dbz);  // floats: IEEE, no flag
  EXPECT_FALSE(dbz);
}

TEST(Ints, Shifts) {
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::I8, {I(-128), I(1)}), -64);  // arithmetic
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::U8, {I(128), I(1)}), 64);    // logical
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::U32, {I(0xFFFFFFFF), I(31)}), 1);
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::I32, {I(-1), I(40)}), -1);   // >= width: sign fill
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::I32, {I(5), I(40)}), 0);
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::U32, {I(0xFFFFFFFF), I(32)}), 0);
  EXPECT_EQ(evalI(Opcode::Shl, Scalar::I32, {I(1), I(32)}), 0);
  EXPECT_EQ(evalI(Opcode::Shl, Scalar::I32, {I(1), I(31)}), INT32_MIN);
  EXPECT_EQ(evalI(Opcode::Shl, Scalar::I32, {I(1), I(-1)}), 0);     // amount read as unsigned: huge
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::I32, {I(-8), I(-1)}), -1);
  EXPECT_EQ(evalI(Opcode::Shl, Scalar::I8, {I(1), I(7)}), -128);
  EXPECT_EQ(evalI(Opcode::Shl, Scalar::I64, {I(1), I(63)}), INT64_MIN);
  EXPECT_EQ(evalI(Opcode::Shr, Scalar::U64, {I(-1), I(63)}), 1);
}

TEST(Ints, MinMaxUMulHiCompare) {
  EXPECT_EQ(evalI(Opcode::Min, Scalar::I32, {I(-1), I(1)}), -1);
  EXPECT_EQ(evalI(Opcode::Min, Scalar::U32, {I(0xFFFFFFFF), I(1)}), 1);
  EXPECT_EQ(evalI(Opcode::Max, Scalar::U32, {I(0xFFFFFFFF), I(1)}), 0xFFFFFFFF);
  EXPECT_EQ(evalI(Opcode::Max, Scalar::I8, {I(-128), I(127)}), 127);
  EXPECT_EQ(evalI(Opcode::UMulHi, Scalar::U32, {I(0xFFFFFFFF), I(0xFFFFFFFF)}), 0xFFFFFFFE);
  EXPECT_EQ(evalI(Opcode::UMulHi, Scalar::I32, {I(-1), I(2)}), 1);  // operands read as unsigned
  EXPECT_EQ(evalI(Opcode::UMulHi, Scalar::I32, {I(-1), I(-1)}), -2);
  EXPECT_EQ(eval(Opcode::UMulHi, Scalar::U64, {I(-1), I(-1)}).u, 0xFFFFFFFFFFFFFFFEull);
  EXPECT_TRUE(cmp(Scalar::I32, "lt", I(-1), I(1)));
  EXPECT_FALSE(cmp(Scalar::U32, "lt", I(0xFFFFFFFF), I(1)));
  EXPECT_TRUE(cmp(Scalar::U64, "gt", I(-1), I(1)));
  EXPECT_TRUE(cmp(Scalar::I8, "ge", I(5), I(5)));
  EXPECT_FALSE(cmp(Scalar::I8, "ne", I(5), I(5)));
  EXPECT_TRUE(cmp(Scalar::I1, "gt", I(1), I(0)));
  EXPECT_EQ(evalI(Opcode::Select, Scalar::I32, {I(1), I(10), I(20)}), 10);
  EXPECT_EQ(evalI(Opcode::Select, Scalar::I32, {I(0), I(10), I(20)}), 20);
}

// ---------------------------------------------------------------- floats

TEST(Floats, MinMaxNaNAndSignedZero) {
  std::vector<Attr> prop = {Attr{"propagate_nan", int64_t(1)}};
  EXPECT_EQ(evalF(Opcode::Min, Scalar::F32, {F(kNaN), F(1)}), 1);
  EXPECT_EQ(evalF(Opcode::Max, Scalar::F32, {F(1), F(kNaN)}), 1);
  EXPECT_TRUE(std::isnan(evalF(Opcode::Max, Scalar::F32, {F(kNaN), F(kNaN)})));
  EXPECT_TRUE(std::isnan(evalF(Opcode::Min, Scalar::F32, {F(kNaN), F(1)}, prop)));
  EXPECT_TRUE(std::isnan(evalF(Opcode::Max, Scalar::F16, {F(1), F(kNaN)}, prop)));
  EXPECT_EQ(evalF(Opcode::Max, Scalar::F32, {F(1), F(2)}, prop), 2);
  EXPECT_TRUE(std::signbit(evalF(Opcode::Min, Scalar::F32, {F(0.0), F(-0.0)})));
  EXPECT_TRUE(std::signbit(evalF(Opcode::Min, Scalar::F32, {F(-0.0), F(0.0)})));
  EXPECT_FALSE(std::signbit(evalF(Opcode::Max, Scalar::F32, {F(-0.0), F(0.0)})));
  EXPECT_FALSE(std::signbit(evalF(Opcode::Max, Scalar::F32, {F(0.0), F(-0.0)})));
}

TEST(Floats, CompareNaN) {
  EXPECT_FALSE(cmp(Scalar::F32, "eq", F(kNaN), F(kNaN)));
  EXPECT_TRUE(cmp(Scalar::F32, "ne", F(kNaN), F(kNaN)));  // unordered or not equal, like Python
  EXPECT_TRUE(cmp(Scalar::F32, "ne", F(kNaN), F(1)));
  EXPECT_FALSE(cmp(Scalar::F32, "lt", F(kNaN), F(1)));
  EXPECT_FALSE(cmp(Scalar::F32, "ge", F(kNaN), F(1)));
  EXPECT_FALSE(cmp(Scalar::F32, "le", F(1), F(kNaN)));
  EXPECT_TRUE(cmp(Scalar::F32, "eq", F(0.0), F(-0.0)));
  EXPECT_TRUE(cmp(Scalar::F16, "lt", F(-kInf), F(-65504)));
}

// pow and hypot see every NaN as quiet, as the GPU (which quiets NaNs as it widens them) does: a signaling
// f16 NaN (quiet bit clear) still gives pow(NaN, 0) = 1, pow(1, NaN) = 1 and hypot(inf, NaN) = inf.
TEST(Floats, PowAndHypotTakeSignalingNaNsAsQuiet) {
  for (uint64_t bits : {uint64_t(0x7C97), uint64_t(0xFC1A), uint64_t(0x7E00)}) {
    Elem nan = fromBits(Scalar::F16, bits);
    ASSERT_TRUE(std::isnan(nan.f));
    EXPECT_EQ(evalF(Opcode::Pow, Scalar::F16, {nan, F(0.0)}), 1.0) << std::hex << bits;
    EXPECT_EQ(evalF(Opcode::Pow, Scalar::F16, {nan, F(-0.0)}), 1.0) << std::hex << bits;
    EXPECT_EQ(evalF(Opcode::Pow, Scalar::F16, {F(1.0), nan}), 1.0) << std::hex << bits;
    EXPECT_EQ(evalF(Opcode::Hypot, Scalar::F16, {F(-kInf), nan}), kInf) << std::hex << bits;
    EXPECT_EQ(evalF(Opcode::Hypot, Scalar::F16, {nan, F(kInf)}), kInf) << std::hex << bits;
    EXPECT_TRUE(std::isnan(evalF(Opcode::Pow, Scalar::F16, {nan, F(2.0)})));
  }
}

TEST(Floats, ArithmeticRoundsToTheType) {
  EXPECT_EQ(evalF(Opcode::Add, Scalar::F16, {F(2048), F(1)}), 2048);
  EXPECT_EQ(evalF(Opcode::Add, Scalar::F16, {F(1), F(std::ldexp(1, -11))}), 1);
  EXPECT_EQ(evalF(Opcode::Mul, Scalar::F16, {F(256), F(256)}), kInf);
  EXPECT_EQ(evalF(Opcode::Div, Scalar::F32, {F(1), F(3)}), double(1.0f / 3.0f));
  EXPECT_EQ(evalF(Opcode::Div, Scalar::F64, {F(1), F(3)}), 1.0 / 3.0);
  EXPECT_EQ(evalF(Opcode::Div, Scalar::F32, {F(1), F(0)}), kInf);
  EXPECT_TRUE(std::isnan(evalF(Opcode::Div, Scalar::F32, {F(0), F(0)})));
  EXPECT_EQ(evalF(Opcode::Rem, Scalar::F32, {F(-7.5), F(2)}), -1.5);  // fmod: sign of the dividend
  EXPECT_EQ(evalF(Opcode::Add, Scalar::BF16, {F(1), F(std::ldexp(1, -8))}), 1);
  EXPECT_EQ(evalF(Opcode::Sqrt, Scalar::F32, {F(2)}), double(std::sqrt(2.0f)));
  EXPECT_EQ(evalF(Opcode::Exp, Scalar::F16, {F(1)}), roundToF16(std::exp(1.0)));
  EXPECT_EQ(evalF(Opcode::Rsqrt, Scalar::F32, {F(4)}), 0.5);
  EXPECT_EQ(evalF(Opcode::Floor, Scalar::F32, {F(-1.5)}), -2);
  EXPECT_EQ(evalF(Opcode::Ceil, Scalar::F32, {F(-1.5)}), -1);
  EXPECT_EQ(evalF(Opcode::Neg, Scalar::F32, {F(0.0)}), 0.0);
  EXPECT_TRUE(std::signbit(evalF(Opcode::Neg, Scalar::F32, {F(0.0)})));
  EXPECT_EQ(evalF(Opcode::Abs, Scalar::F16, {F(-3)}), 3);
  EXPECT_TRUE(std::isnan(evalF(Opcode::Log, Scalar::F32, {F(-1)})));
  EXPECT_EQ(evalF(Opcode::Exp2, Scalar::F32, {F(10)}), 1024);
}

TEST(Floats, FmaRoundsOnce) {
  double a = 1 + std::ldexp(1, -12);
  // f32: (1+2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; a rounded product would lose the 2^-24.
  EXPECT_EQ(evalF(Opcode::Fma, Scalar::F32, {F(a), F(a), F(-1)}), std::ldexp(1, -11) + std::ldexp(1, -24));
  double p = evalF(Opcode::Mul, Scalar::F32, {F(a), F(a)});
  EXPECT_EQ(evalF(Opcode::Sub, Scalar::F32, {F(p), F(1)}), std::ldexp(1, -11));
  // f16: (1+2^-10)(1+2^-9) - 1 keeps its 2^-19 term only when rounded once.
  double x = 1 + std::ldexp(1, -10), y = 1 + std::ldexp(1, -9);
  EXPECT_EQ(evalF(Opcode::Fma, Scalar::F16, {F(x), F(y), F(-1)}), 3 * std::ldexp(1, -10) + std::ldexp(1, -19));
  EXPECT_EQ(fmaTo(Scalar::F64, 0.1, 10, -1), std::fma(0.1, 10, -1));
  EXPECT_EQ(fmaTo(Scalar::BF16, 3, 5, 1), 16);
}

TEST(Floats, OpsRejectWrongTypes) {
  Op andOp(Opcode::And, SourceLoc{});
  ElementwiseFn fn;
  EXPECT_THROW(decodeElementwise(andOp, Scalar::F32, fn), InternalError);
  Op expOp(Opcode::Exp, SourceLoc{});
  EXPECT_THROW(decodeElementwise(expOp, Scalar::I32, fn), InternalError);
  Op cmpOp(Opcode::Cmp, SourceLoc{});
  cmpOp.setAttr("pred", std::string("lessthan"));
  EXPECT_THROW(decodeElementwise(cmpOp, Scalar::I32, fn), InternalError);
  Op load(Opcode::Load, SourceLoc{});
  EXPECT_FALSE(decodeElementwise(load, Scalar::F32, fn));
  Op cast(Opcode::Cast, SourceLoc{});
  EXPECT_FALSE(decodeElementwise(cast, Scalar::F32, fn));
}

// ---------------------------------------------------------------- conversions and bitcasts

TEST(Convert, FloatToIntSaturatesAndNaNIsZero) {
  EXPECT_EQ(convert(Scalar::F32, Scalar::I32, F(3e9)).i, INT32_MAX);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I32, F(-3e9)).i, INT32_MIN);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I32, F(kInf)).i, INT32_MAX);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I32, F(kNaN)).i, 0);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I32, F(-1.75)).i, -1);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I32, F(2147483520.0)).i, 2147483520);
  EXPECT_EQ(convert(Scalar::F32, Scalar::U8, F(-5)).i, 0);
  EXPECT_EQ(convert(Scalar::F32, Scalar::U8, F(300)).i, 255);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I8, F(-300)).i, -128);
  EXPECT_EQ(convert(Scalar::F64, Scalar::I64, F(1e19)).i, INT64_MAX);
  EXPECT_EQ(convert(Scalar::F64, Scalar::U64, F(1e19)).u, 10000000000000000000ull);
  EXPECT_EQ(convert(Scalar::F64, Scalar::U64, F(1e20)).u, UINT64_MAX);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I1, F(0.5)).i, 1);
  EXPECT_EQ(convert(Scalar::F32, Scalar::I1, F(-0.0)).i, 0);
}

TEST(Convert, IntToFloatRoundsOnce) {
  EXPECT_EQ(convert(Scalar::I32, Scalar::F16, I(65520)).f, kInf);
  EXPECT_EQ(convert(Scalar::I32, Scalar::F16, I(2049)).f, 2048);
  EXPECT_EQ(convert(Scalar::I32, Scalar::F16, I(2049), /*rtz=*/false).f, 2048);
  EXPECT_EQ(convert(Scalar::I32, Scalar::F16, I(70000), /*rtz=*/true).f, 65504);
  // 2^60 + 2^36 + 1: just above the f32 tie; a trip through double would drop the 1 and round down.
  int64_t v = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
  EXPECT_EQ(convert(Scalar::I64, Scalar::F32, I(v)).f, std::ldexp(1, 60) + std::ldexp(1, 37));
  EXPECT_EQ(convert(Scalar::U64, Scalar::F32, I(-1)).f, std::ldexp(1, 64));
  EXPECT_EQ(convert(Scalar::I64, Scalar::F64, I(INT64_MIN)).f, -std::ldexp(1, 63));
  EXPECT_EQ(convert(Scalar::U32, Scalar::F32, I(0xFFFFFFFF)).f, std::ldexp(1, 32));
  EXPECT_EQ(convert(Scalar::I8, Scalar::F32, I(-128)).f, -128);
  EXPECT_EQ(convert(Scalar::I1, Scalar::F32, I(1)).f, 1);
  EXPECT_EQ(convert(Scalar::I32, Scalar::F8E4M3, I(1000)).f, 448);
}

TEST(Convert, IntToIntAndFloatToFloat) {
  EXPECT_EQ(convert(Scalar::I32, Scalar::I8, I(300)).i, 44);
  EXPECT_EQ(convert(Scalar::I8, Scalar::U32, I(-1)).i, 0xFFFFFFFF);
  EXPECT_EQ(convert(Scalar::U8, Scalar::I32, I(255)).i, 255);
  EXPECT_EQ(convert(Scalar::I32, Scalar::I1, I(2)).i, 1);  // to bool: != 0
  EXPECT_EQ(convert(Scalar::I32, Scalar::I1, I(0)).i, 0);
  EXPECT_EQ(convert(Scalar::U32, Scalar::I64, I(0xFFFFFFFF)).i, 0xFFFFFFFF);
  EXPECT_EQ(convert(Scalar::F32, Scalar::F16, F(65520)).f, kInf);
  EXPECT_EQ(convert(Scalar::F32, Scalar::F16, F(65520), /*rtz=*/true).f, 65504);
  EXPECT_EQ(convert(Scalar::F32, Scalar::F8E4M3, F(500)).f, 448);
  EXPECT_EQ(convert(Scalar::F16, Scalar::F32, F(std::ldexp(1, -24))).f, std::ldexp(1, -24));
  EXPECT_EQ(convert(Scalar::F64, Scalar::BF16, F(kInf)).f, kInf);
  EXPECT_TRUE(std::isnan(convert(Scalar::F32, Scalar::F8E5M2, F(kNaN)).f));
  EXPECT_EQ(convert(Scalar::Ptr, Scalar::I64, I(0x1000)).i, 0x1000);
  EXPECT_EQ(convert(Scalar::I64, Scalar::Ptr, I(0x2000)).u, 0x2000u);
}

TEST(Bitcast, ThroughTheBitPattern) {
  EXPECT_EQ(bitcast(Scalar::F32, Scalar::I32, F(1.0)).i, 0x3F800000);
  EXPECT_EQ(bitcast(Scalar::F32, Scalar::I32, F(-2.0)).i, int32_t(0xC0000000));  // sign-extended
  EXPECT_EQ(bitcast(Scalar::F32, Scalar::U32, F(-2.0)).i, 0xC0000000);
  EXPECT_EQ(bitcast(Scalar::I32, Scalar::F32, I(0x3F800000)).f, 1.0);
  EXPECT_EQ(bitcast(Scalar::I32, Scalar::F32, I(1)).f, double(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(bitcast(Scalar::F16, Scalar::I16, F(-2.0)).i, -16384);
  EXPECT_EQ(bitcast(Scalar::I16, Scalar::F16, I(0x3C00)).f, 1.0);
  EXPECT_EQ(bitcast(Scalar::BF16, Scalar::U16, F(1.0)).i, 0x3F80);
  EXPECT_EQ(bitcast(Scalar::F8E4M3, Scalar::I8, F(-448)).i, int8_t(0xFE));
  EXPECT_EQ(bitcast(Scalar::F64, Scalar::I64, F(1.0)).i, 0x3FF0000000000000);
  EXPECT_EQ(bitcast(Scalar::Ptr, Scalar::I64, I(0x1234)).i, 0x1234);
  EXPECT_EQ(bitcast(Scalar::I64, Scalar::Ptr, I(-8)).u, 0xFFFFFFFFFFFFFFF8ull);
  // A signalling f32 NaN keeps its payload through f32 -> element -> i32.
  EXPECT_EQ(bitcast(Scalar::F32, Scalar::I32, bitcast(Scalar::I32, Scalar::F32, I(0x7F800001))).i, 0x7F800001);
  EXPECT_EQ(bitcast(Scalar::F32, Scalar::U32, bitcast(Scalar::U32, Scalar::F32, I(0xFFC00123))).i, 0xFFC00123);
}

}  // namespace
}  // namespace kiln::ir
