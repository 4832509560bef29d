// Tests of the test harness itself: the fp16/bf16 conversions the references rely on, and the
// comparison that must never let NaN or a poisoned element through.
#include "harness.h"

namespace kt {
namespace {

TEST(Harness, HalfKnownValues) {
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);       // largest finite
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);       // rounds down
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);       // tie to even -> infinity
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(0x1p-14f), 0x0400);       // smallest normal
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);       // smallest subnormal
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);       // tie to even -> 0
  EXPECT_EQ(floatToHalf(0x1.8p-25f), 0x0001);     // above the tie
  EXPECT_EQ(floatToHalf(0x3p-25f), 0x0002);       // 1.5 ulp ties to even 2
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00);  // tie -> even mantissa 0
  EXPECT_EQ(floatToHalf(1.0f + 0x3p-11f), 0x3c02);  // tie -> even mantissa 2
  EXPECT_EQ(floatToHalf(0.1f), 0x2e66);
  EXPECT_TRUE((floatToHalf(NAN) & 0x7fff) > 0x7c00);
  EXPECT_EQ(halfToFloat(0x3555), 0x1.554p-2f);
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(halfToFloat(0xfbff), -65504.0f);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0xffff)));  // the poison pattern
}

TEST(Harness, HalfRoundTripsEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(floatToHalf(f), h) << std::hex << h;
  }
}

TEST(Harness, HalfRoundsToNearest) {
  // Every float between two adjacent halves goes to the nearer one.
  for (uint32_t h = 0; h < 0x7bff; h += 7) {
    double lo = halfToFloat(static_cast<uint16_t>(h)), hi = halfToFloat(static_cast<uint16_t>(h + 1));
    EXPECT_EQ(floatToHalf(static_cast<float>(lo + (hi - lo) * 0.49)), h);
    EXPECT_EQ(floatToHalf(static_cast<float>(lo + (hi - lo) * 0.51)), h + 1);
  }
}

TEST(Harness, Bf16) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(-3.0f), 0xc040);
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3f80);   // tie -> even
  EXPECT_EQ(floatToBf16(1.0f + 0x3p-8f), 0x3f82);   // tie -> even
  EXPECT_EQ(floatToBf16(1.0f + 0x1.2p-8f), 0x3f81);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  EXPECT_TRUE(std::isinf(bf16ToFloat(floatToBf16(3.4e38f))));  // rounds up past the largest finite
}

TEST(Harness, AllCloseRejectsNaNAndPoison) {
  std::vector<float> out(4);
  poison(out);
  EXPECT_FALSE(allClose(toDouble(out), {0, 0, 0, 0}, Tol{1e9, 1e9}));
  EXPECT_FALSE(allClose({NAN}, {NAN}, Tol{1, 1}));
  EXPECT_FALSE(allClose({1.0}, {1.0, 2.0}, kF32));
  EXPECT_TRUE(allClose({1.0, -2.0}, {1.0 + 5e-6, -2.0}, kF32));
  EXPECT_FALSE(allClose({1.0}, {1.0 + 1e-4}, kF32));
  EXPECT_TRUE(allClose({1e-3}, {0.0}, Tol{1e-5, 0}, {1000.0}));  // judged against the scale
  EXPECT_FALSE(allEqual<int32_t>({1, 2}, {1, 3}));
}

}  // namespace
}  // namespace kt
