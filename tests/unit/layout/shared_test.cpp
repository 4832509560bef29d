// Shared-memory layouts: the XOR swizzle against Triton's SwizzledSharedEncoding formula and against the
// 128-byte TMA/wgmma swizzle of PTX-NOTES (§9), plain row- and column-major tiles, rank 3.
#include "layout/named_layouts.h"
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

// Physical offset of logical (row, col) of a rows x cols tile, as Triton's shared stores compute it.
int64_t swizzledOffset(int64_t row, int64_t col, int64_t cols, int64_t vec, int64_t perPhase, int64_t maxPhase) {
  int64_t phase = (row / perPhase) % maxPhase;
  int64_t chunk = ((col / vec) ^ phase) % (cols / vec);
  return row * cols + chunk * vec + col % vec;
}

TEST(Shared, PlainIsRowOrColumnMajor) {
  L rm = sharedPlain({4, 8}, {1, 0});
  L cm = sharedPlain({4, 8}, {0, 1});
  EXPECT_EQ(rm.inDimNames(), std::vector<std::string>{"offset"});
  for (int32_t o = 0; o < 32; ++o) {
    EXPECT_EQ(rm.apply(std::vector<int32_t>{o}), (std::vector<int32_t>{o / 8, o % 8}));
    EXPECT_EQ(cm.apply(std::vector<int32_t>{o}), (std::vector<int32_t>{o % 4, o / 4}));
  }
}

TEST(Shared, SwizzleMatchesTritonFormula) {
  for (int64_t rows : {1, 2, 8, 32, 64})
    for (int64_t cols : {8, 16, 32, 64, 128})
      for (int32_t vec : {1, 2, 4, 8})
        for (int32_t perPhase : {1, 2, 4})
          for (int32_t maxPhase : {1, 2, 4, 8}) {
            if (int64_t(vec) > cols) continue;
            for (bool rowMajor : {true, false}) {
              std::vector<int64_t> shape = rowMajor ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{cols, rows};
              L l = sharedSwizzled(shape, vec, perPhase, maxPhase, rowMajor ? std::vector<int32_t>{1, 0}
                                                                            : std::vector<int32_t>{0, 1});
              ASSERT_TRUE(l.isInvertible()) << l.str();
              L inv = l.invert();  // coordinates -> offset
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < cols; ++c) {
                  std::vector<int32_t> coords = rowMajor ? std::vector<int32_t>{int32_t(r), int32_t(c)}
                                                         : std::vector<int32_t>{int32_t(c), int32_t(r)};
                  ASSERT_EQ(inv.apply(coords)[0], swizzledOffset(r, c, cols, vec, perPhase, maxPhase))
                      << l.str() << " at " << r << "," << c;
                }
            }
          }
}

TEST(Shared, SwizzleSpelledOut) {
  // 8x8 tile, 2-element chunks, phase changes every row, 4 phases.
  EXPECT_EQ(sharedSwizzled({8, 8}, 2, 1, 4, {1, 0}).str(),
            "{offset=[[0,1],[0,2],[0,4],[1,2],[2,4],[4,0]]} -> [dim0=8, dim1=8]");
}

TEST(Shared, Swizzle128BytesMatchesTheHardwarePattern) {
  // bf16 64x64 tile, 128-byte rows: phys = addr ^ (((addr >> 7) & 7) << 4) on byte addresses.
  L l = sharedSwizzled({64, 64}, 8, 1, 8, {1, 0});
  L inv = l.invert();
  for (int32_t r = 0; r < 64; ++r)
    for (int32_t c = 0; c < 64; ++c) {
      int64_t addr = r * 128 + c * 2;
      int64_t phys = addr ^ (((addr >> 7) & 7) << 4);
      ASSERT_EQ(int64_t(inv.apply(std::vector<int32_t>{r, c})[0]) * 2, phys);
    }
  // All three modes with rows as wide as the swizzle span, for 1-, 2- and 4-byte elements:
  // vec = 16 bytes, maxPhase = span / 16, perPhase = 128 / span; M = maxPhase - 1.
  for (int64_t span : {32, 64, 128})
    for (int64_t elemBytes : {1, 2, 4}) {
      int64_t cols = span / elemBytes;
      L sw = sharedSwizzled({64, cols}, int32_t(16 / elemBytes), int32_t(128 / span), int32_t(span / 16), {1, 0});
      L swInv = sw.invert();
      for (int32_t r = 0; r < 64; ++r)
        for (int32_t c = 0; c < cols; ++c) {
          int64_t addr = r * span + c * elemBytes;
          int64_t phys = addr ^ (((addr >> 7) & (span / 16 - 1)) << 4);
          ASSERT_EQ(int64_t(swInv.apply(std::vector<int32_t>{r, c})[0]) * elemBytes, phys) << span << " " << elemBytes;
        }
    }
}

TEST(Shared, Rank3SwizzlesTheInnerTwoDims) {
  L l = sharedSwizzled({2, 8, 16}, 4, 1, 4, {2, 1, 0});
  L inv = l.invert();
  for (int32_t b = 0; b < 2; ++b)
    for (int32_t r = 0; r < 8; ++r)
      for (int32_t c = 0; c < 16; ++c)
        ASSERT_EQ(inv.apply(std::vector<int32_t>{b, r, c})[0], b * 128 + swizzledOffset(r, c, 16, 4, 1, 4));
  // order {1, 2, 0}: dim1 contiguous, dim2 the swizzled rows, dim0 outermost.
  L t = sharedSwizzled({2, 16, 8}, 4, 1, 4, {1, 2, 0});
  L tinv = t.invert();
  for (int32_t b = 0; b < 2; ++b)
    for (int32_t r = 0; r < 8; ++r)
      for (int32_t c = 0; c < 16; ++c)
        ASSERT_EQ(tinv.apply(std::vector<int32_t>{b, c, r})[0], b * 128 + swizzledOffset(r, c, 16, 4, 1, 4));
}

TEST(Shared, RejectsBadArguments) {
  EXPECT_THROW(sharedSwizzled({8, 8}, 3, 1, 1, {1, 0}), InternalError);
  EXPECT_THROW(sharedSwizzled({8, 6}, 1, 1, 1, {1, 0}), InternalError);
  EXPECT_THROW(sharedPlain({8, 8}, {1, 1}), InternalError);
}

}  // namespace
}  // namespace kiln::layout::test
