// The text form of layouts: exact spelling, parse(str(L)) == L on random and named layouts, whitespace,
// and errors (with the column) on malformed or invalid text.
#include "layout/named_layouts.h"
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

TEST(LayoutText, ExactSpelling) {
  L l({{"register", {{0, 1}, {0, 2}}}, {"lane", {{0, 4}, {1, 0}}}, {"warp", {}}}, {{"dim0", 2}, {"dim1", 8}});
  EXPECT_EQ(l.str(), "{register=[[0,1],[0,2]], lane=[[0,4],[1,0]], warp=[]} -> [dim0=2, dim1=8]");
  EXPECT_EQ(L().str(), "{} -> []");
  EXPECT_EQ(L::identity1D(4, "offset", "dim0").str(), "{offset=[[1],[2]]} -> [dim0=4]");
}

TEST(LayoutText, RoundTripsRandomLayouts) {
  Rng rng(20);
  for (int iter = 0; iter < 200; ++iter) {
    L l = randomLayout(rng, kRLW, {"dim0", "dim1", "dim2"}, 4, 4);
    ASSERT_EQ(L::parse(l.str()), l) << l.str();
  }
  L empty;
  EXPECT_EQ(L::parse(empty.str()), empty);
  L noOuts({{"register", {}}}, std::vector<OutDim>{});
  EXPECT_EQ(L::parse(noOuts.str()), noOuts);
}

TEST(LayoutText, RoundTripsNamedLayouts) {
  for (const L& l : {blocked({64, 64}, {1, 4}, {4, 8}, {4, 1}, {1, 0}), mmaV2Accumulator({64, 64}, {2, 2}),
                     mmaV2Operand(0, {64, 32}, {2, 2}, 16), sharedSwizzled({32, 64}, 8, 1, 8, {1, 0}),
                     sliceLayout(blocked({16, 32}, {1, 1}, {2, 16}, {2, 2}, {1, 0}), 1)})
    EXPECT_EQ(L::parse(l.str()), l) << l.str();
}

TEST(LayoutText, WhitespaceIsFree) {
  L l = L::parse("  {  register = [ [0 , 1] , [ 1,0 ] ] ,lane=[ ]}->[ dim0 = 2 ,dim1=2 ]  ");
  EXPECT_EQ(l, L({{"register", {{0, 1}, {1, 0}}}, {"lane", {}}}, {{"dim0", 2}, {"dim1", 2}}));
}

// The message of the CompileError that parse throws, or "" when it does not throw.
std::string parseError(std::string_view text) {
  try {
    L::parse(text);
  } catch (const CompileError& e) {
    return e.diag().message;
  }
  return "";
}

TEST(LayoutText, MalformedTextIsRejectedWithItsColumn) {
  EXPECT_NE(parseError("").find("column 1: expected '{'"), std::string::npos);
  EXPECT_NE(parseError("{register=[[0,1]]}").find("column 19: expected '->'"), std::string::npos);
  EXPECT_NE(parseError("{register=[[0,1]} -> [dim0=1]").find("expected ']'"), std::string::npos);
  EXPECT_NE(parseError("{register=[0,1]} -> [dim0=2]").find("column 12: expected '['"), std::string::npos);
  EXPECT_NE(parseError("{=[]} -> []").find("expected a dimension name"), std::string::npos);
  EXPECT_NE(parseError("{1r=[]} -> []").find("expected a dimension name"), std::string::npos);
  EXPECT_NE(parseError("{r=[[x]]} -> [d=2]").find("expected a non-negative integer"), std::string::npos);
  EXPECT_NE(parseError("{r=[[-1]]} -> [d=2]").find("expected a non-negative integer"), std::string::npos);
  EXPECT_NE(parseError("{r=[[99999999999]]} -> [d=2]").find("integer too large"), std::string::npos);
  EXPECT_NE(parseError("{r=[]} -> [d=2] x").find("unexpected text after the layout"), std::string::npos);
  EXPECT_NE(parseError("{r=[]} -> [d=2,]").find("expected a dimension name"), std::string::npos);
  EXPECT_NE(parseError("{r=[],} -> []").find("expected a dimension name"), std::string::npos);
}

TEST(LayoutText, InvalidLayoutsAreRejected) {
  EXPECT_NE(parseError("{r=[[2]]} -> [d=2]").find("outside 'd'"), std::string::npos);
  EXPECT_NE(parseError("{r=[[1]]} -> [d=3]").find("not a power of two"), std::string::npos);
  EXPECT_NE(parseError("{r=[[1]]} -> [d=0]").find("not a power of two"), std::string::npos);
  EXPECT_NE(parseError("{r=[[1,0]]} -> [d=2]").find("has 2 coordinates, expected 1"), std::string::npos);
  EXPECT_NE(parseError("{r=[], r=[]} -> []").find("appears twice"), std::string::npos);
  EXPECT_NE(parseError("{r=[]} -> [d=1, d=2]").find("appears twice"), std::string::npos);
  EXPECT_EQ(parseError("{r=[[1]]} -> [d=2]"), "");
  // Every failure is a CompileError, never a crash or another exception type.
  for (std::string_view bad : {"{", "{r", "{r=", "{r=[", "{r=[[", "{r=[[1", "{r=[[1]", "{r=[[1]]", "{r=[[1]]}",
                               "{r=[[1]]} -", "{r=[[1]]} ->", "{r=[[1]]} -> [", "{r=[[1]]} -> [d", "{r=[[1]]} -> [d=",
                               "{r=[[1]]} -> [d=2"})
    EXPECT_THROW(L::parse(bad), CompileError) << bad;
}

}  // namespace
}  // namespace kiln::layout::test
