// The arrangement TMA copies write (layout/tma_shared.h): element by element against boxes placed one
// after another along the contiguous dim, row-major inside, with the hardware swizzle on byte addresses
// (PTX-NOTES §10); for rank 2 with a full swizzle row it is wgmma's swizzled tile (wgmma_shared.h).
#include "layout/tma_shared.h"
#include "layout/wgmma_shared.h"
#include "layout_test_util.h"

namespace kiln::layout::test {
namespace {

int64_t hardwareSwizzle(int64_t a, int span) { return span ? a ^ (((a >> 7) & (span / 16 - 1)) << 4) : a; }

TEST(TmaShared, BoxesFollowTheHardwareSwizzle) {
  const std::vector<std::vector<int64_t>> shapes{{256}, {8, 64}, {16, 128}, {4, 8, 64}, {2, 2, 8, 32}};
  for (const std::vector<int64_t>& shape : shapes)
    for (int elemBytes : {1, 2, 4})
      for (int swizzle : {0, 32, 64, 128})
        for (int64_t boxInner : {16, 32, 64, 128}) {
          TmaTile t{shape, boxInner, elemBytes, swizzle};
          if (!t.unsupported().empty() || boxInner * elemBytes % 16) continue;
          const LinearLayout l = tmaShared(t);
          ASSERT_TRUE(l.isInvertible()) << l.str();
          int64_t numel = 1;
          for (int64_t s : shape) numel *= s;
          for (int64_t i = 0; i < numel; ++i) {
            std::vector<int64_t> c(shape.size());
            for (size_t d = shape.size(), rest = size_t(i); d-- > 0;) c[d] = int64_t(rest % size_t(shape[d])), rest /= size_t(shape[d]);
            // box index along the contiguous dim, then the element's place in its box (row-major)
            const int64_t box = c.back() / boxInner;
            int64_t inBox = c.back() % boxInner, scale = boxInner;
            for (size_t d = shape.size() - 1; d-- > 0;) inBox += c[d] * scale, scale *= shape[d];
            const int64_t physical = hardwareSwizzle(box * t.boxBytes() + inBox * elemBytes, swizzle);
            std::vector<int32_t> want(c.begin(), c.end());
            ASSERT_EQ(l.apply(std::vector<int32_t>{int32_t(physical / elemBytes)}), want)
                << "swizzle " << swizzle << " bytes " << elemBytes << " box " << boxInner << " " << l.str();
          }
        }
}

TEST(TmaShared, IsWgmmasTileForAFullSwizzleRow) {
  for (int elemBytes : {1, 2, 4})
    for (int64_t rows : {8, 64})
      for (int64_t cols : {32, 64, 128, 256}) {
        const WgmmaTile w{{rows, cols}, {1, 0}, elemBytes};
        if (w.swizzleBytes() < 32) continue;
        const TmaTile t{{rows, cols}, w.swizzleBytes() / elemBytes, elemBytes, w.swizzleBytes()};
        ASSERT_EQ(t.unsupported(), "");
        EXPECT_EQ(tmaShared(t), wgmmaShared(w)) << rows << "x" << cols << " bytes " << elemBytes;
        EXPECT_EQ(t.boxBytes(), w.blockBytes());
      }
}

TEST(TmaShared, SaysWhatItCannotHold) {
  EXPECT_NE((TmaTile{{64, 64}, 32, 2, 128}.unsupported()), "");  // a 64-byte row under a 128-byte swizzle
  EXPECT_NE((TmaTile{{64, 96}, 32, 2, 0}.unsupported()), "");     // not a power of two
  EXPECT_NE((TmaTile{{64, 64}, 48, 2, 0}.unsupported()), "");
  EXPECT_EQ((TmaTile{{64, 64}, 32, 2, 0}.unsupported()), "");
  EXPECT_EQ((TmaTile{{64, 64}, 64, 2, 128}.alignment()), 1024);
  EXPECT_EQ((TmaTile{{64, 32}, 32, 2, 64}.alignment()), 512);
  EXPECT_EQ((TmaTile{{64, 64}, 32, 2, 0}.alignment()), 128);
}

}  // namespace
}  // namespace kiln::layout::test
