// The fast paths of the scratch-layout search (bank conflicts counted once per aligned phase, ldmatrix
// candidates rejected before their layouts are built) against the straightforward algorithms they
// replace, kept here as references, over random and named layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "layout/conversions.h"
#include "layout/ldmatrix.h"
#include "layout/named_layouts.h"
#include "lower/linear_emit.h"
#include "layout/scratch_layout.h"

namespace kiln::lower::test {
namespace {

using layout::Basis;
using layout::InDim;
using layout::LinearLayout;

// sharedWavefronts as first written: every phase of every register chunk counted word by word.
int64_t referenceWavefronts(const LinearLayout& offsets, int32_t vec, int elemBytes, int lanes) {
  int32_t numRegs = offsets.hasInDim(layout::kRegister) ? offsets.getInDimSize(layout::kRegister) : 1;
  std::array<int64_t, 32> laneOffset{};
  if (offsets.hasInDim(layout::kLane)) {
    const std::vector<Basis>& bases = offsets.ins()[size_t(offsets.inDimIndex(layout::kLane))].bases;
    for (int32_t l = 0; l < 32; ++l)
      for (size_t b = 0; b < bases.size() && b < 5; ++b)
        if (l >> b & 1) laneOffset[size_t(l)] ^= bases[b][0];
  }
  const int64_t accessBytes = int64_t(vec) * elemBytes;
  const int lanesPerPhase = accessBytes <= 4 ? 32 : int(128 / accessBytes);
  int64_t total = 0;
  for (int32_t c = 0; c < numRegs; c += vec) {
    int64_t ro = registerPart(offsets, c, 0);
    for (int p0 = 0; p0 < lanes; p0 += lanesPerPhase) {
      std::vector<int64_t> words;
      for (int l = p0; l < p0 + lanesPerPhase; ++l) {
        int64_t a = (ro ^ laneOffset[size_t(l)]) * elemBytes;
        for (int64_t w = a / 4; w <= (a + accessBytes - 1) / 4; ++w) words.push_back(w);
      }
      std::sort(words.begin(), words.end());
      words.erase(std::unique(words.begin(), words.end()), words.end());
      std::array<int, 32> perBank{};
      int worst = 0;
      for (int64_t w : words) worst = std::max(worst, ++perBank[size_t(w & 31)]);
      total += worst;
    }
  }
  return total;
}

// (register, lane, warp) -> offset with random bases; `multipleOf` scales the lane bases (aligned lanes)
// and, with probability 1/2 each, the register bases.
LinearLayout randomOffsets(std::mt19937& rng, int32_t multipleOf) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int offsetBits = 12;
  auto basis = [&](bool scaled) {
    int32_t v = pick(0, (1 << offsetBits) - 1);
    if (scaled) v = v / multipleOf * multipleOf;
    return Basis{v};
  };
  InDim reg{std::string(layout::kRegister), {}}, lane{std::string(layout::kLane), {}},
      warp{std::string(layout::kWarp), {}};
  for (int b = pick(0, 5); b > 0; --b) reg.bases.push_back(basis(pick(0, 1) == 1));
  for (int b = 0; b < 5; ++b) lane.bases.push_back(basis(true));
  for (int b = pick(0, 2); b > 0; --b) warp.bases.push_back(basis(false));
  return LinearLayout({reg, lane, warp}, {{std::string(layout::kOffset), 1 << offsetBits}});
}

TEST(ScratchSearch, WavefrontsMatchTheWordByWordCount) {
  std::mt19937 rng(12345);
  int counted = 0, conflicted = 0;
  for (int i = 0; i < 300; ++i) {
    for (int elemBytes : {1, 2, 4, 8, 16}) {
      for (int32_t vec = 1; vec * elemBytes <= 16; vec *= 2) {
        // Lane bases that are multiples of vec (the fast path) and, every other layout, arbitrary ones.
        LinearLayout offsets = randomOffsets(rng, i % 2 ? vec : 1);
        for (int lanes : {32, 16, 8}) {
          SCOPED_TRACE(offsets.str() + " vec " + std::to_string(vec) + " bytes " + std::to_string(elemBytes) +
                       " lanes " + std::to_string(lanes));
          int64_t want = referenceWavefronts(offsets, vec, elemBytes, lanes);
          ASSERT_EQ(sharedWavefronts(offsets, vec, elemBytes, lanes), want);
          ++counted;
          if (want > 32) ++conflicted;
        }
      }
    }
  }
  EXPECT_GT(conflicted, counted / 10);  // the layouts do conflict, so the counts are not all trivial
}

TEST(ScratchSearch, WavefrontsOfNamedConversionsMatch) {
  const std::vector<int64_t> shape{64, 64};
  std::vector<LinearLayout> regs{layout::mmaV2Operand(0, shape, {2, 2}, 16), layout::mmaV2Operand(1, shape, {2, 2}, 16),
                                 layout::mmaV2Accumulator(shape, {2, 2}),
                                 layout::defaultBlocked(shape, 4, 8, {1, 0}),
                                 layout::defaultBlocked(shape, 4, 4, {0, 1})};
  for (const LinearLayout& r : regs) {
    LinearLayout compact = uniqueRegisters(r).compact;
    for (int32_t vec : {1, 2, 4, 8})
      for (int32_t maxPhase : {1, 2, 4, 8})
        for (const std::vector<int32_t>& order : {std::vector<int32_t>{1, 0}, std::vector<int32_t>{0, 1}}) {
          LinearLayout shared = layout::sharedSwizzled(shape, vec, 1, maxPhase, order);
          LinearLayout offsets = layout::sharedOffsets(compact, shared);
          for (int bytes : {2, 4}) {
            int32_t width = std::min(16 / bytes, layout::sharedVectorWidth(compact, shared));
            EXPECT_EQ(sharedWavefronts(offsets, width, bytes), referenceWavefronts(offsets, width, bytes, 32))
                << r.str() << " through " << shared.str();
          }
        }
  }
}

// planLdmatrix as first written: every candidate instruction's layouts built, then checked.
std::optional<layout::LdmatrixPlan> referenceLdmatrix(const LinearLayout& regs, const LinearLayout& shared,
                                                      int elemBits) {
  using namespace layout;
  if (!regs.hasInDim(kRegister) || !regs.hasInDim(kLane) || regs.getInDimSize(kLane) != 32) return std::nullopt;
  LinearLayout offsets = sharedOffsets(regs, shared);
  const std::vector<Basis>& regBases = offsets.ins()[offsets.inDimIndex(kRegister)].bases;
  int rowBits = std::countr_zero(unsigned(128 / elemBits));
  int perRegBits = std::countr_zero(unsigned(32 / elemBits));
  auto aligned = [&](const Basis& b) { return (b[0] & ((1 << rowBits) - 1)) == 0; };
  for (int num : {4, 2, 1}) {
    int consumed = perRegBits + std::countr_zero(unsigned(num));
    if (int(regBases.size()) < consumed) continue;
    std::vector<Basis> first(regBases.begin(), regBases.begin() + consumed);
    LinearLayout instr({InDim{std::string(kRegister), first}, offsets.ins()[offsets.inDimIndex(kLane)]},
                       offsets.outs());
    for (bool trans : {false, true}) {
      if (trans && elemBits != 16) continue;
      LinearLayout rowsToOffsets = ldmatrixTile(num, elemBits, trans).invert().compose(instr);
      bool ok = true;
      for (int b = 0; b < rowBits; ++b) ok = ok && rowsToOffsets.basis(kCol, b) == Basis{int32_t(1) << b};
      for (std::string_view d : {kMatrix, kRow})
        for (const Basis& b : rowsToOffsets.ins()[rowsToOffsets.inDimIndex(d)].bases) ok = ok && aligned(b);
      std::vector<InDim> ins{{std::string(kRegister), {regBases.begin() + consumed, regBases.end()}}};
      ins.push_back(ldmatrixRowAddresses(num, elemBits).compose(rowsToOffsets).ins()[0]);
      for (const InDim& d : offsets.ins())
        if (d.name != kRegister && d.name != kLane) ins.push_back(d);
      for (const InDim& d : ins)
        if (d.name != kLane)
          for (const Basis& b : d.bases) ok = ok && aligned(b);
      if (ok) return LdmatrixPlan{num, trans, int32_t(1) << consumed, LinearLayout(std::move(ins), offsets.outs())};
    }
  }
  return std::nullopt;
}

TEST(ScratchSearch, OneLdmatrixPlannerForManySharedLayoutsPlansAsBefore) {
  int found = 0, refused = 0;
  for (int elemBits : {16, 32}) {
    layout::LdmatrixPlanner planner(elemBits);  // reused across every shared layout below
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{64, 64}, std::vector<int64_t>{32, 128}}) {
      std::vector<LinearLayout> regs{layout::mmaV2Operand(0, shape, {2, 2}, elemBits == 16 ? 16 : 32),
                                     layout::mmaV2Operand(1, shape, {2, 2}, elemBits == 16 ? 16 : 32),
                                     layout::mmaV2Accumulator(shape, {2, 2}),
                                     layout::defaultBlocked(shape, 4, 4, {1, 0})};
      for (const LinearLayout& r : regs)
        for (int32_t vec : {1, 2, 4, 8})
          for (int32_t perPhase : {1, 2})
            for (int32_t maxPhase : {1, 4, 8})
              for (const std::vector<int32_t>& order : {std::vector<int32_t>{1, 0}, std::vector<int32_t>{0, 1}}) {
                LinearLayout shared = layout::sharedSwizzled(shape, vec, perPhase, maxPhase, order);
                std::optional<layout::LdmatrixPlan> want = referenceLdmatrix(r, shared, elemBits);
                std::optional<layout::LdmatrixPlan> got = planner.plan(layout::sharedOffsets(r, shared));
                ASSERT_EQ(got.has_value(), want.has_value()) << r.str() << " from " << shared.str();
                ASSERT_EQ(layout::planLdmatrix(r, shared, elemBits).has_value(), want.has_value());
                if (!want) {
                  ++refused;
                  continue;
                }
                ++found;
                EXPECT_EQ(got->numMatrices, want->numMatrices);
                EXPECT_EQ(got->trans, want->trans);
                EXPECT_EQ(got->elemsPerInstr, want->elemsPerInstr);
                EXPECT_EQ(got->rowOffsets, want->rowOffsets);
              }
    }
  }
  EXPECT_GT(found, 10);
  EXPECT_GT(refused, 10);
}

// Equal candidates are scored once; the choice must still be the first of the best.
TEST(ScratchSearch, PlanIsDeterministicAndUsesTheBestCandidate) {
  LinearLayout acc = uniqueRegisters(layout::mmaV2Accumulator({64, 64}, {2, 2})).compact;
  LinearLayout a = uniqueRegisters(layout::mmaV2Operand(0, {64, 64}, {2, 2}, 16)).compact;
  ScratchPlan p = planScratch(acc, a, 2), q = planScratch(acc, a, 2);
  EXPECT_EQ(p.shared, q.shared);
  EXPECT_EQ(p.wavefronts, q.wavefronts);
  // No plain or swizzled tile the search tries does better.
  for (int32_t vec : {1, 2, 4, 8})
    for (int32_t maxPhase : {1, 2, 4, 8}) {
      LinearLayout shared = layout::sharedSwizzled({64, 64}, vec, 1, maxPhase, {1, 0});
      int64_t store = sharedWavefronts(layout::sharedOffsets(acc, shared),
                                       std::min(8, layout::sharedVectorWidth(acc, shared)), 2);
      int64_t load = sharedWavefronts(layout::sharedOffsets(a, shared),
                                      std::min(8, layout::sharedVectorWidth(a, shared)), 2);
      EXPECT_LE(p.wavefronts, store + load) << shared.str();
    }
}

TEST(ScratchSearch, ValidateNamesWhatIsWrong) {
  using layout::OutDim;
  auto why = [](std::vector<InDim> ins, std::vector<OutDim> outs) { return LinearLayout::validate(ins, outs); };
  EXPECT_EQ(why({{"r", {{1}, {2}}}}, {{"d", 4}}), "");
  EXPECT_EQ(why({{"r", {}}}, {{"d", 4}, {"d", 2}}), "output dimension 'd' appears twice");
  EXPECT_EQ(why({{"r", {}}, {"r", {}}}, {{"d", 4}}), "input dimension 'r' appears twice");
  EXPECT_EQ(why({{"r", {{1}, {1, 0}}}}, {{"d", 4}}), "basis 1 of 'r' has 2 coordinates, expected 1");
  EXPECT_EQ(why({{"r", {{1}, {4}}}}, {{"d", 4}}), "basis 1 of 'r' has coordinate 4 outside 'd' of size 4");
  EXPECT_EQ(why({{"r", {}}}, {{"d", 3}}), "output dimension 'd' has size 3, not a power of two in [1, 2^30]");
  EXPECT_EQ(why({{"", {}}}, {{"d", 4}}), "an input dimension has an empty name");
}

}  // namespace
}  // namespace kiln::lower::test
