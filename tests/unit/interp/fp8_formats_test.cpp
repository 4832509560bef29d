// The five fp8 formats of ir/scalar_eval against references written here from the formats' definitions
// alone: every one of the 256 bit patterns decoded, encoded back, and conversions from f32 and f16
// checked against a brute-force nearest search over the format's values (docs/semantics.md, fp8).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ir/scalar_eval.h"

namespace kiln::ir {
namespace {

// What a bit pattern means: sign, `ebits` exponent bits with `bias`, `mant` mantissa bits, and
// the format's special patterns.
enum class Nan { Ieee, AllOnes, NegZero, None };
struct Def {
  Scalar t;
  int ebits, mant, bias;
  Nan nan;
};
constexpr Def kDefs[] = {
    {Scalar::F8E4M3, 4, 3, 7, Nan::AllOnes},   {Scalar::F8E5M2, 5, 2, 15, Nan::Ieee},
    {Scalar::F8E4B15, 4, 3, 15, Nan::None},    {Scalar::F8E4B8, 4, 3, 8, Nan::NegZero},
    {Scalar::F8E5B16, 5, 2, 16, Nan::NegZero},
};

// The value of pattern b (NaN for the NaN patterns).
double valueOf(const Def& d, unsigned b) {
  unsigned s = b >> 7, e = (b >> d.mant) & ((1u << d.ebits) - 1), m = b & ((1u << d.mant) - 1);
  unsigned eTop = (1u << d.ebits) - 1;
  if (d.nan == Nan::NegZero && b == 0x80) return NAN;
  if (d.nan == Nan::AllOnes && e == eTop && m == (1u << d.mant) - 1) return NAN;
  if (d.nan == Nan::Ieee && e == eTop) return m ? NAN : (s ? -INFINITY : INFINITY);
  double frac = double(m) / double(1u << d.mant);
  double v = e == 0 ? std::pow(2.0, 1 - d.bias) * frac : std::pow(2.0, int(e) - d.bias) * (1 + frac);
  return s ? -v : v;
}

uint64_t bitsOfDouble(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

TEST(Fp8Formats, EveryPatternDecodesAndEncodesBack) {
  for (const Def& d : kDefs) {
    for (unsigned b = 0; b < 256; ++b) {
      double want = valueOf(d, b);
      double got = fromBits(d.t, b).f;
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << name(d.t) << " 0x" << std::hex << b;
      } else {
        EXPECT_EQ(bitsOfDouble(got), bitsOfDouble(want)) << name(d.t) << " 0x" << std::hex << b << ": " << got
                                                         << " vs " << want;
      }
      // Every pattern survives decode -> encode (NaN patterns included: the format's own NaN bits).
      EXPECT_EQ(toBits(d.t, fromBits(d.t, b)), b) << name(d.t) << " 0x" << std::hex << b;
    }
  }
}

TEST(Fp8Formats, DefinitionFacts) {
  EXPECT_EQ(fromBits(Scalar::F8E4B15, 0x7F).f, 1.875);   // no NaN: the top pattern is a number
  EXPECT_EQ(fromBits(Scalar::F8E4B15, 0x01).f, std::ldexp(1.0, -17));
  EXPECT_EQ(fromBits(Scalar::F8E4B8, 0x7F).f, 240.0);
  EXPECT_EQ(fromBits(Scalar::F8E5B16, 0x7F).f, 57344.0);
  EXPECT_EQ(fromBits(Scalar::F8E5B16, 0x01).f, std::ldexp(1.0, -17));
  EXPECT_TRUE(std::isnan(fromBits(Scalar::F8E4B8, 0x80).f));
}

// The reference conversion of x: the nearest of the format's finite values after its clamp; ties
// to the even pattern (ties away from zero for fp8e4b15, Triton's conversion).
uint64_t referenceBits(const Def& d, double x) {
  if (d.t == Scalar::F8E4B15) {
    if (std::isnan(x)) return std::signbit(x) ? 0xFE : 0x7E;  // +-1.75
    x = std::copysign(std::min(std::fabs(x), 1.75), x);
  } else if (std::isnan(x)) {
    return d.nan == Nan::NegZero ? 0x80 : 0xFF;  // unused for the Ieee/AllOnes formats below
  } else if (d.nan == Nan::NegZero) {  // saturating: beyond the max (inf too) is the max
    x = std::copysign(std::min(std::fabs(x), valueOf(d, 0x7F)), x);
  }
  unsigned best = 0;
  double bestErr = INFINITY;
  for (unsigned b = 0; b < 256; ++b) {
    double v = valueOf(d, b);
    if (!std::isfinite(v)) continue;
    if (v == 0 && std::signbit(v) != std::signbit(x) && d.nan != Nan::NegZero) continue;  // keep the sign of 0
    double err = std::fabs(x - v);
    bool better = err < bestErr;
    if (err == bestErr && v != valueOf(d, best)) {
      if (d.t == Scalar::F8E4B15) better = std::fabs(v) > std::fabs(valueOf(d, best));
      else better = (b & 1) == 0;
    }
    if (better) bestErr = err, best = b;
  }
  return best;
}

std::vector<double> probeValues(const Def& d) {
  std::vector<double> xs = {0.0, -0.0, INFINITY, -INFINITY, 1e30, -1e30, 1e-30, -1e-30, NAN, -NAN};
  std::vector<double> vals;
  for (unsigned b = 0; b < 256; ++b)
    if (std::isfinite(valueOf(d, b))) vals.push_back(valueOf(d, b));
  std::sort(vals.begin(), vals.end());
  for (size_t i = 0; i + 1 < vals.size(); ++i) {
    double mid = (vals[i] + vals[i + 1]) / 2;  // every tie, and its f32 neighbours
    xs.push_back(vals[i]);
    xs.push_back(mid);
    xs.push_back(std::nextafter(float(mid), INFINITY));
    xs.push_back(std::nextafter(float(mid), -INFINITY));
  }
  std::mt19937 rng(15);
  for (int i = 0; i < 3000; ++i) {
    uint32_t r = rng();
    float f;
    std::memcpy(&f, &r, 4);
    if (std::isfinite(f)) xs.push_back(std::ldexp(double(f), -std::ilogb(f) + int(rng() % 40) - 24));
  }
  return xs;
}

TEST(Fp8Formats, ConversionsFromF32MatchTheNearestValue) {
  for (const Def& d : kDefs) {
    if (d.t == Scalar::F8E4M3 || d.t == Scalar::F8E5M2) continue;  // their own tests: scalar_eval_test
    size_t wrong = 0;
    for (double x : probeValues(d)) {
      double xf = double(float(x));
      if (std::isnan(x)) xf = x;
      uint64_t got = toBits(d.t, convert(Scalar::F32, d.t, floatElem(xf)));
      uint64_t want = referenceBits(d, xf);
      if (got != want && wrong++ < 5)
        ADD_FAILURE() << name(d.t) << " of " << xf << ": 0x" << std::hex << got << ", want 0x" << want;
    }
    EXPECT_EQ(wrong, 0u) << name(d.t);
  }
}

TEST(Fp8Formats, E4B15FromF16IsTritonsBitConversion) {
  // Triton's NVIDIA code: |h| clamped to 0x3F00 (1.75) by min, doubled, plus 0x80, high byte, sign.
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t a = std::min<uint32_t>(h & 0x7FFF, 0x3F00);
    uint32_t want = (((a << 1) + 0x80) >> 8) | ((h >> 8) & 0x80);
    Elem v = fromBits(Scalar::F16, h);
    EXPECT_EQ(toBits(Scalar::F8E4B15, convert(Scalar::F16, Scalar::F8E4B15, v)), want) << std::hex << h;
  }
}

TEST(Fp8Formats, FnuzHasNoNegativeZeroAndSaturates) {
  for (Scalar t : {Scalar::F8E4B8, Scalar::F8E5B16}) {
    EXPECT_EQ(toBits(t, convert(Scalar::F32, t, floatElem(-0.0))), 0u);
    EXPECT_EQ(toBits(t, convert(Scalar::F32, t, floatElem(-1e-30))), 0u);
    EXPECT_EQ(toBits(t, convert(Scalar::F32, t, floatElem(NAN))), 0x80u);
    EXPECT_EQ(toBits(t, convert(Scalar::F32, t, floatElem(INFINITY))), 0x7Fu);
    EXPECT_EQ(toBits(t, convert(Scalar::F32, t, floatElem(-INFINITY))), 0xFFu);
    EXPECT_EQ(toBits(t, convert(Scalar::F32, t, floatElem(1e9), true)), 0x7Fu);  // toward zero too
    EXPECT_EQ(toBits(t, convert(Scalar::I32, t, intElem(-100000))), 0xFFu);
  }
  // Round-trips through f16 and f32 are exact for every finite value.
  for (const Def& d : kDefs)
    for (unsigned b = 0; b < 256; ++b) {
      Elem v = fromBits(d.t, b);
      if (std::isnan(v.f) || std::isinf(v.f)) continue;
      if (d.t == Scalar::F8E4B15 && (b & 0x7F) == 0x7F) {  // +-1.875: converting clamps to +-1.75
        EXPECT_EQ(toBits(d.t, convert(Scalar::F32, d.t, convert(d.t, Scalar::F32, v))), b - 1);
        continue;
      }
      for (Scalar wide : {Scalar::F16, Scalar::F32})
        EXPECT_EQ(toBits(d.t, convert(wide, d.t, convert(d.t, wide, v))), b) << name(d.t) << " " << b;
    }
}

}  // namespace
}  // namespace kiln::ir
