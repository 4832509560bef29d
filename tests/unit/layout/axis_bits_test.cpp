// layout::axisBits: which register, lane and warp bits hold a dim of a tile in order, and the layouts
// that do not (bits mixed with other dims, out of order, or lanes not consecutive).
#include <gtest/gtest.h>

#include "layout/axis_bits.h"
#include "layout/named_layouts.h"

namespace kiln::layout {
namespace {

TEST(AxisBits, BlockedWithRepeats) {
  // [1024] over 4 warps, 2 elements per thread: registers 1, 2 | lanes 4..64 | warps 128, 256 | register 512.
  LinearLayout l = LinearLayout::parse(
      "{register=[[1],[2],[512]], lane=[[4],[8],[16],[32],[64]], warp=[[128],[256]]} -> [dim0=1024]");
  auto b = axisBits(l, 0);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->regLow, (std::vector<int>{0, 1}));
  EXPECT_EQ(b->laneFirst, 0);
  EXPECT_EQ(b->lanes, 5);
  EXPECT_EQ(b->warpFirst, 0);
  EXPECT_EQ(b->warps, 2);
  EXPECT_EQ(b->regHigh, (std::vector<int>{2}));
  EXPECT_TRUE(b->regOther.empty());
}

TEST(AxisBits, TwoDimsAndCopies) {
  // [8, 16]: lanes 0-3 along dim1 (after 1 register bit), lanes 3-4 along dim0, a copied warp bit.
  LinearLayout l = LinearLayout::parse(
      "{register=[[0,1],[4,0]], lane=[[0,2],[0,4],[0,8],[1,0],[2,0]], warp=[[0,0]]} -> [dim0=8, dim1=16]");
  auto cols = axisBits(l, 1);
  ASSERT_TRUE(cols);
  EXPECT_EQ(cols->regLow, (std::vector<int>{0}));
  EXPECT_EQ(cols->laneFirst, 0);
  EXPECT_EQ(cols->lanes, 3);
  EXPECT_EQ(cols->warps, 0);
  EXPECT_EQ(cols->regOther, (std::vector<int>{1}));
  auto rows = axisBits(l, 0);
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->regLow.empty());
  EXPECT_EQ(rows->laneFirst, 3);
  EXPECT_EQ(rows->lanes, 2);
  EXPECT_EQ(rows->regHigh, (std::vector<int>{1}));
  EXPECT_EQ(rows->regOther, (std::vector<int>{0}));
}

TEST(AxisBits, EveryDefaultBlockedLayoutQualifies) {
  for (int warps : {1, 2, 4, 8, 16})
    for (std::vector<int64_t> shape : {std::vector<int64_t>{8, 32}, {1024, 2}, {2, 1024}, {1, 64}, {64, 1}, {4, 4}})
      for (int vec : {1, 2, 4})
        for (std::vector<int32_t> order : {std::vector<int32_t>{1, 0}, {0, 1}})
          for (int axis : {0, 1})
            EXPECT_TRUE(axisBits(defaultBlocked(shape, warps, vec, order), axis))
                << warps << " warps, vec " << vec << ", axis " << axis << ": " << defaultBlocked(shape, warps, vec, order).str();
}

TEST(AxisBits, RefusesLayoutsOutOfOrder) {
  // A register bit between lane bits.
  EXPECT_FALSE(axisBits(LinearLayout::parse("{register=[[2]], lane=[[1],[4]], warp=[]} -> [dim0=8]"), 0));
  // A lane bit above a warp bit.
  EXPECT_FALSE(axisBits(LinearLayout::parse("{register=[], lane=[[1],[4]], warp=[[2]]} -> [dim0=8]"), 0));
  // Lane bits along the axis not consecutive (lane 1 moves along dim1).
  EXPECT_FALSE(axisBits(LinearLayout::parse("{register=[], lane=[[1,0],[0,1],[2,0]], warp=[]} -> [dim0=4, dim1=2]"), 0));
  // A basis mixing the axis with another dim (a swizzle).
  EXPECT_FALSE(axisBits(LinearLayout::parse("{register=[[1,1]], lane=[[0,1]], warp=[]} -> [dim0=2, dim1=2]"), 0));
  // The mma accumulator's rows: lanes, then a register, then warps.
  EXPECT_FALSE(axisBits(mmaV2Accumulator({32, 16}, {2, 1}), 0));
  EXPECT_TRUE(axisBits(mmaV2Accumulator({32, 16}, {2, 1}), 1));
}

}  // namespace
}  // namespace kiln::layout
