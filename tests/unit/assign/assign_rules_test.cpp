// Layout assignment's rules: the shape ops' layout transformations (checked against what they mean
// element by element), the coalesced layout chosen from axis info, and the default layout.
#include "assign_test.h"
#include "layout/named_layouts.h"
#include "assign/assign_rules.h"

namespace kiln::lower::test {
namespace {

using assign::Layout;
using layout::DimValues;

// Every (register, lane, warp) of `l` and the coordinates it holds.
void forEachInput(const Layout& l, const std::function<void(int32_t, int32_t, int32_t, std::vector<int32_t>)>& fn) {
  for (int32_t r = 0; r < l.getInDimSize("register"); ++r)
    for (int32_t ln = 0; ln < 32; ++ln)
      for (int32_t w = 0; w < l.getInDimSize("warp"); ++w) {
        std::vector<int32_t> in{r, ln, w};
        fn(r, ln, w, l.apply(in));
      }
}

TEST(AssignRules, BroadcastOperandZeroesTheBroadcastDims) {
  Layout result = layout::defaultBlocked({16, 32}, 4, 2, {1, 0});
  Layout operand = assign::broadcastOperand(result, {16, 1});
  EXPECT_EQ(operand.getOutDimSize("dim0"), 16);
  EXPECT_EQ(operand.getOutDimSize("dim1"), 1);
  EXPECT_EQ(operand.getInDimSize("register"), result.getInDimSize("register"));  // same register count
  // Register r of the result reads register r of the operand: the same row.
  forEachInput(result, [&](int32_t r, int32_t ln, int32_t w, std::vector<int32_t> c) {
    std::vector<int32_t> in{r, ln, w};
    EXPECT_EQ(operand.apply(in), (std::vector<int32_t>{c[0], 0}));
  });
  // A dim that is 1 on both sides stays; nothing to zero.
  Layout row = layout::defaultBlocked({1, 64}, 4, 1, {1, 0});
  EXPECT_EQ(assign::broadcastOperand(row, {1, 64}), row);
}

TEST(AssignRules, ExpandDimsDropsAndInsertsTheUnitDim) {
  Layout l = layout::defaultBlocked({64}, 4, 1, {0});
  for (int axis : {0, 1}) {
    Layout expanded = assign::expandDimsResult(l, axis);
    EXPECT_EQ(expanded.outs().size(), 2u);
    EXPECT_EQ(expanded.getOutDimSize(layout::dimName(axis)), 1);
    EXPECT_EQ(assign::expandDimsOperand(expanded, axis), l);
  }
  // From a 2-D result: the operand keeps every register, even those the removed dim made duplicates.
  Layout r = layout::defaultBlocked({64, 1}, 4, 1, {0, 1});
  Layout op = assign::expandDimsOperand(r, 1);
  EXPECT_EQ(op.getInDimSize("register"), r.getInDimSize("register"));
  EXPECT_EQ(op.outDimNames(), std::vector<std::string>{"dim0"});
}

TEST(AssignRules, ReshapeAndPermuteMoveNoData) {
  Layout l = layout::defaultBlocked({8, 32}, 2, 4, {1, 0});
  Layout flat = assign::reshapeLayout(l, {256});
  EXPECT_EQ(assign::reshapeLayout(flat, {8, 32}), l);
  forEachInput(l, [&](int32_t r, int32_t ln, int32_t w, std::vector<int32_t> c) {
    std::vector<int32_t> in{r, ln, w};
    EXPECT_EQ(flat.apply(in)[0], c[0] * 32 + c[1]);
  });
  Layout t = assign::permuteResult(l, {1, 0});
  EXPECT_EQ(t.getOutDimSize("dim0"), 32);
  EXPECT_EQ(assign::permuteOperand(t, {1, 0}), l);
  forEachInput(l, [&](int32_t r, int32_t ln, int32_t w, std::vector<int32_t> c) {
    std::vector<int32_t> in{r, ln, w};
    EXPECT_EQ(t.apply(in), (std::vector<int32_t>{c[1], c[0]}));
  });
  // A 3-D rotation and its inverse.
  Layout cube = layout::defaultBlocked({2, 4, 8}, 1, 2, {2, 1, 0});
  Layout rot = assign::permuteResult(cube, {2, 0, 1});
  EXPECT_EQ(rot.getOutDimSize("dim0"), 8);
  EXPECT_EQ(rot.getOutDimSize("dim2"), 4);
  EXPECT_EQ(assign::permuteOperand(rot, {2, 0, 1}), cube);
}

TEST(AssignRules, CoalescedLayoutFollowsContiguityAndAlignment) {
  auto m = parseIr(R"(func @f(%p: ptr<f32>, %q: ptr<f16>, %s: i32) {
  %a = multiple_of %p {values = [16]} : ptr<f32>
  %r = arange {end = 1024, start = 0} : tensor<1024xi32>
  %sp = splat %a : tensor<1024xptr<f32>>
  %pp = ptr_add %sp, %r : tensor<1024xptr<f32>>
  %sq = splat %p : tensor<1024xptr<f32>>
  %pq = ptr_add %sq, %r : tensor<1024xptr<f32>>
  %c = arange {end = 64, start = 0} : tensor<64xi32>
  %c0 = expand_dims %c {axis = 0} : tensor<1x64xi32>
  %c1 = expand_dims %c {axis = 1} : tensor<64x1xi32>
  %cb0 = broadcast %c0 : tensor<64x64xi32>
  %cb1 = broadcast %c1 : tensor<64x64xi32>
  %sh = splat %q : tensor<64x64xptr<f16>>
  %rows = ptr_add %sh, %cb0 : tensor<64x64xptr<f16>>
  %cols = ptr_add %sh, %cb1 : tensor<64x64xptr<f16>>
  return
})");
  const ir::Function& f = *m->functions[0];
  analysis::AxisInfoAnalysis axis(f);
  auto value = [&](int k) { return f.body.ops.at(size_t(k))->result(); };
  // 1024 aligned f32 with 128 threads: 16-byte vectors (4 elements), 8 elements per thread.
  Layout aligned = assign::coalescedLayout(value(3), axis, 4);
  EXPECT_EQ(aligned.str(), "{register=[[1],[2],[512]], lane=[[4],[8],[16],[32],[64]], warp=[[128],[256]]} -> [dim0=1024]");
  // Without the alignment hint: one element at a time.
  Layout unaligned = assign::coalescedLayout(value(5), axis, 4);
  EXPECT_EQ(unaligned.basis("register", 0), (layout::Basis{128}));
  EXPECT_EQ(unaligned.getNumConsecutiveInOut(), 1);
  // Eight warps over 1024: 4 elements per thread, all in one vector.
  EXPECT_EQ(assign::coalescedLayout(value(3), axis, 8).getInDimSize("register"), 4);
  // 2-D: the contiguous dim is the fastest, whichever it is. The f16 pointer is not aligned (no hint):
  // each thread takes one element; lanes run along the contiguous dim.
  Layout rowMajor = assign::coalescedLayout(value(12), axis, 4);
  Layout colMajor = assign::coalescedLayout(value(13), axis, 4);
  EXPECT_EQ(rowMajor.basis("lane", 0), (layout::Basis{0, 1}));
  EXPECT_EQ(colMajor.basis("lane", 0), (layout::Basis{1, 0}));
  EXPECT_EQ(colMajor, assign::permuteOperand(rowMajor, {1, 0}));
}

TEST(AssignRules, DefaultLayoutIsRowMajorWithShortVectors) {
  Layout d = assign::defaultLayout({1024}, 4);
  EXPECT_EQ(d.getNumConsecutiveInOut(), 4);
  Layout small = assign::defaultLayout({16}, 4);  // smaller than the CTA: lanes and warps wrap
  EXPECT_EQ(small.getInDimSize("register"), 1);
  EXPECT_EQ(small.getInDimSize("lane"), 32);
  EXPECT_EQ(small.getInDimSize("warp"), 4);
  EXPECT_EQ(small.basis("warp", 0), (layout::Basis{0}));
  Layout two = assign::defaultLayout({4, 64}, 2);
  EXPECT_EQ(two.basis("register", 0), (layout::Basis{0, 1}));  // the last dim fastest
}

TEST(AssignRules, FamiliesCoverEveryOpcode) {
  // Every Tile IR op has a rule; the schedule's ops come after layout assignment and have none.
  for (int i = 0; i < ir::numOpcodes(); ++i) {
    const ir::Opcode op = ir::Opcode(i);
    if (ir::info(op).stage == ir::Stage::Tile || op == ir::Opcode::ConvertLayout) {
      EXPECT_NO_THROW(assign::layoutRuleOf(op));
    } else {
      EXPECT_ANY_THROW(assign::layoutRuleOf(op));
    }
  }
  EXPECT_EQ(assign::layoutRuleOf(ir::Opcode::PtrAdd), assign::LayoutRule::Elementwise);
  EXPECT_EQ(assign::layoutRuleOf(ir::Opcode::ConvertLayout), assign::LayoutRule::Convert);
}

}  // namespace
}  // namespace kiln::lower::test
