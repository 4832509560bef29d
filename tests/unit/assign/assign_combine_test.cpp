// Layout assignment of reduce_combine and scan: their operands share one layout that holds the axis in
// order (the first operand's own when it does, with no conversion; else the default layout), their
// results follow it (scan) or its slice (reduce_combine), and the contract checker holds them to that.
#include "assign/assign_rules.h"
#include "assign_test.h"
#include "layout/axis_bits.h"
#include "layout/named_layouts.h"

namespace kiln::lower::test {
namespace {

using ir::Opcode;

// A [16, 64] f32 tile loaded row-major, an index tile, and `op` over them along `axis`.
std::string kernel(const std::string& op, int axis) {
  const std::string rt = op == "scan" ? "tensor<16x64xf32>, tensor<16x64xi32>"
                                      : (axis == 0 ? "tensor<64xf32>, tensor<64xi32>" : "tensor<16xf32>, tensor<16xi32>");
  return R"(func @k(%p: ptr<f32>, %q: ptr<i32>) {
  %r = arange {end = 16, start = 0} : tensor<16xi32>
  %c = arange {end = 64, start = 0} : tensor<64xi32>
  %row = expand_dims %r {axis = 1} : tensor<16x1xi32>
  %col = expand_dims %c {axis = 0} : tensor<1x64xi32>
  %k = constant {value = 64} : tensor<16x1xi32>
  %rs = mul %row, %k : tensor<16x1xi32>
  %rb = broadcast %rs : tensor<16x64xi32>
  %cb = broadcast %col : tensor<16x64xi32>
  %off = add %rb, %cb : tensor<16x64xi32>
  %sa = splat %p : tensor<16x64xptr<f32>>
  %pa = ptr_add %sa, %off : tensor<16x64xptr<f32>>
  %x = load %pa : tensor<16x64xf32>
  %v, %i = )" + op + " %x, %off {axis = " + std::to_string(axis) + "} : " + rt + R"( {
  ^(%v1: f32, %i1: i32, %v2: f32, %i2: i32):
    %gt = cmp %v1, %v2 {pred = "gt"} : i1
    %mv = select %gt, %v1, %v2 : f32
    %mi = select %gt, %i1, %i2 : i32
    yield %mv, %mi
  }
  return
})";
}

TEST(AssignCombine, OperandsShareAnAxisOrderedLayout) {
  for (const char* op : {"scan", "reduce_combine"})
    for (int axis : {0, 1})
      for (int warps : {1, 4, 8}) {
        SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis) + " warps " + std::to_string(warps));
        auto m = parseIr(kernel(op, axis));
        assignAndCheck(*m, warps);
        const ir::Function& f = *m->functions[0];
        const ir::Op* c = firstOp(f, op == std::string("scan") ? Opcode::Scan : Opcode::ReduceCombine);
        const layout::LinearLayout& l = *c->operand(0)->type.layout;
        EXPECT_TRUE(layout::axisBits(l, axis)) << l.str();
        EXPECT_EQ(l, *c->operand(1)->type.layout);
        EXPECT_EQ(*c->result(1)->type.layout, assign::combineResult(*c, l));
        // The load's coalesced layout is blocked, so it already holds either axis in order.
        EXPECT_EQ(l, *firstOp(f, Opcode::Load)->result()->type.layout) << ir::print(f);
      }
}

// A tile in an mma accumulator layout: its rows are lanes, then a register, then warps, not in axis
// order; the scan's operands convert to the default layout.
TEST(AssignCombine, AnUnorderedLayoutConverts) {
  auto acc = layout::mmaV2Accumulator({64, 64}, {2, 2});
  ASSERT_FALSE(layout::axisBits(acc, 0));
  auto m = parseIr(R"(func @k(%a: ptr<f16>) {
  %x = constant {value = 1.0} : tensor<64x64xf16>
  %z = constant {value = 0.0} : tensor<64x64xf32>
  %d = dot %x, %x, %z : tensor<64x64xf32>
  %s = scan %d {axis = 0} : tensor<64x64xf32> {
  ^(%u: f32, %w: f32):
    %t = add %u, %w : f32
    yield %t
  }
  %r = reduce %s {axis = 0, kind = "sum"} : tensor<64xf32>
  %e = reduce %r {axis = 0, kind = "sum"} : f32
  %h = cast %e : f16
  store %a, %h
  return
})");
  assignAndCheck(*m, 4);
  const ir::Function& f = *m->functions[0];
  const ir::Op* scan = firstOp(f, Opcode::Scan);
  EXPECT_EQ(scan->operand(0)->def->opcode, Opcode::ConvertLayout) << ir::print(f);
  EXPECT_TRUE(layout::axisBits(*scan->operand(0)->type.layout, 0));
  EXPECT_EQ(*scan->result(0)->type.layout, *scan->operand(0)->type.layout);
}

}  // namespace
}  // namespace kiln::lower::test
