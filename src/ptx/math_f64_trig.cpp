// f64 sin, cos, tanh and erf as branch-free PTX sequences: Cody-Waite reduction by pi/2 with the
// reduced argument kept as two doubles, polynomials fitted for kiln, and exp-based large-|x| forms.
// Accuracies and ranges: docs/ptx.md.
#include <array>

#include "ptx/math_f64.h"

namespace kiln::ptx::detail::f64math {

namespace {

// sin(r) = r + r z S(z), cos(r) = 1 - z/2 + z^2 C(z), z = r^2 <= 0.6186 (|r| <= pi/4 + 0.0012).
constexpr std::array<uint64_t, 7> kSinS = {
    0xBFC5555555555555, 0x3F8111111111110B, 0xBF2A01A01A018AB5, 0x3EC71DE3A5335C62,
    0xBE5AE64529379A78, 0x3DE61208F969A725, 0xBD6AAA3AEC19C00E};
constexpr std::array<uint64_t, 6> kCosC = {
    0x3FA555555555554B, 0xBF56C16C16C150FF, 0x3EFA01A019CA5700, 0xBE927E4F800FA855,
    0x3E21EE9E5B833250, 0xBDA8FAB56A709F97};
// tanh(x) = x + x s T(s), s = x^2 <= 0.3026 (|x| <= 0.55).
constexpr std::array<uint64_t, 11> kTanhT = {
    0xBFD555555555554F, 0x3FC11111111107C9, 0xBFABA1BA1B97FF0D, 0x3F9664F4859F88FD,
    0xBF8226E2F2578503, 0x3F6D6D29E311AFE2, 0xBF57D8FF4170AD55, 0x3F43484B00352314,
    0xBF2E979A4584EFB0, 0x3F15D8F9CF2840D0, 0xBEF4751E211ACC0A};
// erf(x) = x + x P(s), s = x^2 <= 0.81 (|x| <= 0.9).
constexpr std::array<uint64_t, 12> kErfP = {
    0x3FC06EBA8214DB69, 0xBFD812746B0379E3, 0x3FBCE2F21A042836, 0xBF9B82CE3127374E,
    0x3F7565BCD0A70279, 0xBF4C02DB31F2883B, 0x3F1F9A307631ECDF, 0xBEEF4CF6FA5E489A,
    0x3EBB9B8650512E41, 0xBE85D8AD63A29E02, 0x3E4E2DBBD406BF89, 0xBE0D325D79D863F0};
// erfc(x) e^(x^2) = R(x - 2) for x in [0.9, 5.95], fitted for the absolute error of erfc (what
// 1 - erfc needs): erf rounds to 1 from x = 5.921 on.
constexpr std::array<uint64_t, 25> kErfcx = {
    0x3FD058671B52C776, 0xBFBB57034EFD3F76, 0x3FA5672B9EA13DBC, 0xBF8FA9D3AC9557EF,
    0x3F764907215A711C, 0xBF5E028E8A589961, 0x3F4369FFA069C645, 0xBF2838221652FC22,
    0x3F0D37BA5B0DCAB2, 0xBEF115CFDE27F14E, 0x3ED369769E3AF600, 0xBEB57780E88CA22B,
    0x3E9724A0696B1BF1, 0xBE785B9B219F6BD2, 0x3E590E7A17655FC1, 0xBE393B3BE97EE690,
    0x3E18EE795D074297, 0xBDF81C44D58F79D3, 0x3DD68ECD1201C0C1, 0xBDB4CB676114368B,
    0x3D94629A55B9209A, 0xBD74893092A6240A, 0x3D50CA74AFA98A6B, 0xBD2120BC4316CB11,
    0x3CDEF8EF8B7F1D9D};

// pi/2 = kPio2[0] + kPio2[1] + kPio2[2] (each the rounding of the rest), and 2/pi.
constexpr uint64_t kPio2[3] = {0x3FF921FB54442D18, 0x3C91A62633145C07, 0xB91F1976B7ED8FBC};
constexpr uint64_t kTwoOverPi = 0x3FE45F306DC9C883;
constexpr uint64_t kMaxFinite = 0x7FEFFFFFFFFFFFFF;

Reg sinCos(Seq& s, Reg x, bool sin) {
  // k = rint(x 2/pi); r = x - k pi/2 as rh + rl. x - k kPio2[0] is exact (for k != 0 both are
  // multiples of 2^-53 and the difference is below 1); the next part is subtracted with TwoSum and
  // its product error recovered by fma, so rh + rl holds r to ~2^-100 |x|.
  Reg k = s.rint(s.mul(x, bits(kTwoOverPi)));
  Reg nk = s.neg(k);
  Reg r1 = s.fma(nk, bits(kPio2[0]), x);
  Reg w = s.mul(k, bits(kPio2[1]));
  Reg wl = s.fma(k, bits(kPio2[1]), s.neg(w));
  Reg rh = s.sub(r1, w);
  Reg bb = s.sub(rh, r1);
  Reg rl = s.sub(r1, s.sub(rh, bb));  // TwoSum's error (operands emitted one statement at a time)
  rl = s.sub(rl, s.add(w, bb));
  rl = s.sub(rl, wl);
  rl = s.fma(nk, bits(kPio2[2]), rl);
  // Only |x| far beyond the documented range leaves rh outside [-pi/4, pi/4] (or rl above ulp(rh)):
  // clamping keeps the polynomials, and so the result, bounded there.
  rh = s.max(s.min(rh, dbl(0.7854)), dbl(-0.7854));
  rl = s.max(s.min(rl, dbl(0x1p-52)), dbl(-0x1p-52));
  Reg z = s.mul(rh, rh);
  Reg hz = s.mul(z, dbl(0.5));
  // sin(rh + rl) = rh + rh z S(z) + rl (1 - z/2)
  Reg sl = s.fma(hz, s.neg(rl), rl);
  Reg rz = s.mul(rh, z);
  Reg sn = s.add(rh, s.fma(rz, s.horner(z, kSinS), sl));
  // cos(rh + rl) = 1 - (z + zl)/2 + z^2 C(z) - rh rl, with 1 - z/2 as w1 + its exact rounding error
  Reg zl = s.fma(rh, rh, s.neg(z));
  Reg w1 = s.sub(dbl(1.0), hz);
  Reg corr = s.sub(s.sub(dbl(1.0), w1), hz);
  Reg b = s.fma(zl, dbl(0.5), s.mul(rh, rl));
  Reg zz = s.mul(z, z);
  Reg nb = s.neg(b);
  Reg tail = s.fma(zz, s.horner(z, kCosC), nb);
  Reg cs = s.add(w1, s.add(corr, tail));
  // Quadrant k mod 4 (cos(x) = sin(x + pi/2)): odd quadrants swap sin and cos, 2 and 3 negate.
  Reg q64 = s.op(RegClass::B64, "cvt.rzi.s64.f64", {k});
  Reg q = s.op(RegClass::B32, "cvt.u32.u64", {q64});
  if (!sin) q = s.op(RegClass::B32, "add.s32", {q, 1});
  Reg odd = s.op(RegClass::Pred, "setp.ne.u32", {s.op(RegClass::B32, "and.b32", {q, 1}), 0});
  Reg neg = s.op(RegClass::Pred, "setp.ne.u32", {s.op(RegClass::B32, "and.b32", {q, 2}), 0});
  Reg v = s.select(cs, sn, odd);
  v = s.select(s.neg(v), v, neg);
  if (sin) v = s.select(x, v, s.test("eq", x, dbl(0.0)));  // the reduction loses the sign of -0
  return s.select(bits(kF64NaN), v, s.test("gtu", s.abs(x), bits(kMaxFinite)));  // inf, NaN
}

}  // namespace

Reg sin(Seq& s, Reg x) { return sinCos(s, x, true); }
Reg cos(Seq& s, Reg x) { return sinCos(s, x, false); }

Reg tanh(Seq& s, Reg x) {
  // |x| < 0.55: the polynomial; above, 1 - 2 / (e^(2|x|) + 1). The sign is copied at the end
  // (tanh(-0) = -0); NaN fails the test and stays NaN.
  Reg a = s.abs(x);
  Reg sq = s.mul(a, a);
  Reg lo = s.fma(s.mul(s.horner(sq, kTanhT), sq), a, a);
  // q = 2 / (E + 1), E = e^(2 min(|x|, 20)) (tanh rounds to 1 from 19.1 on), refined by the
  // division's remainder and the rounding error of E + 1: q then carries only E's own error.
  Reg c = s.min(a, dbl(20.0));
  Reg e2 = expNoNan(s, s.add(c, c));
  Reg den = s.add(e2, dbl(1.0));
  Reg denErr = s.add(s.sub(e2, den), dbl(1.0));  // exact: E >= 1
  Reg q = s.f("div.rn.f64", {dbl(2.0), den});
  Reg rem = s.fma(s.neg(q), den, dbl(2.0));       // exact
  Reg inv = s.mul(q, dbl(0.5));  // ~1 / den, enough for the correction
  q = s.fma(s.fma(s.neg(q), denErr, rem), inv, q);
  Reg hi = s.sub(dbl(1.0), q);
  Reg r = s.select(hi, lo, s.test("ge", a, dbl(0.55)));
  return s.f("copysign.f64", {x, r});
}

Reg erf(Seq& s, Reg x) {
  // |x| < 0.9: the polynomial; above, 1 - e^(-c^2) R(c - 2), c = min(|x|, 5.95), with c^2 = z + zl
  // exactly and e^-(z + zl) from the shared exponential (-z >= -35.4: no clamp needed).
  Reg a = s.abs(x);
  Reg lo = s.fma(a, s.horner(s.mul(a, a), kErfP), a);
  Reg c = s.min(a, dbl(5.95));
  Reg rx = s.horner(s.sub(c, dbl(2.0)), kErfcx);
  Reg z = s.mul(c, c);
  Reg zl = s.fma(c, c, s.neg(z));
  Reg nz = s.neg(z);
  Reg k = s.rint(s.mul(nz, bits(kLog2E)));
  Reg nk = s.neg(k);
  Reg r = s.fma(nk, bits(kLn2Hi), nz);  // exact, as in expNoNan
  r = s.fma(nk, bits(kLn2Lo), r);
  Reg ez = scaledExp(s, k, r, s.neg(zl));
  Reg hi = s.fma(s.neg(ez), rx, dbl(1.0));
  Reg res = s.select(hi, lo, s.test("ge", a, dbl(0.9)));  // NaN fails the test: lo is NaN
  return s.f("copysign.f64", {x, res});
}

}  // namespace kiln::ptx::detail::f64math
