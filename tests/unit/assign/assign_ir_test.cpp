// Layout assignment on small hand-written Tile IR functions: the layouts chosen, where conversions go
// (and where they must not), control flow, shape ops, and the contract checker catching broken GPU IR.
#include "assign_test.h"
#include "layout/conversions.h"
#include "assign/assign_rules.h"

namespace kiln::lower::test {
namespace {

using ir::Opcode;

const char* kVectorAdd = R"(func @add(%x: ptr<f32>, %y: ptr<f32>, %out: ptr<f32>, %n: i32) {
  %0 = multiple_of %x {values = [16]} : ptr<f32>
  %1 = multiple_of %y {values = [16]} : ptr<f32>
  %2 = multiple_of %out {values = [16]} : ptr<f32>
  %3 = program_id {axis = 0} : i32
  %4 = constant {value = 1024} : i32
  %5 = mul %3, %4 : i32
  %6 = arange {end = 1024, start = 0} : tensor<1024xi32>
  %7 = splat %5 : tensor<1024xi32>
  %8 = add %7, %6 : tensor<1024xi32>
  %9 = splat %n : tensor<1024xi32>
  %10 = cmp %8, %9 {pred = "lt"} : tensor<1024xi1>
  %11 = splat %0 : tensor<1024xptr<f32>>
  %12 = ptr_add %11, %8 : tensor<1024xptr<f32>>
  %13 = load %12, %10 : tensor<1024xf32>
  %14 = splat %1 : tensor<1024xptr<f32>>
  %15 = ptr_add %14, %8 : tensor<1024xptr<f32>>
  %16 = load %15, %10 : tensor<1024xf32>
  %17 = add %13, %16 : tensor<1024xf32>
  %18 = splat %2 : tensor<1024xptr<f32>>
  %19 = ptr_add %18, %8 : tensor<1024xptr<f32>>
  store %19, %17, %10
  return
}
)";

TEST(AssignLayouts, VectorAddIsCoalescedWithoutConversions) {
  for (int warps : {1, 4, 8}) {
    SCOPED_TRACE(warps);
    auto m = parseIr(kVectorAdd);
    assignAndCheck(*m, warps);
    const ir::Function& f = *m->functions[0];
    EXPECT_EQ(countOps(f, Opcode::ConvertLayout), 0);
    const ir::Op* load = firstOp(f, Opcode::Load);
    // 16-byte vectors along the only dim; lanes next, then warps.
    EXPECT_EQ(load->result()->type.layout->getNumConsecutiveInOut(), 4);
    EXPECT_EQ(load->result()->type.layout->basis("lane", 0), (layout::Basis{4}));
    // Every tile, the arange included, is in the load's layout.
    forEachOp(f.body, [&](const ir::Op& op) {
      for (const auto& r : op.results)
        if (r->type.isTensor()) {
          EXPECT_EQ(*r->type.layout, *load->result()->type.layout) << op.name();
        }
    });
  }
}

TEST(AssignLayouts, AssigningTwiceGivesTheSameIr) {
  auto m = parseIr(kVectorAdd);
  std::string once = assignAndCheck(*m, 4);
  std::string twice = assignAndCheck(*m, 4);
  EXPECT_EQ(once, twice);
  // A run for another warp count replaces the layouts, it does not keep the old ones.
  std::string eight = assignAndCheck(*m, 8);
  EXPECT_NE(eight, once);
  EXPECT_NO_THROW(checkGpuContract(*m->functions[0], 8, ptx::kSm80));
  EXPECT_THROW(checkGpuContract(*m->functions[0], 4, ptx::kSm80), InternalError);
}

// A transposing copy: the load is coalesced along dim1 and the store along dim0, so the data must move
// once, between them; the index arithmetic is recomputed in each layout instead of converted.
TEST(AssignLayouts, TransposeConvertsTheDataOnce) {
  auto m = parseIr(R"(func @transpose(%src: ptr<f32>, %dst: ptr<f32>) {
  %a = multiple_of %src {values = [16]} : ptr<f32>
  %b = multiple_of %dst {values = [16]} : ptr<f32>
  %r = arange {end = 32, start = 0} : tensor<32xi32>
  %row = expand_dims %r {axis = 1} : tensor<32x1xi32>
  %col = expand_dims %r {axis = 0} : tensor<1x32xi32>
  %c32 = constant {value = 32} : tensor<32x1xi32>
  %rs = mul %row, %c32 : tensor<32x1xi32>
  %rb = broadcast %rs : tensor<32x32xi32>
  %cb = broadcast %col : tensor<32x32xi32>
  %off = add %rb, %cb : tensor<32x32xi32>
  %sa = splat %a : tensor<32x32xptr<f32>>
  %pa = ptr_add %sa, %off : tensor<32x32xptr<f32>>
  %v = load %pa : tensor<32x32xf32>
  %c32t = constant {value = 32} : tensor<1x32xi32>
  %cs = mul %col, %c32t : tensor<1x32xi32>
  %cb2 = broadcast %cs : tensor<32x32xi32>
  %rb2 = broadcast %row : tensor<32x32xi32>
  %toff = add %cb2, %rb2 : tensor<32x32xi32>
  %sb = splat %b : tensor<32x32xptr<f32>>
  %pb = ptr_add %sb, %toff : tensor<32x32xptr<f32>>
  store %pb, %v
  return
})");
  assignAndCheck(*m, 4);
  const ir::Function& f = *m->functions[0];
  ASSERT_EQ(countOps(f, Opcode::ConvertLayout), 1) << ir::print(f);
  const ir::Op* cvt = firstOp(f, Opcode::ConvertLayout);
  EXPECT_EQ(cvt->operand(0)->def->opcode, Opcode::Load);
  const ir::Op* store = firstOp(f, Opcode::Store);
  EXPECT_EQ(store->operand(1), cvt->result());
  EXPECT_EQ(store->operand(0)->type.layout->basis("register", 0), (layout::Basis{1, 0}));  // vectors along dim0
  EXPECT_EQ(cvt->operand(0)->type.layout->basis("register", 0), (layout::Basis{0, 1}));   // along dim1
}

// A row-wise reduction feeding back into the rows (softmax's shape): the reduced value returns to the
// row layout through expand_dims and broadcast; any conversion on the way moves no data between threads.
TEST(AssignLayouts, RowReductionRoundTrip) {
  auto m = parseIr(R"(func @rows(%p: ptr<f32>, %q: ptr<f32>) {
  %a = multiple_of %p {values = [16]} : ptr<f32>
  %b = multiple_of %q {values = [16]} : ptr<f32>
  %r = arange {end = 16, start = 0} : tensor<16xi32>
  %c = arange {end = 64, start = 0} : tensor<64xi32>
  %row = expand_dims %r {axis = 1} : tensor<16x1xi32>
  %col = expand_dims %c {axis = 0} : tensor<1x64xi32>
  %k = constant {value = 64} : tensor<16x1xi32>
  %rs = mul %row, %k : tensor<16x1xi32>
  %rb = broadcast %rs : tensor<16x64xi32>
  %cb = broadcast %col : tensor<16x64xi32>
  %off = add %rb, %cb : tensor<16x64xi32>
  %sa = splat %a : tensor<16x64xptr<f32>>
  %pa = ptr_add %sa, %off : tensor<16x64xptr<f32>>
  %x = load %pa : tensor<16x64xf32>
  %mx = reduce %x {axis = 1, kind = "max"} : tensor<16xf32>
  %me = expand_dims %mx {axis = 1} : tensor<16x1xf32>
  %mb = broadcast %me : tensor<16x64xf32>
  %d = sub %x, %mb : tensor<16x64xf32>
  %sb = splat %b : tensor<16x64xptr<f32>>
  %pb = ptr_add %sb, %off : tensor<16x64xptr<f32>>
  store %pb, %d
  return
})");
  for (int warps : {1, 4, 8}) {
    SCOPED_TRACE(warps);
    assignAndCheck(*m, warps);
    const ir::Function& f = *m->functions[0];
    EXPECT_EQ(*firstOp(f, Opcode::Sub)->result()->type.layout, *firstOp(f, Opcode::Load)->result()->type.layout);
    EXPECT_LE(countOps(f, Opcode::ConvertLayout), 1);
    forEachOp(f.body, [&](const ir::Op& op) {
      if (op.opcode == Opcode::ConvertLayout) {
        EXPECT_TRUE(layout::needsNoDataMovement(*op.operand(0)->type.layout, *op.result()->type.layout)) << ir::print(f);
      }
    });
  }
}

}  // namespace
}  // namespace kiln::lower::test
