// libdevice's rsqrt_rn is built as 1 / sqrt(x) in f64 (sqrt.rn, div.rn), rounded to f32 (sema,
// builtins_libdevice_round.cpp). This proves it correctly rounded for every f32: over [1, 4) by exhaustion
// (the midpoints next to the result bracket 1/sqrt(x), in exact integer arithmetic), and scaling x by
// 4^k scales every f64 step and the f32 result exactly (the results are normal f32s for any f32 x > 0).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace {

TEST(RsqrtRn, ThroughF64IsCorrectlyRoundedOnEveryF32InOneToFour) {
  int wrong = 0;
  for (uint32_t bits = std::bit_cast<uint32_t>(1.0f); bits < std::bit_cast<uint32_t>(4.0f); ++bits) {
    const float x = std::bit_cast<float>(bits);
    const float y = float(1.0 / std::sqrt(double(x)));
    if (x == 1.0f) {
      wrong += y != 1.0f;
      continue;
    }
    // y = M 2^-24 with M in [2^23, 2^24) (y in (0.5, 1)); x = X 2^-23; the midpoints (2M -+ 1) 2^-25.
    const unsigned __int128 M = uint64_t(std::ldexp(double(y), 24)), X = uint64_t(std::ldexp(double(x), 23));
    const unsigned __int128 one = (unsigned __int128)1 << 73;  // m^2 x < 1  <=>  (2M - 1)^2 X < 2^73
    const bool below = (2 * M - 1) * (2 * M - 1) * X < one, above = (2 * M + 1) * (2 * M + 1) * X > one;
    if (!(below && above) && ++wrong <= 3) ADD_FAILURE() << "x = " << x << " gives " << y;
  }
  EXPECT_EQ(wrong, 0);
}

}  // namespace
