// examples/integer_ops.py: uint32 hashing (logical shifts, wrapping multiply, xorshift unrolled
// by static_range) and int32 arithmetic with negative operands (C division and remainder,
// arithmetic shifts, bitwise ops), compared exactly against C++.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

uint32_t hashRef(uint32_t x) {
  uint32_t h = ((x >> 16) ^ x) * 0x45d9f3bu;
  h = ((h >> 16) ^ h) * 0x45d9f3bu;
  return (h >> 16) ^ h;
}

uint32_t xorshiftRef(uint32_t x, int rounds) {
  uint32_t s = x | 1;
  for (int r = 0; r < rounds; ++r) s ^= s << 13, s ^= s >> 17, s ^= s << 5;
  return s;
}

void checkHash(int rounds, int64_t n, int64_t block, bool hints = false) {
  SCOPED_TRACE("ROUNDS " + std::to_string(rounds) + ", n " + std::to_string(n));
  const std::string sig = hints ? "*u32:16, *u32:16, *u32:16, i32:16, " : "*u32, *u32, *u32, i32, ";
  auto k = compileExample("integer_ops.py", "hash_kernel", sig + std::to_string(rounds) + ", " + std::to_string(block));
  ASSERT_TRUE(k);
  KT_RNG(rng);
  auto x = rng.ints<uint32_t>(n, 0, 0xffffffffll);
  x[0] = 0, x[n - 1] = 0xffffffffu;
  std::vector<uint32_t> h(n), s(n), refH(n), refS(n);
  poison(h), poison(s);
  ASSERT_TRUE(run(*k, {cdiv(n, block)}, {Arg::buffer(x), Arg::buffer(h), Arg::buffer(s), Arg::integer(n)}));
  for (int64_t i = 0; i < n; ++i) refH[i] = hashRef(x[i]), refS[i] = xorshiftRef(x[i], rounds);
  EXPECT_TRUE(allEqual(h, refH)) << "hash";
  EXPECT_TRUE(allEqual(s, refS)) << "xorshift";
}

TEST(IntegerOps, HashAndXorshift) {
  checkHash(1, 1000, 256);
  checkHash(3, 2, 128);
  checkHash(2, 4096 + 32, 1024, true);
}

class IntArithSig : public ::testing::TestWithParam<const char*> {};

TEST_P(IntArithSig, DivRemShiftBitsWithNegatives) {
  auto k = compileExample("integer_ops.py", "int_arith_kernel", GetParam());
  ASSERT_TRUE(k);
  KT_RNG(rng);
  // Every sign combination, small and large magnitudes, exact multiples and INT32_MIN / INT32_MAX.
  std::vector<int32_t> a, b;
  for (int32_t x : {7, -7, 6, -6, 0, 1, -1, INT32_MAX, INT32_MIN})
    for (int32_t y : {2, -2, 3, -3, 7, -7, 1, INT32_MAX, INT32_MIN}) a.push_back(x), b.push_back(y);
  for (int i = 0; i < 703; ++i) {  // 81 + 703 = 784 = 49 * 16, for the ":16" variant
    a.push_back(static_cast<int32_t>(i % 2 ? rng.integer(-50, 50) : rng.integer(INT32_MIN, INT32_MAX)));
    int64_t y = i % 3 ? rng.integer(-40, 40) : rng.integer(INT32_MIN, INT32_MAX);
    if (y == 0 || (a.back() == INT32_MIN && y == -1)) y = 5;  // no division by zero or overflow
    b.push_back(static_cast<int32_t>(y));
  }
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<int32_t> quot(n), rem(n), shr(n), bits(n);
  poison(quot), poison(rem), poison(shr), poison(bits);
  ASSERT_TRUE(run(*k, {cdiv(n, 512)},
                  {Arg::buffer(a), Arg::buffer(b), Arg::buffer(quot), Arg::buffer(rem), Arg::buffer(shr),
                   Arg::buffer(bits), Arg::integer(n)}));
  std::vector<int32_t> refQ(n), refR(n), refShr(n), refBits(n);
  for (int64_t i = 0; i < n; ++i) {
    refQ[i] = a[i] / b[i];  // C++ truncates toward zero, as Triton does
    refR[i] = a[i] % b[i];  // and the remainder has the dividend's sign
    refShr[i] = a[i] >> (b[i] & 7);  // arithmetic shift (C++20)
    const uint32_t ua = static_cast<uint32_t>(a[i]), ub = static_cast<uint32_t>(b[i]);
    refBits[i] = static_cast<int32_t>(((ua & ub) | (ua ^ 0x5A5A5A5Au)) ^ (~ub << 3));
  }
  EXPECT_TRUE(allEqual(quot, refQ)) << "a // b";
  EXPECT_TRUE(allEqual(rem, refR)) << "a % b";
  EXPECT_TRUE(allEqual(shr, refShr)) << "a >> (b & 7)";
  EXPECT_TRUE(allEqual(bits, refBits)) << "bitwise mix";
}

INSTANTIATE_TEST_SUITE_P(IntegerOps, IntArithSig,
                         ::testing::Values("*i32, *i32, *i32, *i32, *i32, *i32, i32, 512",
                                           "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32:16, 512"));

}  // namespace
}  // namespace kt
