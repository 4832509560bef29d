// Ahead-of-time pieces without a compiler run: the metadata block reads back what was written, C names
// avoid what C and C++ reserve, grids parse to C or fail with a column, and the dispatcher's ranking
// picks the variant the JIT would build whenever it is among those linked.
#include <gtest/gtest.h>

#include "driver/aot_grid.h"
#include "driver/aot_metadata.h"
#include "driver/aot_variant.h"

namespace kiln::aot {
namespace {

TEST(Aot, MetadataRoundTrip) {
  Variant v;
  v.kernel = "add_kernel";
  v.name = "add16";
  v.signature = "*fp32:16, 'a*/b', 1024";
  v.arch = "sm_80";
  v.numWarps = 8;
  v.numStages = 2;
  v.grid = {"(int64_t)1", "(int64_t)1", "(int64_t)1"};
  v.gridText = "1";
  v.params = {{"x_ptr", "CUdeviceptr", "CUdeviceptr", Condition::Align16},
              {"n", "int32_t", "int32_t", Condition::EqualsOne},
              {"flag", "int", "uint8_t", Condition::None}};
  std::string block = metadataBlock(v);
  EXPECT_EQ(block.find("*/"), block.size() - 3) << "the signature's */ must not end the comment early";
  Variant back;
  ASSERT_EQ(readMetadata("/* header */\n" + block, back), "");
  EXPECT_EQ(back.kernel, "add_kernel");
  EXPECT_EQ(back.name, "add16");
  EXPECT_EQ(back.arch, "sm_80");
  EXPECT_EQ(back.numWarps, 8);
  EXPECT_FALSE(back.grid.empty());
  ASSERT_EQ(back.params.size(), 3u);
  EXPECT_EQ(back.params[0].condition, Condition::Align16);
  EXPECT_EQ(back.params[1].condition, Condition::EqualsOne);
  EXPECT_EQ(back.params[2].ctype, "int");
  EXPECT_NE(readMetadata("int x;", back), "");
}

TEST(Aot, CIdentifiers) {
  EXPECT_EQ(cIdentifier("x_ptr"), "x_ptr");
  EXPECT_EQ(cIdentifier("new"), "new_");
  EXPECT_EQ(cIdentifier("int"), "int_");
  EXPECT_EQ(cIdentifier("stream"), "stream_");
  EXPECT_EQ(cIdentifier("kiln_aot_ok"), "kiln_aot_ok_");
  EXPECT_EQ(cIdentifier("__x"), "p__x");
  EXPECT_EQ(cIdentifier("_N"), "p_N");
}

TEST(Aot, Grids) {
  std::vector<GridName> names = {{"n", "n", std::nullopt, ""}, {"BLOCK", "", 256, ""}, {"x", "x", std::nullopt, "is a pointer"}};
  std::string error;
  auto g = parseGrid("cdiv(n, BLOCK)", names, "k", error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ((*g)[0], "k_cdiv_((int64_t)n, (int64_t)256, &kiln_aot_ok)");
  EXPECT_EQ((*g)[1], "(int64_t)1");
  g = parseGrid("(n // 2, -n % 3 + 1,)", names, "k", error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ((*g)[0], "k_div_((int64_t)n, (int64_t)2, &kiln_aot_ok)");
  EXPECT_EQ((*g)[1], "(k_mod_((-(int64_t)n), (int64_t)3, &kiln_aot_ok) + (int64_t)1)");
  g = parseGrid("(n + 1) // 2", names, "k", error);
  ASSERT_TRUE(g) << error;
  EXPECT_EQ((*g)[0], "k_div_(((int64_t)n + (int64_t)1), (int64_t)2, &kiln_aot_ok)");
  EXPECT_FALSE(parseGrid("x + 1", names, "k", error));
  EXPECT_EQ(error, "--grid 'x + 1', column 1: 'x' is a pointer");
  EXPECT_FALSE(parseGrid("", names, "k", error));
  EXPECT_FALSE(parseGrid("n 2", names, "k", error));
  EXPECT_EQ(error, "--grid 'n 2', column 3: unexpected '2'");
  EXPECT_FALSE(parseGrid("(1, (2, 3))", names, "k", error));
  EXPECT_FALSE(parseGrid("99999999999999999999", names, "k", error));
  EXPECT_FALSE(parseGrid(std::string(100000, '(') + "1", names, "k", error));
  EXPECT_EQ(error.substr(error.size() - 31), "the expression nests too deeply");
  EXPECT_EQ(gridHelpers("k", {"(int64_t)1"}), "");
  EXPECT_NE(gridHelpers("k", *parseGrid("cdiv(n, 2)", names, "k", error)).find("k_div_"), std::string::npos);
}

// For one argument value, the condition the JIT's specialization writes (specialize.cpp).
Condition jitPointer(uint64_t address) {
  return address % 16 == 0 ? Condition::Align16 : address % 8 == 0 ? Condition::Align8 : Condition::None;
}
Condition jitInteger(int64_t v) {
  if (v == 1) return Condition::EqualsOne;
  return uint64_t(v) % 16 == 0 ? Condition::Div16 : uint64_t(v) % 8 == 0 ? Condition::Div8 : Condition::None;
}
bool holds(Condition c, int64_t v) {
  switch (c) {
    case Condition::None: return true;
    case Condition::Align8:
    case Condition::Div8: return uint64_t(v) % 8 == 0;
    case Condition::Align16:
    case Condition::Div16: return uint64_t(v) % 16 == 0;
    case Condition::EqualsOne: return v == 1;
  }
  return false;
}

// Every variant of (pointer, integer) conditions against many argument pairs: among the variants that
// apply, the JIT's own has the strictly largest rank, so the dispatcher, trying ranks downwards, calls it.
TEST(Aot, RankPicksTheJitVariant) {
  const Condition pointer[] = {Condition::None, Condition::Align8, Condition::Align16};
  const Condition integer[] = {Condition::None, Condition::Div8, Condition::Div16, Condition::EqualsOne};
  for (int64_t address : {0, 4, 8, 12, 16, 24, 32, 36}) {
    for (int64_t n : {-16, -8, -1, 0, 1, 2, 7, 8, 16, 17, 24, 48}) {
      const int jitRank = conditionRank(jitPointer(uint64_t(address))) + conditionRank(jitInteger(n));
      for (Condition p : pointer)
        for (Condition i : integer) {
          if (!holds(p, address) || !holds(i, n)) continue;
          const bool isJit = p == jitPointer(uint64_t(address)) && i == jitInteger(n);
          const int rank = conditionRank(p) + conditionRank(i);
          if (isJit) EXPECT_EQ(rank, jitRank);
          else EXPECT_LT(rank, jitRank) << "address " << address << ", n " << n;
        }
    }
  }
}

}  // namespace
}  // namespace kiln::aot
