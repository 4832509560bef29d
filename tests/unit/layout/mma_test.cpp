// mma.sync accumulator and operand layouts (m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 8-bit) and the
// wgmma accumulator, checked for every register, lane and warp against the fragment formulas of
// PTX-NOTES.md (mma.sync and wgmma sections), over many shapes and warp arrangements.
#include <set>

#include "layout/named_layouts.h"
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

struct Coord {
  int64_t row, col;
};

int64_t repsOf(int64_t extent, int64_t tile) { return std::max<int64_t>(1, extent / tile); }

// C/D of m16n8k*: row = g + 8*(i>>1), col = 2t + (i&1); warp = wm*wn_count + wn; repeats N first.
Coord accumulatorFormula(const std::vector<int64_t>& shape, const std::vector<int32_t>& wpc, int64_t reg,
                         int64_t lane, int64_t warp) {
  int64_t g = lane >> 2, t = lane & 3, i = reg & 3, rep = reg >> 2;
  int64_t repN = rep % repsOf(shape[1], 8 * wpc[1]), repM = rep / repsOf(shape[1], 8 * wpc[1]);
  int64_t wm = warp / wpc[1], wn = warp % wpc[1];
  int64_t row = g + 8 * (i >> 1) + 16 * (wm + wpc[0] * repM);
  int64_t col = 2 * t + (i & 1) + 8 * (wn + wpc[1] * repN);
  return {row % shape[0], col % shape[1]};
}

// A fragment element e of one mma, per bit width (PTX-NOTES §8).
Coord aFragment(int bits, int64_t lane, int64_t e) {
  int64_t g = lane >> 2, t = lane & 3;
  switch (bits) {
    case 16: return {g + 8 * ((e >> 1) & 1), 2 * t + (e & 1) + 8 * (e >> 2)};
    case 8: return {g + 8 * ((e >> 2) & 1), 4 * t + (e & 3) + 16 * (e >> 3)};
    default: return {g + 8 * (e & 1), t + 4 * (e >> 1)};  // tf32: a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4)
  }
}

// B fragment element e: (k, n).
Coord bFragment(int bits, int64_t lane, int64_t e) {
  int64_t g = lane >> 2, t = lane & 3;
  switch (bits) {
    case 16: return {2 * t + (e & 1) + 8 * (e >> 1), g};
    case 8: return {4 * t + (e & 3) + 16 * (e >> 2), g};
    default: return {t + 4 * e, g};  // tf32: b0 (k=t), b1 (k=t+4)
  }
}

Coord operandFormula(int opIdx, int bits, const std::vector<int64_t>& shape, const std::vector<int32_t>& wpc,
                     int64_t reg, int64_t lane, int64_t warp) {
  int64_t perMma = opIdx == 0 ? 4 * 32 / bits : 2 * 32 / bits;  // elements of one fragment per thread
  int64_t kTile = 256 / bits;
  int64_t e = reg % perMma, rep = reg / perMma;
  int64_t wm = warp / wpc[1], wn = warp % wpc[1];
  if (opIdx == 0) {
    int64_t repK = rep % repsOf(shape[1], kTile), repM = rep / repsOf(shape[1], kTile);
    Coord c = aFragment(bits, lane, e);
    return {(c.row + 16 * (wm + wpc[0] * repM)) % shape[0], (c.col + kTile * repK) % shape[1]};
  }
  // B repeats K first, unless a warp has 8 n-tiles or more: then N first (one ldmatrix.x4, one k-slice).
  const int64_t repsK = repsOf(shape[0], kTile), repsN = repsOf(shape[1], 8 * wpc[1]);
  int64_t repK = rep % repsK, repN = rep / repsK;
  if (repsN >= 8) repN = rep % repsN, repK = rep / repsN;
  Coord c = bFragment(bits, lane, e);
  return {(c.row + kTile * repK) % shape[0], (c.col + 8 * (wn + wpc[1] * repN)) % shape[1]};
}

const std::vector<std::vector<int32_t>> kWarpShapes = {{1, 1}, {2, 1}, {1, 2}, {2, 2}, {4, 1}, {1, 4}, {4, 2}, {2, 4}, {8, 1}};

TEST(MmaV2, AccumulatorMatchesFragmentFormula) {
  for (int64_t m : {16, 32, 64, 128})
    for (int64_t n : {8, 16, 32, 64, 128})
      for (const std::vector<int32_t>& wpc : kWarpShapes) {
        std::vector<int64_t> shape = {m, n};
        L l = mmaV2Accumulator(shape, wpc);
        ASSERT_EQ(l.inDimNames(), kRLW);
        ASSERT_EQ(l.getInDimSize("lane"), 32);
        ASSERT_EQ(l.getInDimSize("warp"), wpc[0] * wpc[1]);
        ASSERT_EQ(l.getInDimSize("register"), 4 * repsOf(m, 16 * wpc[0]) * repsOf(n, 8 * wpc[1]));
        forEachInput(l, [&](const std::vector<int32_t>& in) {
          Coord c = accumulatorFormula(shape, wpc, in[0], in[1], in[2]);
          ASSERT_EQ(l.apply(in), (std::vector<int32_t>{int32_t(c.row), int32_t(c.col)})) << l.str();
        });
        EXPECT_TRUE(l.isSurjective());
        EXPECT_EQ(l.isInjective(), m >= 16 * wpc[0] && n >= 8 * wpc[1]);
      }
}

TEST(MmaV2, AccumulatorOfOneWarpSpelledOut) {
  EXPECT_EQ(mmaV2Accumulator({16, 8}, {1, 1}).str(),
            "{register=[[0,1],[8,0]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=8]");
  // Rows of the accumulator are held by 4 consecutive lanes: lane bits 0 and 1 move along dim1.
  L l = mmaV2Accumulator({64, 64}, {2, 2});
  EXPECT_EQ(l.getNumConsecutiveInOut(), 2);
}

TEST(MmaV2, OperandsMatchFragmentFormulas) {
  for (int bits : {8, 16, 32})
    for (int opIdx : {0, 1})
      for (int64_t a : {16, 32, 64, 128})
        for (int64_t b : {8, 16, 32, 64, 128, 256})
          for (const std::vector<int32_t>& wpc : kWarpShapes) {
            int64_t kTile = 256 / bits;
            std::vector<int64_t> shape = opIdx == 0 ? std::vector<int64_t>{a, std::max(b, kTile)}
                                                    : std::vector<int64_t>{std::max(a, kTile), b};
            L l = mmaV2Operand(opIdx, shape, wpc, bits);
            ASSERT_EQ(l.inDimNames(), kRLW);
            forEachInput(l, [&](const std::vector<int32_t>& in) {
              Coord c = operandFormula(opIdx, bits, shape, wpc, in[0], in[1], in[2]);
              ASSERT_EQ(l.apply(in), (std::vector<int32_t>{int32_t(c.row), int32_t(c.col)}))
                  << "op " << opIdx << " bits " << bits << " " << l.str();
            });
            EXPECT_TRUE(l.isSurjective());
          }
}

TEST(MmaV2, OperandFragmentsSpelledOut) {
  // A of m16n8k16: registers hold (g, 2t..2t+1), (g+8, ..), (g, +8), (g+8, +8).
  EXPECT_EQ(mmaV2Operand(0, {16, 16}, {1, 1}, 16).str(),
            "{register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]");
  EXPECT_EQ(mmaV2Operand(1, {16, 8}, {1, 1}, 16).str(),
            "{register=[[1,0],[8,0]], lane=[[2,0],[4,0],[0,1],[0,2],[0,4]], warp=[]} -> [dim0=16, dim1=8]");
  EXPECT_EQ(mmaV2Operand(0, {16, 8}, {1, 1}, 32).str(),
            "{register=[[8,0],[0,4]], lane=[[0,1],[0,2],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=8]");
  // A is broadcast over the N warps, B over the M warps.
  EXPECT_EQ(mmaV2Operand(0, {32, 16}, {2, 2}, 16).basis("warp", 0), (Basis{0, 0}));
  EXPECT_EQ(mmaV2Operand(1, {16, 16}, {2, 2}, 16).basis("warp", 1), (Basis{0, 0}));
}

TEST(MmaV2, OperandsFeedTheAccumulatorOfTheSameWarp) {
  // For a dot C[M,N] = A[M,K] B[K,N], each warp must hold the A rows and B columns of its C tile.
  for (const std::vector<int32_t>& wpc : kWarpShapes) {
    int64_t m = 128, n = 64, k = 32;
    L c = mmaV2Accumulator({m, n}, wpc), a = mmaV2Operand(0, {m, k}, wpc, 16), b = mmaV2Operand(1, {k, n}, wpc, 16);
    for (int32_t w = 0; w < c.getInDimSize("warp"); ++w) {
      std::set<int32_t> cRows, cCols, aRows, bCols;
      for (int32_t lane = 0; lane < 32; ++lane) {
        for (int32_t r = 0; r < c.getInDimSize("register"); ++r) {
          std::vector<int32_t> x = c.apply(std::vector<int32_t>{r, lane, w});
          cRows.insert(x[0]);
          cCols.insert(x[1]);
        }
        for (int32_t r = 0; r < a.getInDimSize("register"); ++r) aRows.insert(a.apply(std::vector<int32_t>{r, lane, w})[0]);
        for (int32_t r = 0; r < b.getInDimSize("register"); ++r) bCols.insert(b.apply(std::vector<int32_t>{r, lane, w})[1]);
      }
      EXPECT_EQ(cRows, aRows);
      EXPECT_EQ(cCols, bCols);
    }
  }
}

TEST(MmaV2, RejectsBadArguments) {
  EXPECT_THROW(mmaV2Accumulator({8, 8}, {1, 1}), InternalError);
  EXPECT_THROW(mmaV2Accumulator({16, 8}, {3, 1}), InternalError);
  EXPECT_THROW(mmaV2Operand(2, {16, 16}, {1, 1}, 16), InternalError);
  EXPECT_THROW(mmaV2Operand(0, {16, 16}, {1, 1}, 64), InternalError);
  EXPECT_THROW(mmaV2Operand(0, {16, 8}, {1, 1}, 16), InternalError);  // K below 16
  EXPECT_THROW(mmaV2Operand(1, {16, 4}, {1, 1}, 16), InternalError);
}

// wgmma accumulator (PTX-NOTES §9): row = 16w + g + 8((i>>1)&1), col = 8(i>>2) + 2t + (i&1).
TEST(Wgmma, AccumulatorMatchesFragmentFormula) {
  for (int32_t instrN : {8, 16, 64, 128, 256})
    for (const std::vector<int32_t>& wpc : std::vector<std::vector<int32_t>>{{4, 1}, {8, 1}, {4, 2}})
      for (int64_t m : {64, 128, 256})
        for (int64_t n : {256}) {
          std::vector<int64_t> shape = {m, n};
          L l = wgmmaAccumulator(shape, instrN, wpc);
          int64_t perInstr = instrN / 2, wgM = wpc[0] / 4;
          forEachInput(l, [&](const std::vector<int32_t>& in) {
            int64_t i = in[0] % perInstr, rep = in[0] / perInstr, lane = in[1], warp = in[2];
            int64_t g = lane >> 2, t = lane & 3, w = warp % 4, wg = warp / 4;
            int64_t repsN = repsOf(n, int64_t(instrN) * wpc[1]);
            int64_t row = 16 * w + g + 8 * ((i >> 1) & 1) + 64 * (wg / wpc[1] + wgM * (rep / repsN));
            int64_t col = 8 * (i >> 2) + 2 * t + (i & 1) + instrN * (wg % wpc[1] + wpc[1] * (rep % repsN));
            ASSERT_EQ(l.apply(in), (std::vector<int32_t>{int32_t(row % m), int32_t(col % n)})) << l.str();
          });
          EXPECT_TRUE(l.isSurjective());
        }
  EXPECT_THROW(wgmmaAccumulator({64, 64}, 64, {2, 2}), InternalError);
  EXPECT_THROW(wgmmaAccumulator({64, 64}, 12, {4, 1}), InternalError);
}

}  // namespace
}  // namespace kiln::layout::test
