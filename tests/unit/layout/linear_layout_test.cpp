// LinearLayout construction, validation, evaluation and the structural operations (product, transposes,
// reshapes, sublayout, rename), checked against hand-computed bases and brute-force enumeration.
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

TEST(LinearLayout, OneDimConstructors) {
  L id = L::identity1D(8, "register", "dim0");
  EXPECT_EQ(id.getInDimSize("register"), 8);
  EXPECT_EQ(id.getOutDimSize("dim0"), 8);
  for (int32_t i = 0; i < 8; ++i) EXPECT_EQ(id.apply(std::vector<int32_t>{i}), std::vector<int32_t>{i});
  L z = L::zeros1D(4, "lane", "dim1", 2);
  EXPECT_EQ(z.getOutDimSize("dim1"), 2);
  for (int32_t i = 0; i < 4; ++i) EXPECT_EQ(z.apply(std::vector<int32_t>{i}), std::vector<int32_t>{0});
  L s = L::strided1D(4, 8, "register", "dim0");
  EXPECT_EQ(s.getOutDimSize("dim0"), 32);
  for (int32_t i = 0; i < 4; ++i) EXPECT_EQ(s.apply(std::vector<int32_t>{i}), std::vector<int32_t>{8 * i});
  L one = L::identity1D(1, "warp", "dim0");
  EXPECT_EQ(one.totalInBits(), 0);
  EXPECT_EQ(one.apply(std::vector<int32_t>{0}), std::vector<int32_t>{0});
}

TEST(LinearLayout, ValidationRejectsMalformedDims) {
  EXPECT_THROW(L({{"r", {{1}}}}, std::vector<OutDim>{{"d", 3}}), InternalError);           // size not 2^k
  EXPECT_THROW(L({{"r", {{4}}}}, std::vector<OutDim>{{"d", 4}}), InternalError);           // out of range
  EXPECT_THROW(L({{"r", {{1, 0}}}}, std::vector<OutDim>{{"d", 4}}), InternalError);        // arity
  EXPECT_THROW(L({{"r", {}}, {"r", {}}}, std::vector<OutDim>{{"d", 4}}), InternalError);   // duplicate in
  EXPECT_THROW(L({{"r", {}}}, std::vector<OutDim>{{"d", 4}, {"d", 2}}), InternalError);    // duplicate out
  EXPECT_THROW(L({{"r", {{-1}}}}, std::vector<OutDim>{{"d", 4}}), InternalError);          // negative
  EXPECT_THROW(L::identity1D(3, "r", "d"), InternalError);
  EXPECT_THROW(L::strided1D(4, 3, "r", "d"), InternalError);
  EXPECT_EQ(L::validate({{"r", {{1}}}}, {{"d", 2}}), "");
  EXPECT_NE(L::validate({{"r", {{2}}}}, {{"d", 2}}).find("outside 'd'"), std::string::npos);
}

TEST(LinearLayout, InferredOutSizes) {
  L l = L::withInferredOuts({{"register", {{0, 1}, {0, 2}}}, {"lane", {{1, 0}, {2, 4}}}}, {"dim0", "dim1"});
  EXPECT_EQ(l.getOutDimSize("dim0"), 4);
  EXPECT_EQ(l.getOutDimSize("dim1"), 8);
  L empty = L::withInferredOuts({{"register", {}}}, {"dim0"});
  EXPECT_EQ(empty.getOutDimSize("dim0"), 1);
}

TEST(LinearLayout, DimensionQueries) {
  L l({{"register", {{0, 1}, {0, 2}}}, {"lane", {{1, 0}}}, {"warp", {}}}, {{"dim0", 2}, {"dim1", 8}});
  EXPECT_EQ(l.inDimNames(), (std::vector<std::string>{"register", "lane", "warp"}));
  EXPECT_EQ(l.outDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
  EXPECT_EQ(l.totalInBits(), 3);
  EXPECT_EQ(l.totalInSize(), 8);
  EXPECT_EQ(l.totalOutBits(), 4);
  EXPECT_EQ(l.totalOutSize(), 16);
  EXPECT_EQ(l.getInDimSizeLog2("register"), 2);
  EXPECT_EQ(l.getOutDimSizeLog2("dim1"), 3);
  EXPECT_EQ(l.getInDimSize("warp"), 1);
  EXPECT_EQ(l.basis("register", 1), (Basis{0, 2}));
  EXPECT_EQ(l.basis("lane", 0, "dim0"), 1);
  EXPECT_TRUE(l.hasInDim("lane"));
  EXPECT_FALSE(l.hasOutDim("dim2"));
  EXPECT_THROW(l.getInDimSize("offset"), InternalError);
  EXPECT_THROW(l.basis("register", 2), InternalError);
}

TEST(LinearLayout, ApplyIsXorOfBases) {
  Rng rng(1);
  for (int iter = 0; iter < 50; ++iter) {
    L l = randomLayout(rng, kRLW, {"dim0", "dim1"}, 3, 4);
    forEachInput(l, [&](const std::vector<int32_t>& in) { ASSERT_EQ(l.apply(in), xorOfBases(l, in)); });
  }
  L l({{"register", {{1, 1}, {2, 0}}}, {"lane", {{0, 3}}}}, {{"dim0", 4}, {"dim1", 4}});
  EXPECT_EQ(l.apply(std::vector<int32_t>{3, 1}), (std::vector<int32_t>{3, 2}));  // (1,1)^(2,0)^(0,3)
  DimValues named = l.apply(DimValues{{"lane", 1}, {"register", 2}});
  EXPECT_EQ(named, (DimValues{{"dim0", 2}, {"dim1", 3}}));
  EXPECT_THROW(l.apply(std::vector<int32_t>{4, 0}), InternalError);
  EXPECT_THROW(l.apply(std::vector<int32_t>{0}), InternalError);
  EXPECT_THROW(l.apply(DimValues{{"lane", 1}}), InternalError);
  EXPECT_THROW(l.apply(DimValues{{"lane", 1}, {"lane", 0}}), InternalError);
}

TEST(LinearLayout, ProductStacksSharedDimsAndAppendsNewOnes) {
  L a = L::identity1D(4, "register", "dim1") * L::identity1D(2, "lane", "dim0");
  L b = L::identity1D(2, "register", "dim1") * L::identity1D(8, "warp", "dim2");
  L p = a * b;
  EXPECT_EQ(p.inDimNames(), (std::vector<std::string>{"register", "lane", "warp"}));
  EXPECT_EQ(p.outDimNames(), (std::vector<std::string>{"dim1", "dim0", "dim2"}));
  EXPECT_EQ(p.getOutDimSize("dim1"), 8);
  EXPECT_EQ(p.ins()[0].bases, (std::vector<Basis>{{1, 0, 0}, {2, 0, 0}, {4, 0, 0}}));
  EXPECT_EQ(p.ins()[1].bases, (std::vector<Basis>{{0, 1, 0}}));
  EXPECT_EQ(p.ins()[2].bases, (std::vector<Basis>{{0, 0, 1}, {0, 0, 2}, {0, 0, 4}}));
  EXPECT_EQ(L() * a, a);
  EXPECT_EQ(a * L(), a);
}

TEST(LinearLayout, ProductIsBruteForceConcatenation) {
  // With disjoint in dims and shared out dims, (a*b)(x, y) = a(x) + size_a * b(y) per shared out dim.
  Rng rng(2);
  for (int iter = 0; iter < 30; ++iter) {
    L a = randomLayout(rng, {"register"}, {"dim0", "dim1"}, 3, 3);
    L b = randomLayout(rng, {"lane"}, {"dim0", "dim1"}, 3, 3);
    L p = a * b;
    forEachInput(p, [&](const std::vector<int32_t>& in) {
      std::vector<int32_t> ra = a.apply(std::vector<int32_t>{in[0]}), rb = b.apply(std::vector<int32_t>{in[1]});
      std::vector<int32_t> expect = {ra[0] + a.outs()[0].size * rb[0], ra[1] + a.outs()[1].size * rb[1]};
      ASSERT_EQ(p.apply(in), expect);
    });
  }
}

TEST(LinearLayout, Transposes) {
  L l({{"register", {{0, 1}}}, {"lane", {{1, 0}, {2, 2}}}}, {{"dim0", 4}, {"dim1", 4}});
  L t = l.transposeOuts({"dim1", "dim0"});
  EXPECT_EQ(t.outDimNames(), (std::vector<std::string>{"dim1", "dim0"}));
  EXPECT_EQ(t.basis("register", 0), (Basis{1, 0}));
  EXPECT_EQ(t.basis("lane", 1), (Basis{2, 2}));
  EXPECT_EQ(t.transposeOuts({"dim0", "dim1"}), l);
  L ti = l.transposeIns({"lane", "register"});
  EXPECT_EQ(ti.inDimNames(), (std::vector<std::string>{"lane", "register"}));
  EXPECT_EQ(ti.basis("lane", 0), (Basis{1, 0}));
  EXPECT_THROW(l.transposeIns({"lane"}), InternalError);
  EXPECT_THROW(l.transposeOuts({"dim0", "dim0"}), InternalError);
  EXPECT_THROW(l.transposeOuts({"dim0", "dim2"}), InternalError);
}

TEST(LinearLayout, ReshapeOutsIsRowMajor) {
  // register i -> flat i of a 4x8 tile, reshaped to (4, 8): coordinates (i / 8, i % 8).
  L flat = L::identity1D(32, "register", "flat");
  L two = flat.reshapeOuts({{"dim0", 4}, {"dim1", 8}});
  for (int32_t i = 0; i < 32; ++i) EXPECT_EQ(two.apply(std::vector<int32_t>{i}), (std::vector<int32_t>{i / 8, i % 8}));
  EXPECT_EQ(two.reshapeOuts({{"flat", 32}}), flat);
  EXPECT_THROW(flat.reshapeOuts({{"dim0", 4}, {"dim1", 4}}), InternalError);
  // Brute force on random layouts: row-major flat index is preserved.
  Rng rng(3);
  for (int iter = 0; iter < 20; ++iter) {
    L l = randomLayout(rng, {"register", "lane"}, {"dim0", "dim1", "dim2"}, 3, 2);
    L r = l.reshapeOuts({{"a", int32_t(l.totalOutSize())}});
    forEachInput(l, [&](const std::vector<int32_t>& in) {
      std::vector<int32_t> c = l.apply(in);
      int32_t f = (c[0] * l.outs()[1].size + c[1]) * l.outs()[2].size + c[2];
      ASSERT_EQ(r.apply(in), std::vector<int32_t>{f});
    });
  }
}

TEST(LinearLayout, ReshapeInsIsRowMajor) {
  Rng rng(4);
  for (int iter = 0; iter < 20; ++iter) {
    L l = randomLayout(rng, {"register", "lane", "warp"}, {"dim0"}, 2, 5);
    int32_t nr = l.ins()[0].size(), nl = l.ins()[1].size(), nw = l.ins()[2].size();
    L r = l.reshapeIns({{"flat", nr * nl * nw}});
    forEachInput(l, [&](const std::vector<int32_t>& in) {
      int32_t f = (in[0] * nl + in[1]) * nw + in[2];
      ASSERT_EQ(r.apply(std::vector<int32_t>{f}), l.apply(in));
    });
    EXPECT_EQ(r.reshapeIns({{"register", nr}, {"lane", nl}, {"warp", nw}}), l);
  }
  // thread = lane + 32 * warp: transpose to (warp, lane) first.
  L t = L::identity1D(32, "lane", "dim0") * L::identity1D(4, "warp", "dim0");
  L thread = t.transposeIns({"warp", "lane"}).reshapeIns({{"thread", 128}});
  EXPECT_EQ(thread, L::identity1D(128, "thread", "dim0"));
}

TEST(LinearLayout, SublayoutAndRename) {
  L l({{"register", {{0, 1}, {2, 0}}}, {"lane", {{1, 1}}}, {"warp", {{0, 2}}}}, {{"dim0", 4}, {"dim1", 4}});
  L s = l.sublayout({"lane", "register"}, {"dim1"});
  EXPECT_EQ(s.inDimNames(), (std::vector<std::string>{"register", "lane"}));
  EXPECT_EQ(s.ins()[0].bases, (std::vector<Basis>{{1}, {0}}));
  EXPECT_EQ(s.ins()[1].bases, (std::vector<Basis>{{1}}));
  EXPECT_THROW(l.sublayout({"offset"}, {}), InternalError);
  L r = l.renameOuts({"m", "n"}).renameIns({"a", "b", "c"});
  EXPECT_EQ(r.outDimNames(), (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(r.basis("c", 0), (Basis{0, 2}));
  EXPECT_THROW(l.renameOuts({"m", "m"}), InternalError);
  EXPECT_THROW(l.renameIns({"a"}), InternalError);
}

TEST(LinearLayout, EqualityAndHash) {
  L a({{"register", {{0, 1}}}, {"lane", {{1, 0}}}}, {{"dim0", 2}, {"dim1", 2}});
  L b({{"register", {{0, 1}}}, {"lane", {{1, 0}}}}, {{"dim0", 2}, {"dim1", 2}});
  L bigger({{"register", {{0, 1}}}, {"lane", {{1, 0}}}}, {{"dim0", 2}, {"dim1", 4}});
  L swapped = a.transposeIns({"lane", "register"});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(std::hash<L>{}(a), a.hash());
  EXPECT_NE(a, bigger);
  EXPECT_NE(a.hash(), bigger.hash());
  EXPECT_NE(a, swapped);
  EXPECT_NE(a.hash(), swapped.hash());
  EXPECT_NE(a, a.renameOuts({"dim0", "dimX"}));
}

TEST(LinearLayout, FlattenRoundTrips) {
  Rng rng(5);
  L l = randomLayout(rng, kRLW, {"dim0", "dim1", "dim2"}, 3, 3);
  forEachInput(l, [&](const std::vector<int32_t>& in) {
    ASSERT_EQ(l.unflattenIn(l.flattenIn(in)), in);
    std::vector<int32_t> out = l.apply(in);
    ASSERT_EQ(l.unflattenOut(l.flattenOut(out)), out);
  });
  std::vector<uint64_t> cols = l.columns();
  EXPECT_EQ(int(cols.size()), l.totalInBits());
}

}  // namespace
}  // namespace kiln::layout::test
