// allTrueGuard: the scalar terms under which an index mask is true in every element, for the masks
// loops over blocks build (`start + arange < n`, a causal `rows >= cols`, their `&`), and none for
// masks it cannot bound.
#include "analysis/index_bounds.h"

#include "analysis_test.h"

namespace kiln::analysis::test {
namespace {

constexpr int64_t kMax = 2147483647;
constexpr int64_t kMin = -2147483648LL;

// A function whose last op, %m, is the mask under test; %s, %n, %r are i32 scalars.
Analyzed maskOf(const std::string& body) {
  return analyze("func @k(%s: i32, %n: i32, %r: i32) {\n" + body + "  return\n}\n");
}

const std::string kCols = R"(
  %sh = multiple_of %s {values = [64]} : i32
  %ss = splat %sh : tensor<64xi32>
  %ar = arange {end = 64, start = 0} : tensor<64xi32>
  %cols = add %ss, %ar : tensor<64xi32>
  %ce = expand_dims %cols {axis = 0} : tensor<1x64xi32>
  %ns = splat %n : tensor<1x64xi32>
)";

TEST(IndexBounds, ColumnsBelowALimit) {
  Analyzed a = maskOf(kCols + "  %m = cmp %ce, %ns {pred = \"lt\"} : tensor<1x64xi1>\n");
  auto g = allTrueGuard(a.v("m"));
  ASSERT_TRUE(g);
  // s + 63 < n, i.e. s + 64 <= n; the no-wrap term s + 63 <= max follows from it and is dropped.
  ASSERT_EQ(g->size(), 1u);
  EXPECT_EQ(g->at(0), (GuardTerm{a.v("s"), 64, a.v("n"), 0}));
}

TEST(IndexBounds, LeAndMirroredPredicates) {
  Analyzed a = maskOf(kCols + "  %m = cmp %ns, %ce {pred = \"gt\"} : tensor<1x64xi1>\n");
  auto g = allTrueGuard(a.v("m"));
  ASSERT_TRUE(g);
  ASSERT_EQ(g->size(), 1u);
  EXPECT_EQ(g->at(0), (GuardTerm{a.v("s"), 64, a.v("n"), 0}));  // n > cols: the same bound
  Analyzed b = maskOf(kCols + "  %m = cmp %ce, %ns {pred = \"le\"} : tensor<1x64xi1>\n");
  auto h = allTrueGuard(b.v("m"));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->at(0), (GuardTerm{b.v("s"), 63, b.v("n"), 0}));
}

TEST(IndexBounds, CausalAndEdgeMasks) {
  // rows = r + arange(128) (as a column), cols as above; valid = (cols < n) & (rows >= cols).
  Analyzed a = maskOf(kCols + R"(
  %rs = splat %r : tensor<128xi32>
  %ar2 = arange {end = 128, start = 0} : tensor<128xi32>
  %rows = add %rs, %ar2 : tensor<128xi32>
  %re = expand_dims %rows {axis = 1} : tensor<128x1xi32>
  %rb = broadcast %re : tensor<128x64xi32>
  %cb = broadcast %ce : tensor<128x64xi32>
  %edge = cmp %ce, %ns {pred = "lt"} : tensor<1x64xi1>
  %eb = broadcast %edge : tensor<128x64xi1>
  %causal = cmp %rb, %cb {pred = "ge"} : tensor<128x64xi1>
  %m = and %eb, %causal : tensor<128x64xi1>
)");
  auto g = allTrueGuard(a.v("m"));
  ASSERT_TRUE(g);
  const ir::Value *s = a.v("s"), *n = a.v("n"), *r = a.v("r");
  // s + 64 <= n; rows do not wrap: r + 127 <= max; min row >= max col: s + 63 <= r.
  EXPECT_EQ(*g, (std::vector<GuardTerm>{{s, 64, n, 0}, {r, 127, nullptr, kMax}, {s, 63, r, 0}}));
}

TEST(IndexBounds, NegativeOffsetsNeedTheLowerNoWrapTerm) {
  Analyzed a = maskOf(R"(
  %ss = splat %s : tensor<32xi32>
  %ar = arange {end = 32, start = 0} : tensor<32xi32>
  %c8 = constant {value = 40} : tensor<32xi32>
  %x = sub %ar, %c8 : tensor<32xi32>
  %y = add %ss, %x : tensor<32xi32>
  %zero = constant {value = 0} : tensor<32xi32>
  %m = cmp %y, %zero {pred = "ge"} : tensor<32xi1>
)");
  auto g = allTrueGuard(a.v("m"));
  ASSERT_TRUE(g);
  // y = s + [-40, -9]: min <= s - 40 (no wrap below), and 0 <= s - 40.
  const ir::Value* s = a.v("s");
  EXPECT_EQ(*g, (std::vector<GuardTerm>{{nullptr, 0, s, -40}}));  // 0 <= s - 40 implies min <= s - 40
}

TEST(IndexBounds, ConstantMasksAreDecidedNow) {
  Analyzed a = maskOf(R"(
  %ar = arange {end = 16, start = 0} : tensor<16xi32>
  %c16 = constant {value = 16} : tensor<16xi32>
  %m = cmp %ar, %c16 {pred = "lt"} : tensor<16xi1>
  %c8 = constant {value = 8} : tensor<16xi32>
  %never = cmp %ar, %c8 {pred = "lt"} : tensor<16xi1>
)");
  auto always = allTrueGuard(a.v("m"));
  ASSERT_TRUE(always);
  EXPECT_TRUE(always->empty());
  EXPECT_FALSE(allTrueGuard(a.v("never")));
}

TEST(IndexBounds, MasksItCannotBound) {
  Analyzed a = maskOf(kCols + R"(
  %st = splat %r : tensor<64xi32>
  %scaled = mul %cols, %st : tensor<64xi32>
  %se = expand_dims %scaled {axis = 0} : tensor<1x64xi32>
  %byMul = cmp %se, %ns {pred = "lt"} : tensor<1x64xi1>
  %eq = cmp %ce, %ns {pred = "eq"} : tensor<1x64xi1>
  %rs = splat %r : tensor<1x64xi32>
  %twoBases = add %ce, %rs : tensor<1x64xi32>
  %byTwo = cmp %twoBases, %ns {pred = "lt"} : tensor<1x64xi1>
  %edge = cmp %ce, %ns {pred = "lt"} : tensor<1x64xi1>
  %or = or %edge, %eq : tensor<1x64xi1>
)");
  EXPECT_FALSE(allTrueGuard(a.v("byMul")));
  EXPECT_FALSE(allTrueGuard(a.v("eq")));
  EXPECT_FALSE(allTrueGuard(a.v("byTwo")));
  EXPECT_FALSE(allTrueGuard(a.v("or")));
  EXPECT_FALSE(allTrueGuard(a.v("s")));  // not a tensor
}

}  // namespace
}  // namespace kiln::analysis::test
