// Codegen::coords and coordParts: the coordinates each thread computes for each register of a
// layout, checked by running the emitted instructions for every thread against LinearLayout::apply;
// the thread part is computed once per layout and dim; ownerPredicate picks one thread per element.
#include "codegen_ptx_eval.h"
#include "codegen_test_util.h"
#include "ptx/builder.h"

namespace kiln::lower::test {
namespace {

using layout::LinearLayout;

struct Harness {
  std::unique_ptr<ir::Module> m = parseGpu("func @k() {\n  return\n}");
  std::unique_ptr<analysis::AxisInfoAnalysis> axis = std::make_unique<analysis::AxisInfoAnalysis>(*m->functions[0]);
  ptx::Module module{ptx::kSm80};
  ptx::Entry& e = module.addEntry("k");
  Codegen cg;
  explicit Harness(int numWarps = 4) : cg(e, *m->functions[0], *axis, numWarps) {}
};

// For every thread of the CTA and every register, the value coords() produced equals l.apply.
void checkCoords(const LinearLayout& l, int numWarps = 4) {
  SCOPED_TRACE(l.str());
  Harness h(numWarps);
  int32_t regs = l.getInDimSize(layout::kRegister);
  std::vector<std::vector<ptx::Reg>> got;
  for (int32_t r = 0; r < regs; ++r) got.push_back(h.cg.coords(l, r));
  h.e.ret();
  std::string ptx = h.module.str();
  for (uint32_t tid = 0; tid < uint32_t(32 * numWarps); ++tid) {
    PtxThread t;
    t.tid = tid;
    runThread(ptx, t);
    ASSERT_EQ(t.error, "") << ptx;
    for (int32_t r = 0; r < regs; ++r) {
      std::vector<int32_t> in{r, int32_t(tid % 32), int32_t(tid / 32)};
      std::vector<int32_t> want = l.apply(in);
      for (size_t d = 0; d < want.size(); ++d)
        ASSERT_EQ(t.regs.at(got[size_t(r)][d].str()), uint64_t(want[d])) << "thread " << tid << " register " << r << " dim " << d << "\n" << ptx;
    }
  }
}

TEST(CodegenCoords, BlockedLayouts) {
  checkCoords(layout::defaultBlocked({16, 32}, 4, 4, {1, 0}));
  checkCoords(layout::defaultBlocked({1024}, 4, 4, {0}));
  checkCoords(layout::defaultBlocked({64, 8}, 8, 2, {0, 1}), 8);
  checkCoords(layout::blocked({2, 4, 64}, {1, 2, 2}, {1, 2, 16}, {2, 1, 2}, {2, 1, 0}));
}

TEST(CodegenCoords, BroadcastLanesAndWarps) {
  checkCoords(layout::defaultBlocked({16}, 4, 1, {0}));
  checkCoords(layout::sliceLayout(layout::defaultBlocked({16, 32}, 4, 4, {1, 0}), 1));
}

TEST(CodegenCoords, TensorCoreFragments) {
  checkCoords(layout::mmaV2Accumulator({64, 32}, {2, 2}));
  checkCoords(layout::mmaV2Operand(0, {64, 32}, {2, 2}, 16));
  checkCoords(layout::wgmmaAccumulator({64, 64}, 64, {4, 1}));
}

// Bases that are not powers of two and lane bits that overlap register bits.
TEST(CodegenCoords, GeneralLinearMaps) {
  LinearLayout l({{"register", {{1}, {4}}}, {"lane", {{3}, {2}, {8}, {16}, {32}}}, {"warp", {{64}, {5}}}},
                 {{"dim0", 128}});
  checkCoords(l);
  std::vector<Codegen::CoordPart> p;
  Harness h;
  p = h.cg.coordParts(l, 1);
  EXPECT_EQ(p[0].constant, 1);
  EXPECT_FALSE(p[0].disjoint);  // lane bit 0 also moves bit 0
  EXPECT_TRUE(p[0].thread.valid());
}

// arange with a start over a layout whose bases overlap and repeat (512 inputs onto 128 elements):
// every element is stored exactly once, with start + its index.
TEST(CodegenCoords, ArangeOverAGeneralLayoutStoresEachElementOnce) {
  LinearLayout l({{"register", {{1}, {4}}}, {"lane", {{3}, {2}, {8}, {16}, {32}}}, {"warp", {{64}, {5}}}},
                 {{"dim0", 128}});
  std::string text = R"(func @iota(%out: ptr<i32>) {
  %a = arange {end = 133, start = 5} : tensor<128xi32, #L>
  %op = splat %out : tensor<128xptr<i32>, #L>
  %oa = ptr_add %op, %a : tensor<128xptr<i32>, #L>
  store %oa, %a
  return
})";
  Emitted e = emit(text, {{"L", l}});
  std::map<uint64_t, int> seen;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t;
    t.tid = tid;
    t.params = {{"iota_out", 0x1000}};
    runThread(e.ptx, t);
    ASSERT_EQ(t.error, "") << e.ptx;
    for (const Store& s : t.stores) {
      EXPECT_EQ(s.address, 0x1000 + 4 * s.value);
      ++seen[s.value];
    }
  }
  ASSERT_EQ(seen.size(), 128u);
  for (const auto& [v, n] : seen) {
    EXPECT_TRUE(v >= 5 && v < 133) << v;
    EXPECT_EQ(n, 1) << v;
  }
  expectAssembles(text, {{"L", l}});
}

TEST(CodegenCoords, ConstantDimsFoldAndThreadPartsAreComputedOnce) {
  // dim0 moves with registers only; dim1 with lanes and warps only.
  LinearLayout l({{"register", {{1, 0}, {2, 0}}}, {"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}}, {"warp", {{0, 32}, {0, 64}}}},
                 {{"dim0", 4}, {"dim1", 128}});
  Harness h;
  std::vector<Codegen::CoordPart> p = h.cg.coordParts(l, 3);
  EXPECT_FALSE(p[0].thread.valid());
  EXPECT_EQ(p[0].constant, 3);
  EXPECT_TRUE(p[1].thread.valid());
  EXPECT_EQ(p[1].constant, 0);
  EXPECT_TRUE(p[1].disjoint);
  std::string before = h.e.str();
  for (int32_t r = 0; r < 4; ++r) {
    std::vector<ptx::Reg> c = h.cg.coords(l, r);
    EXPECT_EQ(c[1], p[1].thread);  // no constant part: the shared thread register itself
  }
  std::string after = body(h.e.str()).substr(body(before).size());
  // Four constants for dim0, and nothing for dim1: its thread part already exists.
  EXPECT_EQ(after, "mov.b32 %r" + std::to_string(p[1].thread.id + 1) + ", 0;\nmov.b32 %r" + std::to_string(p[1].thread.id + 2) +
                       ", 1;\nmov.b32 %r" + std::to_string(p[1].thread.id + 3) + ", 2;\nmov.b32 %r" +
                       std::to_string(p[1].thread.id + 4) + ", 3;\n");
  // Lanes 0..4 -> dim1 bits 0..4 and warps -> bits 5..6: two bit-field extracts, a shift and a xor.
  EXPECT_EQ(count(before, "bfe.u32"), 2) << before;
  EXPECT_EQ(count(before, "shl.b32"), 1) << before;
  EXPECT_EQ(count(before, "xor.b32"), 1) << before;
}

TEST(CodegenCoords, RegisterIndexOutOfRangeIsABug) {
  Harness h;
  EXPECT_THROW(h.cg.coords(layout::defaultBlocked({128}, 4, 1, {0}), 1), InternalError);
}

// ownerPredicate: over all threads, exactly one owner per element of a broadcast layout.
void checkOwners(const LinearLayout& l) {
  SCOPED_TRACE(l.str());
  Harness h;
  ptx::Reg p = h.cg.ownerPredicate(l);
  std::vector<ptx::Reg> c0 = h.cg.coords(l, 0);
  h.e.ret();
  std::string ptx = h.module.str();
  std::map<int32_t, int> owners;  // dim0 coordinate of register 0 -> threads owning it
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t;
    t.tid = tid;
    runThread(ptx, t);
    ASSERT_EQ(t.error, "");
    if (!p.valid() || t.regs.at(p.str())) ++owners[int32_t(t.regs.at(c0[0].str()))];
  }
  int32_t distinct = 0;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    std::vector<int32_t> in{0, int32_t(tid % 32), int32_t(tid / 32)};
    distinct = std::max(distinct, l.apply(in)[0] + 1);
  }
  for (int32_t x = 0; x < distinct; ++x) EXPECT_EQ(owners[x], 1) << "element " << x;
}

TEST(CodegenCoords, OwnerPredicatePicksOneThreadPerElement) {
  checkOwners(layout::defaultBlocked({16}, 4, 1, {0}));  // lanes 16..31 and warps 1..3 hold copies
  checkOwners(layout::defaultBlocked({64}, 4, 1, {0}));
  checkOwners(LinearLayout({{"register", {}}, {"lane", {{0}, {1}, {2}, {4}, {8}}}, {"warp", {{16}, {0}}}}, {{"dim0", 32}}));
  Harness h;
  EXPECT_FALSE(h.cg.ownerPredicate(layout::defaultBlocked({1024}, 4, 4, {0})).valid());  // no copies
}

}  // namespace
}  // namespace kiln::lower::test
