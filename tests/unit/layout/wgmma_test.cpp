// wgmma's layouts: the swizzled shared tiles its descriptors read, checked element by element against
// the hardware swizzle on byte addresses (PTX-NOTES §9), and the A-in-registers fragment against the
// accumulator it must equal for chained dots.
#include "layout/named_layouts.h"
#include "layout/wgmma_shared.h"
#include "layout_test_util.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

// The byte address the hardware reads for unswizzled address a, with a `span`-byte swizzle.
int64_t hardwareSwizzle(int64_t a, int span) { return a ^ (((a >> 7) & (span / 16 - 1)) << 4); }

TEST(Wgmma, SharedTilesFollowTheHardwareSwizzle) {
  for (int elemBytes : {1, 2, 4})
    for (int64_t rows : {8, 16, 64, 128})
      for (int64_t cols : {16, 32, 64, 128, 256})
        for (bool rowMajor : {true, false}) {
          WgmmaTile t{rowMajor ? std::vector<int64_t>{rows, cols} : std::vector<int64_t>{cols, rows},
                      rowMajor ? std::vector<int32_t>{1, 0} : std::vector<int32_t>{0, 1}, elemBytes};
          if (!t.swizzleBytes()) continue;
          const L l = wgmmaShared(t);
          ASSERT_TRUE(l.isInvertible()) << l.str();
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) {
              std::vector<int64_t> co = rowMajor ? std::vector<int64_t>{r, c} : std::vector<int64_t>{c, r};
              const int64_t physical = hardwareSwizzle(t.byteOffset(co), t.swizzleBytes());
              ASSERT_EQ(physical % elemBytes, 0);
              EXPECT_EQ(l.apply(std::vector<int32_t>{int32_t(physical / elemBytes)}),
                        (std::vector<int32_t>{int32_t(co[0]), int32_t(co[1])}))
                  << "bytes " << elemBytes << " tile " << rows << "x" << cols << " at " << r << "," << c;
            }
        }
}

TEST(Wgmma, SwizzleWidthFollowsTheContiguousExtent) {
  EXPECT_EQ((WgmmaTile{{128, 64}, {1, 0}, 2}.swizzleBytes()), 128);
  EXPECT_EQ((WgmmaTile{{128, 32}, {1, 0}, 2}.swizzleBytes()), 64);
  EXPECT_EQ((WgmmaTile{{128, 16}, {1, 0}, 2}.swizzleBytes()), 32);
  EXPECT_EQ((WgmmaTile{{128, 8}, {1, 0}, 2}.swizzleBytes()), 0);
  EXPECT_EQ((WgmmaTile{{64, 256}, {0, 1}, 2}.swizzleBytes()), 128);
  // Wider tiles are column blocks of `rows` rows each.
  WgmmaTile wide{{64, 256}, {1, 0}, 2};
  EXPECT_EQ(wide.blockBytes(), 64 * 128);
  EXPECT_EQ(wide.byteOffset({0, 64}), 64 * 128);
  EXPECT_EQ(wide.byteOffset({8, 16}), 8 * 128 + 32);
}

TEST(Wgmma, OperandAIsTheAccumulatorOfTheSameShape) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{64, 16}, {64, 64}, {128, 64}, {128, 128}, {256, 32}})
    for (int32_t groups : {1, 2}) {
      if (shape[0] < 64 * groups) continue;
      std::vector<int32_t> warps{4 * groups, 1};
      EXPECT_EQ(wgmmaOperandA(shape, warps), wgmmaAccumulator(shape, int32_t(std::min<int64_t>(256, shape[1])), warps))
          << shape[0] << "x" << shape[1] << " groups " << groups;
    }
}

TEST(Wgmma, OperandAHoldsTheMmaFragmentOfEachWarp) {
  // Warp w of the warpgroup, lane 4g + t: register i at (16w + g + 8((i>>1)&1), 2t + (i&1) + 8(i>>2)).
  const L a = wgmmaOperandA({64, 16}, {4, 1});
  for (int32_t w = 0; w < 4; ++w)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t i = 0; i < 8; ++i) {
        const int32_t g = lane >> 2, t = lane & 3;
        EXPECT_EQ(a.apply(std::vector<int32_t>{i, lane, w}),
                  (std::vector<int32_t>{16 * w + g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)}));
      }
}

}  // namespace
}  // namespace kiln::layout::test
