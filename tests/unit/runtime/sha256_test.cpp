// SHA-256 against the FIPS 180-4 / NIST example vectors and sha256sum, whole and fed in pieces.
#include "runtime/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::runtime {
namespace {

std::string hexOf(const std::string& s) { return Sha256::hex(Sha256::of(s)); }

// Characters '0' + i % 75 for i < n: crosses the 55/56/64-byte padding boundaries.
std::string pattern(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += char('0' + i % 75);
  return s;
}

TEST(Sha256, NistVectors) {
  EXPECT_EQ(hexOf(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hexOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      hexOf("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
            "mnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, MillionA) {
  Sha256 h;
  const std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) h.update(chunk);
  EXPECT_EQ(Sha256::hex(h.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // Expected values from sha256sum over the same bytes.
  EXPECT_EQ(hexOf(pattern(55)), "82ea60b904f221aee687a3fbf1c16e07b95cc4a66a5396fbba94d5c0c39a7741");
  EXPECT_EQ(hexOf(pattern(56)), "e3bdd54aee96296d602f4b1b4e105c2f2239d3826ec771fd0e100b8fca82c36e");
  EXPECT_EQ(hexOf(pattern(63)), "b7e43a2b31c1de0eac8ddf82620722f442a2df154b0acca01ee51c696c2d3924");
  EXPECT_EQ(hexOf(pattern(64)), "c42debc003290127e664a5c857c6e454cff4a7d512fcb8e5a942fb0d9c045e5f");
  EXPECT_EQ(hexOf(pattern(65)), "01ffe19716b8afac6c8c303f230f702106e7768dc31dec15c46f4e96c783d07e");
  EXPECT_EQ(hexOf(pattern(119)), "cf1fbc313085e502c323d478f938422c5852078b96b0b4f80cc09f602b18754c");
  EXPECT_EQ(hexOf(pattern(120)), "0e4eaa51da3b6f2eec187fd4dd7968710e85ded4d6e5b4d20c5302d699c6a0d7");
}

TEST(Sha256, PiecewiseEqualsWhole) {
  const std::string message = pattern(200);
  const Sha256::Digest whole = Sha256::of(message);
  for (size_t a = 0; a <= message.size(); a += 7) {
    for (size_t b = a; b <= message.size(); b += 13) {
      Sha256 h;
      h.update(message.substr(0, a));
      h.update(message.substr(a, b - a));
      h.update(message.substr(b));
      ASSERT_EQ(h.finish(), whole) << "split at " << a << " and " << b;
    }
  }
}

TEST(Sha256, BinaryBytes) {
  std::string zeros(3, '\0');
  EXPECT_NE(Sha256::of(zeros), Sha256::of(""));
  EXPECT_NE(Sha256::of(zeros), Sha256::of(std::string(2, '\0')));
}

}  // namespace
}  // namespace kiln::runtime
