// blocked, defaultBlocked and sliceLayout against the CUDA-style ownership formula, for many shapes,
// sizes per thread, lane and warp arrangements and orders (including shapes smaller than the CTA tile).
#include <set>

#include "layout/named_layouts.h"
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

struct BlockedParams {
  std::vector<int64_t> shape;
  std::vector<int32_t> spt, tpw, wpc, order;
};

// Mixed-radix digits of v over sizes, taken in `order` (order[0] fastest).
std::vector<int64_t> delinearize(int64_t v, const std::vector<int64_t>& sizes, const std::vector<int32_t>& order) {
  std::vector<int64_t> digits(sizes.size(), 0);
  for (int32_t d : order) {
    digits[d] = v % sizes[d];
    v /= sizes[d];
  }
  return digits;
}

// Element owned by (register, lane, warp): the per-thread block, then lanes, then warps, then repeats
// of the CTA tile, each numbered in `order`; modulo the shape.
std::vector<int32_t> blockedFormula(const BlockedParams& p, int64_t reg, int64_t lane, int64_t warp) {
  size_t rank = p.shape.size();
  std::vector<int64_t> spt(p.spt.begin(), p.spt.end()), tpw(p.tpw.begin(), p.tpw.end()),
      wpc(p.wpc.begin(), p.wpc.end()), reps(rank);
  int64_t perThread = 1;
  for (size_t d = 0; d < rank; ++d) {
    reps[d] = std::max<int64_t>(1, p.shape[d] / (spt[d] * tpw[d] * wpc[d]));
    perThread *= spt[d];
  }
  std::vector<int64_t> e = delinearize(reg % perThread, spt, p.order), r = delinearize(reg / perThread, reps, p.order),
                       l = delinearize(lane, tpw, p.order), w = delinearize(warp, wpc, p.order);
  std::vector<int32_t> coords;
  for (size_t d = 0; d < rank; ++d)
    coords.push_back(int32_t((e[d] + spt[d] * (l[d] + tpw[d] * (w[d] + wpc[d] * r[d]))) % p.shape[d]));
  return coords;
}

void checkBlocked(const BlockedParams& p) {
  L l = blocked(p.shape, p.spt, p.tpw, p.wpc, p.order);
  ASSERT_EQ(l.inDimNames(), kRLW);
  ASSERT_EQ(l.outDimNames(), standardOutDims(int(p.shape.size())));
  int64_t lanes = 1, warps = 1, regs = 1;
  bool fits = true;
  for (size_t d = 0; d < p.shape.size(); ++d) {
    int64_t tile = int64_t(p.spt[d]) * p.tpw[d] * p.wpc[d];
    lanes *= p.tpw[d];
    warps *= p.wpc[d];
    regs *= p.spt[d] * std::max<int64_t>(1, p.shape[d] / tile);
    fits = fits && p.shape[d] >= tile;
  }
  ASSERT_EQ(l.getInDimSize("lane"), lanes);
  ASSERT_EQ(l.getInDimSize("warp"), warps);
  ASSERT_EQ(l.getInDimSize("register"), regs);
  forEachInput(l, [&](const std::vector<int32_t>& in) {
    ASSERT_EQ(l.apply(in), blockedFormula(p, in[0], in[1], in[2])) << l.str();
  });
  EXPECT_TRUE(l.isSurjective());           // every element has an owner
  EXPECT_EQ(l.isInjective(), fits);        // and exactly one unless the tile is larger than the shape
}

TEST(Blocked, SmallExample) {
  // 2 elements per thread along dim1, 4x8 lanes, 2 warps along dim0: a 8x16 CTA tile on a 16x16 shape.
  L l = blocked({16, 16}, {1, 2}, {4, 8}, {2, 1}, {1, 0});
  EXPECT_EQ(l.str(),
            "{register=[[0,1],[8,0]], lane=[[0,2],[0,4],[0,8],[1,0],[2,0]], warp=[[4,0]]} -> [dim0=16, dim1=16]");
}

TEST(Blocked, MatchesFormulaOnFixedCases) {
  std::vector<BlockedParams> cases = {
      {{128}, {4}, {32}, {4}, {0}},
      {{1024}, {4}, {32}, {4}, {0}},                     // registers repeat
      {{64}, {4}, {32}, {4}, {0}},                       // warps broadcast
      {{2}, {4}, {32}, {1}, {0}},                        // even the per-thread block wraps
      {{32, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0}},
      {{32, 64}, {4, 1}, {16, 2}, {1, 4}, {0, 1}},       // column-major
      {{16, 8}, {2, 2}, {4, 8}, {2, 2}, {1, 0}},
      {{4, 4}, {1, 1}, {8, 4}, {2, 2}, {1, 0}},          // everything larger than the shape
      {{2, 4, 8}, {1, 1, 2}, {2, 4, 4}, {1, 2, 1}, {2, 1, 0}},
      {{8, 4, 2}, {2, 1, 1}, {4, 4, 2}, {2, 1, 2}, {0, 2, 1}},
  };
  for (const BlockedParams& p : cases) checkBlocked(p);
}

// Splits 2^bits into `rank` power-of-two factors at random.
std::vector<int32_t> randomSplit(Rng& rng, int bits, size_t rank) {
  std::vector<int32_t> f(rank, 1);
  for (int b = 0; b < bits; ++b) f[rng.uniform(0, int(rank) - 1)] *= 2;
  return f;
}

TEST(Blocked, MatchesFormulaOnRandomCases) {
  Rng rng(30);
  for (int iter = 0; iter < 150; ++iter) {
    size_t rank = size_t(rng.uniform(1, 3));
    BlockedParams p;
    for (size_t d = 0; d < rank; ++d) p.shape.push_back(int64_t(1) << rng.uniform(0, 8 / int(rank) + 2));
    std::vector<int32_t> spt = randomSplit(rng, rng.uniform(0, 3), rank);
    p.spt = spt;
    p.tpw = randomSplit(rng, 5, rank);
    p.wpc = randomSplit(rng, rng.uniform(0, 3), rank);
    for (size_t d = 0; d < rank; ++d) p.order.push_back(int32_t(d));
    rng.shuffle(p.order);
    checkBlocked(p);
  }
}

TEST(Blocked, RejectsBadArguments) {
  EXPECT_THROW(blocked({12}, {1}, {32}, {1}, {0}), InternalError);
  EXPECT_THROW(blocked({16, 16}, {1}, {32}, {1}, {0}), InternalError);
  EXPECT_THROW(blocked({16, 16}, {1, 1}, {4, 8}, {1, 1}, {0, 0}), InternalError);
  EXPECT_THROW(blocked({16, 16}, {1, 3}, {4, 8}, {1, 1}, {1, 0}), InternalError);
}

// The parameters defaultBlocked should pick, read back from the layout's bases.
TEST(DefaultBlocked, CoalescedAlongTheFastestDim) {
  L l = defaultBlocked({64, 64}, 4, 4, {1, 0});
  EXPECT_EQ(l, blocked({64, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0}));
  EXPECT_EQ(l.getNumConsecutiveInOut(), 4);
  EXPECT_EQ(defaultBlocked({1024}, 4, 4, {0}), blocked({1024}, {4}, {32}, {4}, {0}));
  EXPECT_EQ(defaultBlocked({256, 16}, 8, 8, {1, 0}), blocked({256, 16}, {1, 8}, {16, 2}, {8, 1}, {1, 0}));
  // Column-major order: dim0 is the fast dim.
  EXPECT_EQ(defaultBlocked({64, 8}, 2, 2, {0, 1}), blocked({64, 8}, {2, 1}, {32, 1}, {1, 2}, {0, 1}));
  // Too small for the lanes and warps: the leftovers land on the slowest dim, as broadcast.
  EXPECT_EQ(defaultBlocked({4, 8}, 4, 4, {1, 0}), blocked({4, 8}, {1, 4}, {16, 2}, {4, 1}, {1, 0}));
  EXPECT_EQ(defaultBlocked({16}, 4, 8, {0}), blocked({16}, {8}, {32}, {4}, {0}));
}

TEST(DefaultBlocked, AlwaysCoversTheShapeAndDuplicatesOnlyWhenTooSmall) {
  Rng rng(31);
  for (int iter = 0; iter < 200; ++iter) {
    size_t rank = size_t(rng.uniform(1, 3));
    std::vector<int64_t> shape;
    int64_t numel = 1;
    for (size_t d = 0; d < rank; ++d) {
      shape.push_back(int64_t(1) << rng.uniform(0, 12 / int(rank)));
      numel *= shape.back();
    }
    int32_t warps = 1 << rng.uniform(0, 3), vec = 1 << rng.uniform(0, 3);
    std::vector<int32_t> order = rowMajorOrder(int(rank));
    L l = defaultBlocked(shape, warps, vec, order);
    EXPECT_TRUE(l.isSurjective()) << l.str();
    EXPECT_EQ(l.getInDimSize("lane"), 32);
    EXPECT_EQ(l.getInDimSize("warp"), warps);
    if (numel >= int64_t(32) * warps * vec) {
      EXPECT_TRUE(l.isInjective()) << l.str();
    }
    int64_t fast = shape[order[0]];
    EXPECT_EQ(l.getNumConsecutiveInOut("register", dimName(order[0])), std::min<int64_t>(vec, fast)) << l.str();
  }
}

TEST(Slice, DropsADimAndItsRegisters) {
  L parent = blocked({16, 32}, {2, 4}, {4, 8}, {2, 1}, {1, 0});
  // Reduce over dim1: registers along dim1 vanish, lanes along dim1 become broadcast.
  L s1 = sliceLayout(parent, 1);
  EXPECT_EQ(s1.str(), "{register=[[1]], lane=[[0],[0],[0],[2],[4]], warp=[[8]]} -> [dim0=16]");
  L s0 = sliceLayout(parent, 0);
  EXPECT_EQ(s0.str(), "{register=[[1],[2]], lane=[[4],[8],[16],[0],[0]], warp=[[0]]} -> [dim0=32]");
  EXPECT_THROW(sliceLayout(parent, 2), InternalError);
}

TEST(Slice, EveryThreadHoldsTheProjectionOfItsElements) {
  Rng rng(32);
  for (int iter = 0; iter < 60; ++iter) {
    std::vector<int64_t> shape = {int64_t(1) << rng.uniform(0, 5), int64_t(1) << rng.uniform(0, 5),
                                  int64_t(1) << rng.uniform(0, 3)};
    L parent = defaultBlocked(shape, 1 << rng.uniform(0, 2), 1 << rng.uniform(0, 2), {2, 0, 1});
    int dim = rng.uniform(0, 2);
    L s = sliceLayout(parent, dim);
    ASSERT_EQ(s.outs().size(), 2u);
    // For each thread, the set of projected coordinates it holds is the same in both layouts.
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t warp = 0; warp < parent.getInDimSize("warp"); ++warp) {
        std::set<std::vector<int32_t>> fromParent, fromSlice;
        for (int32_t r = 0; r < parent.getInDimSize("register"); ++r) {
          std::vector<int32_t> c = parent.apply(std::vector<int32_t>{r, lane, warp});
          c.erase(c.begin() + dim);
          fromParent.insert(c);
        }
        for (int32_t r = 0; r < s.getInDimSize("register"); ++r)
          fromSlice.insert(s.apply(std::vector<int32_t>{r, lane, warp}));
        ASSERT_EQ(fromParent, fromSlice) << parent.str() << " dim " << dim;
      }
  }
}

}  // namespace
}  // namespace kiln::layout::test
