// ldmatrix as layouts and ldmatrix plans, checked by simulating the instruction as PTX-NOTES §7 describes
// it (lane L supplies row L % 8 of matrix L / 8; lane l receives row l / 4, bytes 4(l % 4).., or with
// .trans rows 2(l % 4), 2(l % 4) + 1 of column l / 4) and comparing with the register layout.
#include "layout/conversions.h"
#include "layout/ldmatrix.h"
#include "layout/named_layouts.h"
#include "layout_test_util.h"
#include "support/diagnostic.h"

namespace kiln::layout::test {
namespace {

using L = LinearLayout;

TEST(Ldmatrix, TileMatchesTheInstruction) {
  for (int bits : {8, 16, 32})
    for (int num : {1, 2, 4})
      for (bool trans : {false, true}) {
        if (trans && bits != 16) {
          EXPECT_THROW(ldmatrixTile(num, bits, trans), InternalError);
          continue;
        }
        L t = ldmatrixTile(num, bits, trans);
        EXPECT_TRUE(t.isInvertible());
        int perReg = 32 / bits;
        EXPECT_EQ(t.getInDimSize("register"), perReg * num);
        EXPECT_EQ(t.outDimNames(), (std::vector<std::string>{"matrix", "row", "col"}));
        EXPECT_EQ(t.getOutDimSize("col"), 128 / bits);
        for (int32_t lane = 0; lane < 32; ++lane)
          for (int32_t e = 0; e < perReg * num; ++e) {
            int32_t j = e / perReg, h = e % perReg;
            std::vector<int32_t> expect = trans ? std::vector<int32_t>{j, 2 * (lane % 4) + h, lane / 4}
                                                : std::vector<int32_t>{j, lane / 4, (lane % 4) * perReg + h};
            ASSERT_EQ(t.apply(std::vector<int32_t>{e, lane}), expect);
          }
      }
}

TEST(Ldmatrix, RowAddresses) {
  for (int num : {1, 2, 4}) {
    L a = ldmatrixRowAddresses(num, 16);
    for (int32_t lane = 0; lane < 32; ++lane)
      EXPECT_EQ(a.apply(std::vector<int32_t>{lane}), (std::vector<int32_t>{(lane / 8) % num, lane % 8, 0}));
  }
}

// Runs every ldmatrix of the plan over a shared tile and checks each register against `regs`.
void simulate(const L& regs, const L& shared, int bits, const LdmatrixPlan& plan) {
  int32_t perReg = 32 / bits, rowElems = 128 / bits;
  int32_t instrs = plan.rowOffsets.getInDimSize("register");
  ASSERT_EQ(instrs * plan.elemsPerInstr, regs.getInDimSize("register"));
  ASSERT_EQ(plan.elemsPerInstr, perReg * plan.numMatrices);
  for (int32_t w = 0; w < regs.getInDimSize("warp"); ++w)
    for (int32_t q = 0; q < instrs; ++q) {
      std::vector<int32_t> rowAddr(32);
      for (int32_t l = 0; l < 32; ++l) {
        rowAddr[l] = plan.rowOffsets.apply(std::vector<int32_t>{q, l, w})[0];
        ASSERT_EQ(rowAddr[l] % rowElems, 0) << "unaligned row address";
      }
      for (int32_t l = 0; l < 32; ++l)
        for (int32_t e = 0; e < plan.elemsPerInstr; ++e) {
          int32_t j = e / perReg, h = e % perReg;
          int32_t offset = plan.trans ? rowAddr[8 * j + 2 * (l % 4) + h] + l / 4
                                      : rowAddr[8 * j + l / 4] + (l % 4) * perReg + h;
          ASSERT_EQ(shared.apply(std::vector<int32_t>{offset}),
                    regs.apply(std::vector<int32_t>{q * plan.elemsPerInstr + e, l, w}))
              << "warp " << w << " instr " << q << " lane " << l << " elem " << e;
        }
    }
}

struct PlanCase {
  const char* what;
  L regs, shared;
  int bits;
  int numMatrices;
  bool trans;
};

TEST(Ldmatrix, PlansForMmaOperands) {
  std::vector<int32_t> wpc = {2, 2};
  std::vector<PlanCase> cases = {
      {"A f16, 128B swizzle", mmaV2Operand(0, {64, 64}, wpc, 16), sharedSwizzled({64, 64}, 8, 1, 8, {1, 0}), 16, 4, false},
      {"A f16, 64B swizzle", mmaV2Operand(0, {64, 32}, wpc, 16), sharedSwizzled({64, 32}, 8, 2, 4, {1, 0}), 16, 4, false},
      {"A f16, plain", mmaV2Operand(0, {32, 16}, wpc, 16), sharedPlain({32, 16}, {1, 0}), 16, 4, false},
      {"A f16, M contiguous", mmaV2Operand(0, {64, 32}, wpc, 16), sharedSwizzled({64, 32}, 8, 1, 8, {0, 1}), 16, 4, true},
      {"B f16, N contiguous", mmaV2Operand(1, {32, 64}, wpc, 16), sharedSwizzled({32, 64}, 8, 1, 8, {1, 0}), 16, 4, true},
      {"B f16, K contiguous", mmaV2Operand(1, {32, 64}, wpc, 16), sharedSwizzled({32, 64}, 8, 1, 8, {0, 1}), 16, 4, false},
      {"B f16, one k16 step", mmaV2Operand(1, {16, 8}, {1, 1}, 16), sharedPlain({16, 8}, {0, 1}), 16, 2, false},
      {"A tf32", mmaV2Operand(0, {64, 32}, wpc, 32), sharedSwizzled({64, 32}, 4, 1, 8, {1, 0}), 32, 4, false},
      {"A s8", mmaV2Operand(0, {64, 64}, wpc, 8), sharedSwizzled({64, 64}, 16, 1, 4, {1, 0}), 8, 4, false},
      {"B s8, K contiguous", mmaV2Operand(1, {64, 32}, wpc, 8), sharedPlain({64, 32}, {0, 1}), 8, 4, false},
  };
  for (const PlanCase& c : cases) {
    SCOPED_TRACE(c.what);
    std::optional<LdmatrixPlan> plan = planLdmatrix(c.regs, c.shared, c.bits);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(plan->numMatrices, c.numMatrices);
    EXPECT_EQ(plan->trans, c.trans);
    simulate(c.regs, c.shared, c.bits, *plan);
  }
}

TEST(Ldmatrix, MmaAOperandAddressesAsInPtxNotes) {
  // m16n8k16 A from a row-major 16x16 tile: lane l points at row l % 16, column 8 * (l / 16).
  std::optional<LdmatrixPlan> plan = planLdmatrix(mmaV2Operand(0, {16, 16}, {1, 1}, 16), sharedPlain({16, 16}, {1, 0}), 16);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->elemsPerInstr, 8);
  EXPECT_EQ(plan->rowOffsets.getInDimSize("register"), 1);
  for (int32_t l = 0; l < 32; ++l)
    EXPECT_EQ(plan->rowOffsets.apply(std::vector<int32_t>{0, l, 0})[0], (l % 16) * 16 + 8 * (l / 16));
}

TEST(Ldmatrix, NoPlanWhenRowsAreNotContiguous) {
  // 8-bit B with N contiguous would need .trans, which ldmatrix has only for 16-bit elements.
  EXPECT_FALSE(planLdmatrix(mmaV2Operand(1, {64, 32}, {2, 2}, 8), sharedPlain({64, 32}, {1, 0}), 8).has_value());
  // A blocked layout is not an mma fragment.
  EXPECT_FALSE(planLdmatrix(blocked({64, 64}, {1, 8}, {8, 4}, {4, 1}, {1, 0}), sharedPlain({64, 64}, {1, 0}), 16).has_value());
  // Rows are contiguous, but the K repeat (col 16) sits at an odd offset: no aligned row addresses.
  L odd({{"offset", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 17}, {1, 0}, {2, 0}, {4, 0}, {8, 0}}}}, {{"dim0", 16}, {"dim1", 32}});
  ASSERT_TRUE(odd.isInvertible());
  EXPECT_FALSE(planLdmatrix(mmaV2Operand(0, {16, 32}, {1, 1}, 16), odd, 16).has_value());
  // A swizzle finer than 16 bytes splits the rows.
  EXPECT_FALSE(planLdmatrix(mmaV2Operand(0, {64, 64}, {2, 2}, 16), sharedSwizzled({64, 64}, 4, 1, 8, {1, 0}), 16).has_value());
}

// mayPlan is plan()'s first test on the register and lane offsets alone: whenever plan() finds a plan it
// says yes, and it already says no where rows are not contiguous.
TEST(Ldmatrix, MayPlanPrecedesEveryPlan) {
  auto offsetsOf = [](const L& offsets, const char* dim) {
    std::vector<int64_t> out;
    for (const Basis& b : offsets.ins()[size_t(offsets.inDimIndex(dim))].bases) out.push_back(b[0]);
    return out;
  };
  struct Case {
    L regs, shared;
    int bits;
    bool plans;
  };
  std::vector<int32_t> wpc = {2, 2};
  std::vector<Case> cases = {
      {mmaV2Operand(0, {64, 64}, wpc, 16), sharedSwizzled({64, 64}, 8, 1, 8, {1, 0}), 16, true},
      {mmaV2Operand(0, {64, 32}, wpc, 16), sharedSwizzled({64, 32}, 8, 1, 8, {0, 1}), 16, true},  // .trans
      {mmaV2Operand(1, {32, 64}, wpc, 16), sharedSwizzled({32, 64}, 8, 1, 8, {0, 1}), 16, true},
      {mmaV2Operand(0, {64, 32}, wpc, 32), sharedSwizzled({64, 32}, 4, 1, 8, {1, 0}), 32, true},
      {mmaV2Operand(1, {64, 32}, {2, 2}, 8), sharedPlain({64, 32}, {1, 0}), 8, false},
      {blocked({64, 64}, {1, 8}, {8, 4}, {4, 1}, {1, 0}), sharedPlain({64, 64}, {1, 0}), 16, false},
      {mmaV2Operand(0, {64, 64}, {2, 2}, 16), sharedSwizzled({64, 64}, 4, 1, 8, {1, 0}), 16, false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const L offsets = sharedOffsets(c.regs, c.shared);
    const LdmatrixPlanner& planner = LdmatrixPlanner::of(c.bits);
    const bool may = planner.mayPlan(offsetsOf(offsets, "register"), offsetsOf(offsets, "lane"));
    EXPECT_EQ(planner.plan(offsets).has_value(), c.plans);
    if (c.plans) EXPECT_TRUE(may);
    if (i + 1 == cases.size()) EXPECT_FALSE(may);  // a swizzle finer than 16 bytes: rowsFit already fails
  }
  EXPECT_FALSE(LdmatrixPlanner::of(16).mayPlan(std::vector<int64_t>{1, 2, 4}, std::vector<int64_t>{8, 16}));  // 4 lanes
}

}  // namespace
}  // namespace kiln::layout::test
