// The GF(2) algebra as laws checked by brute force on seeded random layouts (including broadcast ones):
// rank and injectivity, free variables, vector widths, compose, invert, pseudoinvert, invertAndCompose.
#include <set>

#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

const std::vector<std::string> kDims2 = {"dim0", "dim1"};

std::set<std::vector<int32_t>> image(const L& l) {
  std::set<std::vector<int32_t>> img;
  forEachInput(l, [&](const std::vector<int32_t>& in) { img.insert(l.apply(in)); });
  return img;
}

TEST(Algebra, RankMatchesBruteForceImage) {
  Rng rng(10);
  for (int iter = 0; iter < 60; ++iter) {
    L l = randomLayout(rng, kRLW, kDims2, 3, 3, 0.3);
    size_t img = image(l).size();
    EXPECT_EQ(int64_t(img), int64_t(1) << l.rank());
    EXPECT_EQ(l.isSurjective(), int64_t(img) == l.totalOutSize());
    EXPECT_EQ(l.isInjective(), int64_t(img) == l.totalInSize());
    EXPECT_EQ(l.isInvertible(), l.isSurjective() && l.isInjective());
  }
}

TEST(Algebra, FreeVariableMasksOfBroadcastLayout) {
  // lane bit 0 duplicates register bit 0, lane bit 2 is a broadcast, warp bit 0 = reg0 ^ lane1.
  L l({{"register", {{0, 1}, {0, 2}}}, {"lane", {{0, 1}, {1, 0}, {0, 0}}}, {"warp", {{1, 1}, {2, 0}}}},
      {{"dim0", 4}, {"dim1", 4}});
  DimMasks m = l.getFreeVariableMasks();
  EXPECT_EQ(m.get("register"), 0);
  EXPECT_EQ(m.get("lane"), 0b101);
  EXPECT_EQ(m.get("warp"), 0b01);
  EXPECT_EQ(m.get("offset"), 0);
  EXPECT_EQ(m.masks.size(), 3u);
}

TEST(Algebra, FreeVariablesOnlyDuplicateData) {
  // Clearing the free bits of an input never changes its image, and the non-free bits are injective.
  Rng rng(11);
  for (int iter = 0; iter < 40; ++iter) {
    L l = randomLayout(rng, kRLW, kDims2, 3, 2, 0.3);
    DimMasks m = l.getFreeVariableMasks();
    int freeBits = 0;
    for (const auto& [n, mask] : m.masks) freeBits += __builtin_popcount(mask);
    EXPECT_EQ(l.totalInBits() - freeBits, l.rank());
    std::set<std::vector<int32_t>> seen;
    forEachInput(l, [&](const std::vector<int32_t>& in) {
      std::vector<int32_t> cleared = in;
      for (size_t i = 0; i < in.size(); ++i) cleared[i] &= ~m.masks[i].second;
      if (cleared == in) {
        ASSERT_TRUE(seen.insert(l.apply(in)).second) << l.str();
      }
    });
    EXPECT_EQ(seen.size(), image(l).size());
  }
}

TEST(Algebra, NumConsecutiveInOut) {
  // 4 registers along dim1, then lanes: vectors of 4.
  L v4({{"register", {{0, 1}, {0, 2}, {1, 0}}}, {"lane", {{0, 4}, {2, 0}}}}, {{"dim0", 4}, {"dim1", 8}});
  EXPECT_EQ(v4.getNumConsecutiveInOut(), 4);
  EXPECT_EQ(v4.getNumConsecutiveInOut("register", "dim1"), 4);
  EXPECT_EQ(v4.getNumConsecutiveInOut("register", "dim0"), 1);
  EXPECT_EQ(v4.getNumConsecutiveInOut("lane"), 1);  // lane bit 0 steps by 4, not 1
  // The fastest dim is found from register bit 0.
  L v2({{"register", {{1, 0}, {2, 0}, {0, 1}}}}, {{"dim0", 4}, {"dim1", 2}});
  EXPECT_EQ(v2.getNumConsecutiveInOut(), 4);
  // A lane that touches the low bits breaks alignment: only 1 then.
  L unaligned({{"register", {{0, 1}, {0, 2}}}, {"lane", {{0, 1}}}}, {{"dim0", 1}, {"dim1", 4}});
  EXPECT_EQ(unaligned.getNumConsecutiveInOut(), 1);
  L half({{"register", {{0, 1}, {0, 2}}}, {"lane", {{0, 6}}}}, {{"dim0", 1}, {"dim1", 8}});
  EXPECT_EQ(half.getNumConsecutiveInOut(), 2);
  L broadcast({{"register", {{0, 0}, {0, 1}}}}, {{"dim0", 1}, {"dim1", 2}});
  EXPECT_EQ(broadcast.getNumConsecutiveInOut(), 1);
  EXPECT_EQ(L::identity1D(1, "register", "dim0").getNumConsecutiveInOut(), 1);
}

TEST(Algebra, NumConsecutiveInOutMatchesBruteForce) {
  Rng rng(12);
  for (int iter = 0; iter < 200; ++iter) {
    L l = randomLayout(rng, {"register", "lane"}, {"dim0", "dim1"}, 3, 3, 0.1);
    int32_t n = l.getNumConsecutiveInOut("register", "dim1");
    auto vectorizes = [&](int32_t w) {
      bool ok = true;
      forEachInput(l, [&](const std::vector<int32_t>& in) {
        if (in[0] % w) return;
        std::vector<int32_t> start = l.apply(in);
        ok = ok && start[1] % w == 0;
        for (int32_t k = 1; k < w && ok; ++k) {
          std::vector<int32_t> c = l.apply(std::vector<int32_t>{in[0] + k, in[1]});
          ok = c[0] == start[0] && c[1] == start[1] + k;
        }
      });
      return ok;
    };
    EXPECT_TRUE(vectorizes(n)) << l.str();
    if (2 * n <= l.ins()[0].size()) {
      EXPECT_FALSE(vectorizes(2 * n)) << l.str();
    }
  }
}

// Random bases for the given in dims (log2 sizes) into the given out dims.
L randomMap(Rng& rng, const std::vector<std::pair<std::string, int>>& ins, const std::vector<OutDim>& outs) {
  std::vector<InDim> dims;
  for (const auto& [name, bits] : ins) {
    InDim d{name, {}};
    for (int k = 0; k < bits; ++k) {
      Basis b;
      for (const OutDim& o : outs) b.push_back(rng.uniform(0, o.size - 1));
      d.bases.push_back(b);
    }
    dims.push_back(d);
  }
  return L(dims, outs);
}

TEST(Algebra, ComposeIsFunctionComposition) {
  Rng rng(13);
  for (int iter = 0; iter < 40; ++iter) {
    L a = randomLayout(rng, kRLW, {"x", "y"}, 2, 3);
    // b takes (y, x) in the other order, each at least as large as a's outputs.
    L b = randomMap(rng, {{"y", a.getOutDimSizeLog2("y") + rng.uniform(0, 1)}, {"x", a.getOutDimSizeLog2("x")}},
                    {{"dim0", 8}, {"dim1", 4}});
    L c = a.compose(b);
    EXPECT_EQ(c.outs(), b.outs());
    EXPECT_EQ(c.inDimNames(), a.inDimNames());
    forEachInput(a, [&](const std::vector<int32_t>& in) {
      std::vector<int32_t> mid = a.apply(in);  // (x, y)
      ASSERT_EQ(c.apply(in), b.apply(std::vector<int32_t>{mid[1], mid[0]}));
    });
  }
  EXPECT_THROW(L::identity1D(8, "r", "x").compose(L::identity1D(4, "x", "d")), InternalError);
  EXPECT_THROW(L::identity1D(8, "r", "x").compose(L::identity1D(8, "y", "d")), InternalError);
}

TEST(Algebra, ComposeIsAssociative) {
  Rng rng(14);
  for (int iter = 0; iter < 40; ++iter) {
    L a = randomLayout(rng, {"register", "lane"}, {"p", "q"}, 3, 3);
    L b = randomMap(rng, {{"p", a.getOutDimSizeLog2("p")}, {"q", a.getOutDimSizeLog2("q")}}, {{"s", 16}});
    L c = randomMap(rng, {{"s", 4}}, {{"dim0", 4}, {"dim1", 8}});
    EXPECT_EQ(a.compose(b).compose(c), a.compose(b.compose(c)));
  }
}

TEST(Algebra, InvertLaws) {
  Rng rng(15);
  for (int iter = 0; iter < 60; ++iter) {
    L l = randomLayoutWhere(rng, [](const L& x) { return x.isInvertible(); }, {"register", "lane"}, kDims2, 3, 3, 0.0);
    L inv = l.invert();
    EXPECT_EQ(inv.inDimNames(), l.outDimNames());
    EXPECT_EQ(inv.outDimNames(), l.inDimNames());
    EXPECT_EQ(inv.invert(), l);
    L idOuts = L::identity1D(l.outs()[0].size, "dim0", "dim0") * L::identity1D(l.outs()[1].size, "dim1", "dim1");
    EXPECT_EQ(inv.compose(l), idOuts);
    forEachInput(l, [&](const std::vector<int32_t>& in) { ASSERT_EQ(inv.apply(l.apply(in)), in); });
  }
  L notInjective({{"register", {{1}, {1}}}}, {{"dim0", 2}});
  EXPECT_THROW(notInjective.invert(), InternalError);
  L notSurjective({{"register", {{1}}}}, {{"dim0", 4}});
  EXPECT_THROW(notSurjective.invert(), InternalError);
}

TEST(Algebra, PseudoinverseIsAGeneralizedInverse) {
  Rng rng(16);
  for (int iter = 0; iter < 60; ++iter) {
    L l = randomLayout(rng, kRLW, kDims2, 3, 3, 0.3);
    L p = l.pseudoinvert();
    forEachInput(l, [&](const std::vector<int32_t>& in) {
      std::vector<int32_t> y = l.apply(in);
      ASSERT_EQ(l.apply(p.apply(y)), y) << l.str();
    });
    // Preimages never use free bits.
    DimMasks free = l.getFreeVariableMasks();
    forEachInput(p, [&](const std::vector<int32_t>& y) {
      std::vector<int32_t> x = p.apply(y);
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i] & free.masks[i].second, 0);
    });
    if (l.isSurjective()) {  // a right inverse
      forEachInput(p, [&](const std::vector<int32_t>& y) { ASSERT_EQ(l.apply(p.apply(y)), y); });
    }
    if (l.isInjective()) {  // a left inverse
      forEachInput(l, [&](const std::vector<int32_t>& x) { ASSERT_EQ(p.apply(l.apply(x)), x); });
    }
    if (l.isInvertible()) {
      EXPECT_EQ(p, l.invert());
    }
  }
}

TEST(Algebra, InvertAndComposeLandsOnTheSameCoordinates) {
  Rng rng(17);
  int broadcastCases = 0;
  for (int iter = 0; iter < 150; ++iter) {
    L other = randomLayoutWhere(rng, [](const L& x) { return x.isSurjective(); }, kRLW, kDims2, 3, 3, 0.3);
    L self = randomLayout(rng, {"register", "lane", "warp"}, kDims2, 3, 0, 0.3);
    // Resize self's outputs to other's and redraw its bases there.
    std::vector<InDim> ins = self.ins();
    for (InDim& d : ins)
      for (Basis& b : d.bases)
        if (!rng.chance(0.25)) b = {rng.uniform(0, other.outs()[0].size - 1), rng.uniform(0, other.outs()[1].size - 1)};
        else b = {0, 0};
    self = L(ins, other.outs());
    if (!other.isInjective()) ++broadcastCases;
    L m = self.invertAndCompose(other);
    EXPECT_EQ(m.inDimNames(), self.inDimNames());
    EXPECT_EQ(m.outDimNames(), other.inDimNames());
    forEachInput(self, [&](const std::vector<int32_t>& x) { ASSERT_EQ(other.apply(m.apply(x)), self.apply(x)); });
  }
  EXPECT_GT(broadcastCases, 50);
}

TEST(Algebra, InvertAndComposePrefersRegistersAndHandlesOutOrder) {
  // The value at dim1 = 1 is both in register bit 0 and lane bit 0 of `other`: the register wins.
  L other({{"register", {{0, 1}}}, {"lane", {{0, 1}, {1, 0}}}}, {{"dim0", 2}, {"dim1", 2}});
  L self({{"lane", {{1, 0}, {0, 1}}}}, {{"dim0", 2}, {"dim1", 2}});
  L m = self.invertAndCompose(other);
  EXPECT_EQ(m.ins()[0].bases, (std::vector<Basis>{{0, 2}, {1, 0}}));
  // Out dims in a different order on each side.
  L selfT = self.transposeOuts({"dim1", "dim0"});
  EXPECT_EQ(selfT.invertAndCompose(other), m);
  // Not in the image: other covers dim1 only.
  L narrow({{"register", {{0, 1}}}}, {{"dim0", 2}, {"dim1", 2}});
  EXPECT_THROW(self.invertAndCompose(narrow), InternalError);
  EXPECT_THROW(self.invertAndCompose(L::identity1D(2, "register", "dim0")), InternalError);
  // A coordinate beyond other's out size is not in its image, even where its bits would alias.
  L src({{"register", {{0, 1}}}}, {{"dim0", 2}, {"dim1", 2}});
  L wide({{"register", {{2, 0}}}}, {{"dim0", 4}, {"dim1", 2}});
  EXPECT_THROW(wide.invertAndCompose(src), InternalError);
}

TEST(Algebra, InvertAndComposeOfInvertibleIsComposeWithInverse) {
  Rng rng(18);
  for (int iter = 0; iter < 30; ++iter) {
    L other = randomLayoutWhere(rng, [](const L& x) { return x.isInvertible(); }, {"offset"}, kDims2, 6, 3, 0.0);
    L self = randomLayout(rng, kRLW, kDims2, 2, 0);
    std::vector<InDim> ins = self.ins();
    for (InDim& d : ins)
      for (Basis& b : d.bases) b = {rng.uniform(0, other.outs()[0].size - 1), rng.uniform(0, other.outs()[1].size - 1)};
    self = L(ins, other.outs());
    EXPECT_EQ(self.invertAndCompose(other), self.compose(other.invert()));
  }
}

}  // namespace
}  // namespace kiln::layout::test
