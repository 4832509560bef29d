// Conversions and rounding between element types (see scalar_eval.h and docs/semantics.md): float
// rounding to f16/bf16/fp8/tf32 by bit manipulation, int<->float conversions, bit patterns, bitcasts.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "ir/scalar_eval.h"
#include "ir/scalar_int.h"
#include "support/diagnostic.h"

namespace kiln::ir {

using detail::widthMask;
using detail::wrapInt;

namespace {

// ---------------------------------------------------------------- float formats

enum class Round { NearestEven, TowardZero, NearestAway, Down, Up };

// A binary floating-point format and what its top exponent and negative zero mean:
// - Ieee: inf and NaNs at the top exponent (f16, bf16, f32, f64, fp8 e5m2);
// - AllOnesNan: no inf, S.1111.111 the only NaNs, overflow saturates (fp8 e4m3, the "fn" variant);
// - NegZeroNan: no inf, no -0: 0x80 is the one NaN, overflow saturates (the "fnuz" fp8e4b8, fp8e5b16);
// - NoNan: every pattern a finite number (Triton's fp8e4b15); conversions to it are roundToF8E4B15's.
enum class Special { Ieee, AllOnesNan, NegZeroNan, NoNan };
struct Format {
  int ebits, mant, bias_;
  Special special;
  double maxFinite;
  bool hasInf() const { return special == Special::Ieee; }
  int bias() const { return bias_; }
  int emin() const { return 1 - bias_; }
};
constexpr Format kF16{5, 10, 15, Special::Ieee, 65504.0};
constexpr Format kBF16{8, 7, 127, Special::Ieee, 0x1.FEp127};
constexpr Format kF32{8, 23, 127, Special::Ieee, 0x1.FFFFFEp127};
constexpr Format kTF32{8, 10, 127, Special::Ieee, 0x1.FFCp127};
constexpr Format kE4M3{4, 3, 7, Special::AllOnesNan, 448.0};
constexpr Format kE5M2{5, 2, 15, Special::Ieee, 57344.0};
constexpr Format kE4B15{4, 3, 15, Special::NoNan, 1.875};
constexpr Format kE4B8{4, 3, 8, Special::NegZeroNan, 240.0};
constexpr Format kE5B16{5, 2, 16, Special::NegZeroNan, 57344.0};
constexpr Format kF64{11, 52, 1023, Special::Ieee, 0x1.FFFFFFFFFFFFFp1023};

const Format& formatOf(Scalar t) {
  switch (t) {
    case Scalar::F8E4M3: return kE4M3;
    case Scalar::F8E5M2: return kE5M2;
    case Scalar::F8E4B15: return kE4B15;
    case Scalar::F8E4B8: return kE4B8;
    case Scalar::F8E5B16: return kE5B16;
    case Scalar::F16: return kF16;
    case Scalar::BF16: return kBF16;
    case Scalar::F32: return kF32;
    case Scalar::F64: return kF64;
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64: case Scalar::Ptr: break;
  }
  throw InternalError({}, "not a float type: " + std::string(name(t)));
}

uint64_t dblBits(double x) { return std::bit_cast<uint64_t>(x); }
double dblFromBits(uint64_t b) { return std::bit_cast<double>(b); }

// Rounds sig * 2^exp2 (sig != 0) to format f. The quantum is 2^(max(e, emin) - mant) where e is
// the value's exponent, so subnormals lose bits exactly as the format does.
double roundSig(bool neg, uint64_t sig, int exp2, const Format& f, Round mode) {
  int e = 63 - std::countl_zero(sig) + exp2;
  int q = std::max(e, f.emin()) - f.mant;
  int shift = q - exp2;
  double mag;
  if (shift <= 0) {
    mag = std::ldexp(double(sig), exp2);  // exact: sig has at most mant+1 significant bits here
  } else {
    uint64_t keep = 0, rem = sig, half = 0;
    bool aboveHalf = false, isHalf = false;
    if (shift <= 63) {
      keep = sig >> shift;
      rem = sig & ((uint64_t(1) << shift) - 1);
      half = uint64_t(1) << (shift - 1);
      aboveHalf = rem > half;
      isHalf = rem == half;
    } else if (shift == 64) {
      half = uint64_t(1) << 63;
      aboveHalf = rem > half;
      isHalf = rem == half;
    }
    switch (mode) {
      case Round::NearestEven: keep += (aboveHalf || (isHalf && (keep & 1))) ? 1 : 0; break;
      case Round::NearestAway: keep += (aboveHalf || isHalf) ? 1 : 0; break;
      case Round::TowardZero: break;
      case Round::Down: keep += (neg && rem != 0) ? 1 : 0; break;  // a magnitude grows toward -inf when negative
      case Round::Up: keep += (!neg && rem != 0) ? 1 : 0; break;
    }
    mag = std::ldexp(double(keep), q);  // keep <= 2^(mant+1): exact
  }
  if (mag > f.maxFinite) {
    bool towardInf = mode != Round::TowardZero && !(mode == Round::Down && !neg) && !(mode == Round::Up && neg);
    mag = (!towardInf || !f.hasInf()) ? f.maxFinite : HUGE_VAL;
  }
  if (mag == 0 && f.special == Special::NegZeroNan) return 0.0;  // no -0: the pattern 0x80 is NaN
  return neg ? -mag : mag;
}

uint64_t encode(double x, const Format& f);
double decode(uint64_t bits, const Format& f);

double roundDouble(double x, const Format& f, Round mode) {
  if (std::isnan(x)) return decode(encode(x, f), f);  // keeps the payload bits the format holds
  if (std::isinf(x)) return f.hasInf() ? x : std::copysign(f.maxFinite, x);
  if (x == 0) return f.special == Special::NegZeroNan ? 0.0 : x;
  uint64_t b = dblBits(x);
  int ef = int((b >> 52) & 0x7FF);
  uint64_t m = b & ((uint64_t(1) << 52) - 1);
  uint64_t sig = ef == 0 ? m : (m | (uint64_t(1) << 52));
  int exp2 = ef == 0 ? -1074 : ef - 1075;
  return roundSig(b >> 63, sig, exp2, f, mode);
}

// The bit pattern of x (already representable in f, or NaN/inf) in format f.
uint64_t encode(double x, const Format& f) {
  uint64_t b = dblBits(x);
  uint64_t sign = (b >> 63) << (f.ebits + f.mant);
  uint64_t expOnes = (uint64_t(1) << f.ebits) - 1;
  uint64_t manMask = (uint64_t(1) << f.mant) - 1;
  if (std::isnan(x) || (std::isinf(x) && !f.hasInf())) {
    switch (f.special) {
      case Special::AllOnesNan: return sign | (expOnes << f.mant) | manMask;
      case Special::NegZeroNan: return uint64_t(1) << (f.ebits + f.mant);
      case Special::NoNan: throw InternalError({}, "fp8e4b15 has no NaN or inf to encode");
      case Special::Ieee: break;
    }
    uint64_t payload = ((b & ((uint64_t(1) << 52) - 1)) >> (52 - f.mant)) & manMask;
    if (payload == 0) payload = uint64_t(1) << (f.mant - 1);  // keep it a NaN: set the quiet bit
    return sign | (expOnes << f.mant) | payload;
  }
  if (std::isinf(x)) return sign | (expOnes << f.mant);
  if (f.special == Special::NegZeroNan) sign = 0;  // no negative numbers round to -0 here
  if (x == 0) return sign;
  double a = std::fabs(x);
  int e = std::ilogb(a);
  if (e >= f.emin()) {
    uint64_t man = uint64_t(std::ldexp(a, f.mant - e)) & manMask;
    return ((b >> 63) << (f.ebits + f.mant)) | (uint64_t(e + f.bias()) << f.mant) | man;
  }
  return ((b >> 63) << (f.ebits + f.mant)) | uint64_t(std::ldexp(a, f.mant - f.emin()));
}

double decode(uint64_t bits, const Format& f) {
  bool neg = (bits >> (f.ebits + f.mant)) & 1;
  int expOnes = (1 << f.ebits) - 1;
  int ef = int((bits >> f.mant) & uint64_t(expOnes));
  uint64_t man = bits & ((uint64_t(1) << f.mant) - 1);
  double mag;
  bool topIsSpecial = f.hasInf() || (f.special == Special::AllOnesNan && man == (uint64_t(1) << f.mant) - 1);
  if (f.special == Special::NegZeroNan && neg && ef == 0 && man == 0)  // 0x80: the fnuz NaN
    return dblFromBits((uint64_t(0x7FF) << 52) | (uint64_t(1) << 51));
  if (ef == expOnes && topIsSpecial) {
    if (f.hasInf() && man == 0) {
      mag = HUGE_VAL;
    } else {  // NaN: the payload goes to the top of the double's mantissa (as hardware converts)
      uint64_t payload = f.hasInf() ? man << (52 - f.mant) : uint64_t(1) << 51;
      return dblFromBits((uint64_t(neg) << 63) | (uint64_t(0x7FF) << 52) | payload);
    }
  } else if (ef == 0) {
    mag = std::ldexp(double(man), f.emin() - f.mant);
  } else {
    mag = std::ldexp(double(man | (uint64_t(1) << f.mant)), ef - f.bias() - f.mant);
  }
  return neg ? -mag : mag;
}

// ---------------------------------------------------------------- integers <-> floats

// An integer value as sign and magnitude (for exact int -> float rounding).
void signMagnitude(Scalar t, Elem v, bool& neg, uint64_t& mag) {
  neg = isSigned(t) && v.i < 0;
  mag = neg ? uint64_t(0) - v.u : v.u;
}

Elem floatToInt(Scalar to, double x) {
  if (to == Scalar::I1) return intElem(x != 0);
  if (std::isnan(x)) return intElem(0);
  double t = std::trunc(x);
  int w = bitWidth(to);
  if (isSigned(to)) {
    double lim = std::ldexp(1.0, w - 1);
    if (t >= lim) return wrapInt(to, (uint64_t(1) << (w - 1)) - 1);
    if (t < -lim) return wrapInt(to, uint64_t(1) << (w - 1));
    return wrapInt(to, uint64_t(int64_t(t)));
  }
  if (t <= 0) return intElem(0);
  if (t >= std::ldexp(1.0, w)) return wrapInt(to, ~uint64_t(0));
  Elem e;
  e.u = uint64_t(t);
  return e;
}

// a*b+c with a, b, c floats of at most 26 significant bits: the product is exact in double;
// the sum is rounded to odd, after which one more rounding to <= 51 bits is a correct rounding.
double fmaRoundToOdd(double a, double b, double c) {
  double p = a * b;
  double s = p + c;
  if (!std::isfinite(s)) return s;
  double bb = s - p;
  double err = (p - (s - bb)) + (c - bb);
  if (err == 0) return s;
  double t = (err > 0) == (s > 0) ? s : std::nextafter(s, 0.0);
  uint64_t tb = dblBits(t);
  return dblFromBits(tb | 1);
}

}  // namespace

// ---------------------------------------------------------------- public rounding helpers

double roundToF16(double x) { return roundDouble(x, kF16, Round::NearestEven); }
double roundToBF16(double x) { return roundDouble(x, kBF16, Round::NearestEven); }
double roundToF32(double x) {
  if (std::isnan(x)) return roundDouble(x, kF32, Round::NearestEven);
  return double(float(x));  // IEEE conversion: nearest even, overflow to inf
}
double roundToTF32(double x) { return roundDouble(x, kTF32, Round::NearestAway); }
double truncateToTF32(double x) { return roundDouble(x, kTF32, Round::TowardZero); }
double roundToF8E4M3(double x) { return roundDouble(x, kE4M3, Round::NearestEven); }
double roundToF8E5M2(double x) { return roundDouble(x, kE5M2, Round::NearestEven); }
double roundToF8E4B15(double x) {
  if (std::isnan(x)) return std::signbit(x) ? -1.75 : 1.75;
  double a = std::min(std::fabs(x), 1.75);  // the clamp comes first: (1.75, 1.875) gives 1.75
  if (a == 0) return x;
  uint64_t b = dblBits(a);
  int ef = int((b >> 52) & 0x7FF);
  uint64_t m = b & ((uint64_t(1) << 52) - 1);
  uint64_t sig = ef == 0 ? m : (m | (uint64_t(1) << 52));
  return roundSig(std::signbit(x), sig, ef == 0 ? -1074 : ef - 1075, kE4B15, Round::NearestAway);
}

double roundTo(Scalar t, double x, bool rtz) {
  if (t == Scalar::F64) return x;
  if (t == Scalar::F8E4B15) {  // a value of the type stays (1.875 too); anything else converts (sema refuses rtz)
    if (std::fabs(x) <= kE4B15.maxFinite && roundDouble(x, kE4B15, Round::NearestEven) == x) return x;
    return roundToF8E4B15(x);
  }
  if (t == Scalar::F32 && !rtz) return roundToF32(x);
  return roundDouble(x, formatOf(t), rtz ? Round::TowardZero : Round::NearestEven);
}

namespace {
Round roundOf(RoundMode m) {
  switch (m) {
    case RoundMode::NearestEven: return Round::NearestEven;
    case RoundMode::TowardZero: return Round::TowardZero;
    case RoundMode::Down: return Round::Down;
    case RoundMode::Up: return Round::Up;
  }
  return Round::NearestEven;
}
}  // namespace

double roundTo(Scalar t, double x, RoundMode mode) {
  if (mode == RoundMode::NearestEven || mode == RoundMode::TowardZero) return roundTo(t, x, mode == RoundMode::TowardZero);
  if (t == Scalar::F64) return x;
  if (t != Scalar::F32) throw InternalError({}, "rounding toward -inf or +inf to " + std::string(name(t)));
  return roundDouble(x, kF32, roundOf(mode));
}

double fmaTo(Scalar t, double a, double b, double c) {
  if (t == Scalar::F64) return std::fma(a, b, c);
  if (t == Scalar::F32) return double(std::fma(float(a), float(b), float(c)));
  return roundTo(t, fmaRoundToOdd(a, b, c));
}

// ---------------------------------------------------------------- normalize, convert, bits

Elem normalize(Scalar t, Elem v) {
  if (isFloat(t)) return floatElem(roundTo(t, v.f));
  if (t == Scalar::Ptr) return v;
  return wrapInt(t, v.u);
}

Elem convert(Scalar from, Scalar to, Elem v, bool rtz) {
  Scalar f = from == Scalar::Ptr ? Scalar::U64 : from;
  if (isFloat(f)) {
    if (to == Scalar::F8E4B15) return floatElem(roundToF8E4B15(v.f));  // Triton's conversion: clamps first
    if (isFloat(to)) return floatElem(roundTo(to, v.f, rtz));
    return floatToInt(to == Scalar::Ptr ? Scalar::U64 : to, v.f);
  }
  if (isFloat(to)) {
    bool neg;
    uint64_t mag;
    signMagnitude(f, v, neg, mag);
    if (mag == 0) return floatElem(0.0);
    if (to == Scalar::F8E4B15) return floatElem(roundToF8E4B15(neg ? -double(mag) : double(mag)));  // clamps
    return floatElem(roundSig(neg, mag, 0, formatOf(to), rtz ? Round::TowardZero : Round::NearestEven));
  }
  if (to == Scalar::I1) return intElem(v.u != 0);
  if (to == Scalar::Ptr) return v;
  return wrapInt(to, v.u);
}

Elem convert(Scalar from, Scalar to, Elem v, RoundMode mode) {
  if (mode == RoundMode::NearestEven || mode == RoundMode::TowardZero || !isFloat(to))
    return convert(from, to, v, mode == RoundMode::TowardZero);
  if (to != Scalar::F32 && to != Scalar::F64)
    throw InternalError({}, "rounding toward -inf or +inf to " + std::string(name(to)));
  Scalar f = from == Scalar::Ptr ? Scalar::U64 : from;
  if (isFloat(f)) return floatElem(roundTo(to, v.f, mode));
  bool neg;
  uint64_t mag;
  signMagnitude(f, v, neg, mag);
  if (mag == 0) return floatElem(0.0);
  return floatElem(roundSig(neg, mag, 0, formatOf(to), roundOf(mode)));
}

bool roundModeFromName(std::string_view n, RoundMode& out) {
  for (RoundMode m : {RoundMode::NearestEven, RoundMode::TowardZero, RoundMode::Down, RoundMode::Up})
    if (roundModeName(m) == n) return out = m, true;
  return false;
}

std::string_view roundModeName(RoundMode m) {
  switch (m) {
    case RoundMode::NearestEven: return "rtne";
    case RoundMode::TowardZero: return "rtz";
    case RoundMode::Down: return "rtn";
    case RoundMode::Up: return "rtp";
  }
  return "rtne";
}

uint64_t toBits(Scalar t, Elem v) {
  switch (t) {
    case Scalar::F64: return v.u;
    case Scalar::F32: {
      if (std::isnan(v.f)) return encode(v.f, kF32);
      return std::bit_cast<uint32_t>(float(v.f));
    }
    case Scalar::F16: case Scalar::BF16: case Scalar::F8E4M3: case Scalar::F8E5M2:
    case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16:
      return encode(roundTo(t, v.f), formatOf(t));
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64: case Scalar::Ptr:
      return v.u & widthMask(t);
  }
  return 0;
}

Elem fromBits(Scalar t, uint64_t bits) {
  switch (t) {
    case Scalar::F64: { Elem e; e.u = bits; return e; }
    case Scalar::F32: {
      uint32_t b = uint32_t(bits);
      if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu)) return floatElem(decode(b, kF32));
      return floatElem(double(std::bit_cast<float>(b)));
    }
    case Scalar::F16: case Scalar::BF16: case Scalar::F8E4M3: case Scalar::F8E5M2:
    case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16:
      return floatElem(decode(bits & widthMask(t), formatOf(t)));
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64:
      return wrapInt(t, bits);
    case Scalar::Ptr: { Elem e; e.u = bits; return e; }
  }
  return intElem(0);
}

Elem bitcast(Scalar from, Scalar to, Elem v) { return fromBits(to, toBits(from, v)); }

}  // namespace kiln::ir
