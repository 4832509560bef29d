// Conversion helpers: register -> shared offsets, shared vector widths, reduction bits (checked as a
// butterfly that combines each element exactly once), register-only and warp-local conversions.
#include <map>
#include <set>

#include "layout/conversions.h"
#include "layout/named_layouts.h"
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

std::vector<L> registerLayoutZoo() {
  return {blocked({64, 64}, {1, 4}, {4, 8}, {4, 1}, {1, 0}),
          blocked({64, 64}, {4, 1}, {8, 4}, {1, 4}, {0, 1}),
          blocked({8, 16}, {1, 2}, {4, 8}, {2, 2}, {1, 0}),  // broadcast warps
          blocked({128}, {8}, {32}, {2}, {0}).reshapeOuts({{"dim0", 8}, {"dim1", 16}}),
          defaultBlocked({32, 128}, 4, 8, {1, 0}),
          defaultBlocked({2, 4}, 4, 4, {1, 0}),  // mostly broadcast
          mmaV2Accumulator({64, 64}, {2, 2}),
          mmaV2Accumulator({16, 32}, {2, 2}),
          mmaV2Operand(0, {64, 64}, {2, 2}, 16),
          mmaV2Operand(1, {64, 64}, {2, 2}, 16)};
}

TEST(Conversions, SharedOffsetsLandOnTheSameElement) {
  std::vector<L> shared = {sharedPlain({64, 64}, {1, 0}), sharedPlain({64, 64}, {0, 1}),
                           sharedSwizzled({64, 64}, 8, 1, 8, {1, 0}), sharedSwizzled({64, 64}, 4, 2, 4, {0, 1})};
  for (const L& regs : registerLayoutZoo()) {
    if (regs.outs()[0].size != 64 || regs.outs()[1].size != 64) continue;
    for (const L& s : shared) {
      L off = sharedOffsets(regs, s);
      EXPECT_EQ(off.outDimNames(), std::vector<std::string>{"offset"});
      forEachInput(regs, [&](const std::vector<int32_t>& in) {
        ASSERT_EQ(s.apply(off.apply(in)), regs.apply(in));
      });
    }
  }
}

TEST(Conversions, SharedOffsetBitsAreTheOffsetLayoutsBases) {
  std::vector<L> shared = {sharedPlain({64, 64}, {1, 0}), sharedSwizzled({64, 64}, 8, 1, 8, {1, 0}),
                           sharedSwizzled({64, 64}, 4, 2, 4, {0, 1})};
  for (const L& regs : registerLayoutZoo()) {
    if (regs.outs()[0].size != 64 || regs.outs()[1].size != 64) continue;
    for (const L& s : shared) {
      L off = sharedOffsets(regs, s);
      std::vector<std::vector<int64_t>> bits = sharedOffsetBits(regs, s);
      ASSERT_EQ(bits.size(), off.ins().size());
      for (size_t i = 0; i < bits.size(); ++i) {
        ASSERT_EQ(bits[i].size(), off.ins()[i].bases.size());
        for (size_t b = 0; b < bits[i].size(); ++b) EXPECT_EQ(bits[i][b], off.ins()[i].bases[b][0]) << regs.str();
      }
    }
  }
  EXPECT_THROW(sharedOffsetBits(registerLayoutZoo()[0], sharedPlain({32, 64}, {1, 0})), InternalError);
}

TEST(Conversions, SharedVectorWidth) {
  L regs = blocked({64, 64}, {1, 8}, {8, 4}, {4, 1}, {1, 0});
  EXPECT_EQ(sharedVectorWidth(regs, sharedPlain({64, 64}, {1, 0})), 8);
  EXPECT_EQ(sharedVectorWidth(regs, sharedPlain({64, 64}, {0, 1})), 1);  // transposed in memory
  EXPECT_EQ(sharedVectorWidth(regs, sharedSwizzled({64, 64}, 8, 1, 8, {1, 0})), 8);
  EXPECT_EQ(sharedVectorWidth(regs, sharedSwizzled({64, 64}, 4, 1, 8, {1, 0})), 4);  // 4-element chunks move
  EXPECT_EQ(sharedVectorWidth(regs, sharedSwizzled({64, 64}, 2, 1, 8, {1, 0})), 2);
  L acc = mmaV2Accumulator({64, 64}, {2, 2});
  EXPECT_EQ(sharedVectorWidth(acc, sharedPlain({64, 64}, {1, 0})), 2);
  EXPECT_EQ(sharedVectorWidth(acc, sharedPlain({64, 64}, {0, 1})), 1);
}

TEST(Conversions, SharedVectorWidthIsTheLargestValidVector) {
  // Brute force: registers [k*w, (k+1)*w) sit at consecutive offsets starting at a multiple of w.
  std::vector<L> shared = {sharedPlain({64, 64}, {1, 0}), sharedSwizzled({64, 64}, 8, 1, 8, {1, 0}),
                           sharedSwizzled({64, 64}, 2, 2, 4, {1, 0}), sharedSwizzled({64, 64}, 4, 1, 4, {0, 1})};
  for (const L& regs : registerLayoutZoo()) {
    if (regs.outs()[0].size != 64 || regs.outs()[1].size != 64) continue;
    for (const L& s : shared) {
      L off = sharedOffsets(regs, s);
      auto valid = [&](int32_t w) {
        bool ok = true;
        forEachInput(off, [&](const std::vector<int32_t>& in) {
          if (in[0] % w) return;
          int32_t base = off.apply(in)[0];
          ok = ok && base % w == 0;
          for (int32_t k = 1; k < w && ok; ++k) ok = off.apply(std::vector<int32_t>{in[0] + k, in[1], in[2]})[0] == base + k;
        });
        return ok;
      };
      int32_t w = sharedVectorWidth(regs, s);
      EXPECT_TRUE(valid(w)) << regs.str();
      if (2 * w <= regs.getInDimSize("register")) {
        EXPECT_FALSE(valid(2 * w)) << regs.str();
      }
    }
  }
}

// A butterfly over the steps named by `bits` must visit, from every input, each element that shares the
// input's non-`dim` coordinates exactly once.
void checkReduction(const L& l, int dim) {
  DimMasks bits = reductionBits(l, dim);
  std::vector<std::vector<int32_t>> steps;
  for (size_t i = 0; i < l.ins().size(); ++i)
    for (int b = 0; b < 31; ++b)
      if (bits.masks[i].second & (1 << b)) {
        std::vector<int32_t> s(l.ins().size(), 0);
        s[i] = 1 << b;
        steps.push_back(s);
      }
  std::map<std::vector<int32_t>, std::set<int32_t>> line;  // other coords -> dim coords present
  forEachInput(l, [&](const std::vector<int32_t>& in) {
    std::vector<int32_t> c = l.apply(in);
    int32_t along = c[dim];
    c.erase(c.begin() + dim);
    line[c].insert(along);
  });
  forEachInput(l, [&](const std::vector<int32_t>& in) {
    std::vector<int32_t> key = l.apply(in);
    key.erase(key.begin() + dim);
    std::set<int32_t> visited;
    for (uint32_t sub = 0; sub < (1u << steps.size()); ++sub) {
      std::vector<int32_t> x = in;
      for (size_t k = 0; k < steps.size(); ++k)
        if (sub & (1u << k))
          for (size_t i = 0; i < x.size(); ++i) x[i] ^= steps[k][i];
      std::vector<int32_t> c = l.apply(x);
      int32_t along = c[dim];
      c.erase(c.begin() + dim);
      ASSERT_EQ(c, key) << l.str();
      ASSERT_TRUE(visited.insert(along).second) << "element combined twice in " << l.str();
    }
    ASSERT_EQ(visited, line[key]) << l.str();
  });
}

TEST(Conversions, ReductionBitsFormAnExactButterfly) {
  for (const L& l : registerLayoutZoo())
    for (int dim : {0, 1}) checkReduction(l, dim);
  checkReduction(blocked({4, 8, 16}, {1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0}), 1);
  // Duplicated data: lane bit 0 repeats register bit 0, lane bit 2 is broadcast.
  L dup({{"register", {{0, 1}, {1, 0}}}, {"lane", {{0, 1}, {0, 2}, {0, 0}}}, {"warp", {{0, 4}}}},
        {{"dim0", 2}, {"dim1", 8}});
  checkReduction(dup, 1);
  DimMasks m = reductionBits(dup, 1);
  EXPECT_EQ(m.get("register"), 0b01);
  EXPECT_EQ(m.get("lane"), 0b010);
  EXPECT_EQ(m.get("warp"), 0b1);
}

TEST(Conversions, ReductionBitsOfTheMmaAccumulator) {
  // Row sums of an mma accumulator: registers 0 (col+1), lanes 0 and 1 (shfl.bfly 1, 2), N warps.
  DimMasks m = reductionBits(mmaV2Accumulator({64, 64}, {2, 2}), 1);
  EXPECT_EQ(m.get("register"), 0b01101);  // bit 0, and bits 2, 3 = the repeats along N
  EXPECT_EQ(m.get("lane"), 0b00011);
  EXPECT_EQ(m.get("warp"), 0b01);
  EXPECT_EQ(sliceLayout(mmaV2Accumulator({64, 64}, {2, 2}), 1).getInDimSize("register"), 4);
}

TEST(Conversions, ReductionBitsRejectMixedBases) {
  L mixed({{"register", {{1, 1}}}, {"lane", {{0, 1}}}}, {{"dim0", 2}, {"dim1", 2}});
  EXPECT_THROW(reductionBits(mixed, 0), InternalError);
  EXPECT_THROW(reductionBits(mixed, 2), InternalError);
}

// Brute force: src(M(x)) == dst(x) and M keeps `fixed` dims.
void checkConversion(const L& src, const L& dst, const L& m, const std::vector<std::string>& keptDims) {
  forEachInput(dst, [&](const std::vector<int32_t>& x) {
    std::vector<int32_t> y(src.ins().size(), 0);
    std::vector<int32_t> moved = m.apply(std::vector<int32_t>(x.begin(), x.begin() + m.ins().size()));
    for (size_t i = 0; i < m.outs().size(); ++i) y[src.inDimIndex(m.outs()[i].name)] = moved[i];
    for (const std::string& k : keptDims) y[src.inDimIndex(k)] = x[dst.inDimIndex(k)];
    ASSERT_EQ(src.apply(y), dst.apply(x)) << src.str() << " -> " << dst.str();
  });
}

TEST(Conversions, RegisterOnlyConversion) {
  L src = blocked({32, 32}, {2, 4}, {4, 8}, {2, 1}, {1, 0});
  // The same elements per thread, registers in another order (order {0, 1} numbers dim0 first).
  std::vector<InDim> ins = src.ins();
  std::swap(ins[0].bases[0], ins[0].bases[2]);
  L permuted(ins, src.outs());
  std::optional<L> m = registerOnlyConversion(src, permuted);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->inDimNames(), std::vector<std::string>{"register"});
  checkConversion(src, permuted, *m, {"lane", "warp"});
  EXPECT_TRUE(needsNoDataMovement(src, src));
  // Adding a duplicated register (a zero basis) needs no data movement either way.
  std::vector<InDim> dupIns = src.ins();
  dupIns[0].bases.push_back({0, 0});
  L dup(dupIns, src.outs());
  ASSERT_TRUE(needsNoDataMovement(src, dup));
  checkConversion(src, dup, *registerOnlyConversion(src, dup), {"lane", "warp"});
  ASSERT_TRUE(needsNoDataMovement(dup, src));
  // Lanes swapped: data moves between threads.
  std::vector<InDim> laneIns = src.ins();
  std::swap(laneIns[1].bases[0], laneIns[1].bases[3]);
  L lanesMoved(laneIns, src.outs());
  EXPECT_FALSE(needsNoDataMovement(src, lanesMoved));
  EXPECT_FALSE(needsNoDataMovement(src, blocked({32, 32}, {2, 4}, {4, 8}, {1, 2}, {1, 0})));
  EXPECT_FALSE(needsNoDataMovement(mmaV2Accumulator({32, 32}, {2, 1}), blocked({32, 32}, {2, 4}, {4, 8}, {2, 1}, {1, 0})));
  // A slice and its parent's slice agree.
  EXPECT_TRUE(needsNoDataMovement(sliceLayout(src, 1), sliceLayout(permuted, 1)));
}

TEST(Conversions, WarpLocalConversion) {
  L src = blocked({32, 32}, {2, 4}, {4, 8}, {2, 1}, {1, 0});
  std::vector<InDim> laneIns = src.ins();
  std::swap(laneIns[1].bases[0], laneIns[1].bases[3]);
  std::swap(laneIns[0].bases[1], laneIns[1].bases[1]);
  L shuffled(laneIns, src.outs());
  std::optional<L> m = warpLocalConversion(src, shuffled);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->inDimNames(), (std::vector<std::string>{"register", "lane"}));
  checkConversion(src, shuffled, *m, {"warp"});
  // mma accumulator <-> a blocked layout with the same per-warp 16x8 tiles stays in the warp.
  L acc = mmaV2Accumulator({32, 16}, {2, 2});
  L blk = blocked({32, 16}, {2, 2}, {8, 4}, {2, 2}, {1, 0});
  std::optional<L> m2 = warpLocalConversion(acc, blk);
  ASSERT_TRUE(m2.has_value());
  checkConversion(acc, blk, *m2, {"warp"});
  EXPECT_FALSE(warpLocalConversion(acc, blocked({32, 16}, {1, 2}, {8, 4}, {4, 1}, {1, 0})).has_value());
  EXPECT_FALSE(warpLocalConversion(acc, blocked({32, 16}, {1, 2}, {8, 4}, {4, 2}, {1, 0})).has_value());
}

TEST(Conversions, RandomConversionsAgreeWithBruteForce) {
  Rng rng(40);
  int found = 0;
  for (int iter = 0; iter < 300; ++iter) {
    L src = randomLayout(rng, kRLW, {"dim0", "dim1"}, 2, 2, 0.3);
    std::vector<InDim> ins = src.ins();
    for (InDim& d : ins)  // dst: src with a few bases redrawn
      for (Basis& b : d.bases)
        if (rng.chance(0.3)) b = {rng.uniform(0, src.outs()[0].size - 1), rng.uniform(0, src.outs()[1].size - 1)};
    L dst(ins, src.outs());
    for (const std::vector<std::string>& kept : std::vector<std::vector<std::string>>{{"lane", "warp"}, {"warp"}, {}}) {
      std::optional<L> m = conversionKeeping(src, dst, kept);
      if (!m) continue;
      ++found;
      std::vector<std::string> moved;
      for (const std::string& n : kRLW)
        if (std::find(kept.begin(), kept.end(), n) == kept.end()) moved.push_back(n);
      L movedPart = m->sublayout(moved, moved);
      checkConversion(src, dst, movedPart, kept);
    }
  }
  EXPECT_GT(found, 100);
}

TEST(Conversions, CoordinatesOutsideTheSourceAreNotFound) {
  // dst reaches dim0 = 2, which src (dim0 of size 2) does not hold, though src holds (0, 1).
  L src({{"register", {{0, 1}}}}, {{"dim0", 2}, {"dim1", 2}});
  L dst({{"register", {{2, 0}}}}, {{"dim0", 4}, {"dim1", 2}});
  EXPECT_FALSE(conversionKeeping(src, dst, {}).has_value());
  EXPECT_TRUE(conversionKeeping(dst, dst, {}).has_value());
  EXPECT_THROW(conversionKeeping(src, L::identity1D(2, "register", "dim0"), {}), InternalError);
}

}  // namespace
}  // namespace kiln::layout::test
