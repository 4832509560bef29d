// Axis info through loops (fixed points of loop-carried values), if/while joins, select, and the
// shape ops (reduce, permute, reshape, bitcast, cast); the nesting and work bounds.
#include <chrono>

#include "analysis/axis_lattice.h"
#include "analysis_test.h"
#include "ir/ir.h"

namespace kiln::analysis::test {
namespace {

// a_ptrs = a + rm[:, None] * stride_am + rk[None, :] over a 32x32 f16 tile, advanced in a loop by
// `step` (an i32 scalar computed before the loop, spelled in `stepDef`).
std::string pointerLoop(const std::string& stepDef) {
  return R"(
func @mm(%a: ptr<f16>, %sam: i32, %sak: i32, %K: i32) {
  %ah = multiple_of %a {values = [16]} : ptr<f16>
  %samh = multiple_of %sam {values = [16]} : i32
  %sakh = multiple_of %sak {values = [16]} : i32
  %r = arange {end = 32, start = 0} : tensor<32xi32>
  %rm = expand_dims %r {axis = 1} : tensor<32x1xi32>
  %rk = expand_dims %r {axis = 0} : tensor<1x32xi32>
  %st = splat %samh : tensor<32x1xi32>
  %row = mul %rm, %st : tensor<32x1xi32>
  %rowb = broadcast %row : tensor<32x32xi32>
  %colb = broadcast %rk : tensor<32x32xi32>
  %off = add %rowb, %colb : tensor<32x32xi32>
  %base = splat %ah : tensor<32x32xptr<f16>>
  %ptrs = ptr_add %base, %off : tensor<32x32xptr<f16>>
  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %c16 = constant {value = 16} : i32
  %c32 = constant {value = 32} : i32
)" + stepDef + R"(
  %steps = splat %step : tensor<32x32xi32>
  %res, %cnt, %acc = for %zero, %K, %one, %ptrs, %zero, %zero : tensor<32x32xptr<f16>>, i32, i32 {
  ^(%k: i32, %p: tensor<32x32xptr<f16>>, %i: i32, %s: i32):
    %v = load %p : tensor<32x32xf16>
    %pn = ptr_add %p, %steps : tensor<32x32xptr<f16>>
    %in = add %i, %one : i32
    %sn = add %s, %c16 : i32
    yield %pn, %in, %sn
  }
  return
})";
}

TEST(AxisInfoLoops, PointerIncrementOfBlockTimesUnitStrideKeepsAlignment) {
  Analyzed a = analyze(pointerLoop("  %step = add %c32, %zero : i32"));  // BLOCK_K * 1
  EXPECT_EQ(a.facts("ptrs"), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.facts("p"), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.facts("pn"), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.facts("res"), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("p"), 1), 8);
}

TEST(AxisInfoLoops, PointerIncrementOfBlockTimesHintedStride) {
  Analyzed a = analyze(pointerLoop("  %step = mul %c32, %sakh : i32"));
  EXPECT_EQ(a.facts("step"), "contiguity=[1] divisibility=[512] constancy=[1]");
  EXPECT_EQ(a.facts("p"), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("p"), 1), 8);
}

TEST(AxisInfoLoops, UnalignedIncrementReachesAFixedPoint) {
  // p += stride (unknown): after one trip the pointers are only element-aligned, so the loop
  // argument must say so even though the initial value is 16-byte aligned.
  Analyzed a = analyze(pointerLoop("  %step = add %sak, %zero : i32"));
  EXPECT_EQ(a.facts("ptrs"), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.facts("p"), "contiguity=[1, 32] divisibility=[2, 2] constancy=[1, 1]");
  EXPECT_EQ(a.facts("res"), "contiguity=[1, 32] divisibility=[2, 2] constancy=[1, 1]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("p"), 1), 1);
  EXPECT_EQ(a.analysis->vectorElements(a.v("ptrs"), 1), 8);
}

TEST(AxisInfoLoops, CarriedScalars) {
  Analyzed a = analyze(pointerLoop("  %step = add %c32, %zero : i32"));
  // i = 0, 1, 2, ...: nothing but its sign; s = 0, 16, 32, ...: multiples of 16.
  EXPECT_EQ(a.facts("i"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_TRUE(a["i"].nonNegative);
  EXPECT_EQ(a.facts("s"), "contiguity=[1] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("acc"), "contiguity=[1] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("k"), "contiguity=[1] divisibility=[1] constancy=[1]");
}

TEST(AxisInfoLoops, IfJoinsBothBranches) {
  Analyzed a = analyze(R"(
func @f(%c: i1, %n: i32) {
  %nh = multiple_of %n {values = [16]} : i32
  %r = arange {end = 64, start = 0} : tensor<64xi32>
  %ns = splat %nh : tensor<64xi32>
  %t = constant {value = 1} : i1
  %x = if %c : tensor<64xi32> {
    yield %r
  } {
    %s = add %r, %ns : tensor<64xi32>
    yield %s
  }
  %y = if %t : tensor<64xi32> {
    yield %r
  } {
    yield %ns
  }
  return
})");
  EXPECT_EQ(a.facts("x"), "contiguity=[64] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("y"), a.facts("r"));  // a constant condition takes its branch
}

TEST(AxisInfoLoops, WhileLoop) {
  Analyzed a = analyze(R"(
func @f(%x: ptr<f32>, %n: i32) {
  %xh = multiple_of %x {values = [16]} : ptr<f32>
  %r = arange {end = 64, start = 0} : tensor<64xi32>
  %base = splat %xh : tensor<64xptr<f32>>
  %p0 = ptr_add %base, %r : tensor<64xptr<f32>>
  %zero = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %four = constant {value = 4} : tensor<64xi32>
  %six = constant {value = 6} : tensor<64xi32>
  %i, %p = while %zero, %p0 : i32, tensor<64xptr<f32>> {
  ^(%bi: i32, %bp: tensor<64xptr<f32>>):
    %go = cmp %bi, %n {pred = "lt"} : i1
    condition %go, %bi, %bp
  } {
  ^(%ai: i32, %ap: tensor<64xptr<f32>>):
    %ai1 = add %ai, %one : i32
    %ap1 = ptr_add %ap, %four : tensor<64xptr<f32>>
    yield %ai1, %ap1
  }
  %j, %q = while %zero, %p0 : i32, tensor<64xptr<f32>> {
  ^(%bj: i32, %bq: tensor<64xptr<f32>>):
    %go2 = cmp %bj, %n {pred = "lt"} : i1
    condition %go2, %bj, %bq
  } {
  ^(%aj: i32, %aq: tensor<64xptr<f32>>):
    %aq1 = ptr_add %aq, %six : tensor<64xptr<f32>>
    yield %aj, %aq1
  }
  return
})");
  EXPECT_EQ(a.facts("p"), "contiguity=[64] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("ap"), "contiguity=[64] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("q"), "contiguity=[64] divisibility=[8] constancy=[1]");
  EXPECT_EQ(a.facts("j"), "contiguity=[1] divisibility=[4611686018427387904] constancy=[1] constant=0");
  EXPECT_EQ(a.facts("i"), "contiguity=[1] divisibility=[1] constancy=[1]");
}

TEST(AxisInfoOps, SelectReduceAndShapes) {
  Analyzed a = analyze(R"(
func @f(%x: ptr<f32>, %n: i32, %b: i1) {
  %nh = multiple_of %n {values = [16]} : i32
  %r = arange {end = 64, start = 0} : tensor<64xi32>
  %ns = splat %nh : tensor<64xi32>
  %mask = cmp %r, %ns {pred = "lt"} : tensor<64xi1>
  %shift = add %r, %ns : tensor<64xi32>
  %sel = select %mask, %r, %shift : tensor<64xi32>
  %sels = select %b, %r, %shift : tensor<64xi32>
  %re = expand_dims %r {axis = 0} : tensor<1x64xi32>
  %grid = broadcast %re : tensor<4x64xi32>
  %t = permute %grid {order = [1, 0]} : tensor<64x4xi32>
  %sum0 = reduce %grid {axis = 0, kind = "sum"} : tensor<64xi32>
  %sum1 = reduce %grid {axis = 1, kind = "max"} : tensor<4xi32>
  %arg = reduce %grid {axis = 1, kind = "argmax"} : tensor<4xi32>
  %flat = reshape %re : tensor<64xi32>
  %flat2 = reshape %grid : tensor<256xi32>
  %c8 = constant {value = 8} : tensor<4x64xi32>
  %scaled = mul %grid, %c8 : tensor<4x64xi32>
  %flat3 = reshape %scaled : tensor<256xi32>
  %wide = cast %shift : tensor<64xi64>
  %base = splat %x : tensor<64xptr<f32>>
  %p = ptr_add %base, %r : tensor<64xptr<f32>>
  %addr = bitcast %p : tensor<64xi64>
  %back = bitcast %addr : tensor<64xptr<f32>>
  %pid = program_id {axis = 1} : i32
  %np = num_programs {axis = 0} : i32
  return
})");
  EXPECT_EQ(a.facts("sel"), "contiguity=[16] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("sels"), "contiguity=[64] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("grid"), "contiguity=[1, 64] divisibility=[1, 4611686018427387904] constancy=[4, 1]");
  EXPECT_EQ(a.facts("t"), "contiguity=[64, 1] divisibility=[4611686018427387904, 1] constancy=[1, 4]");
  EXPECT_EQ(a.facts("sum0"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("sum1"), "contiguity=[1] divisibility=[1] constancy=[4]");  // equal rows
  EXPECT_EQ(a.facts("flat"), "contiguity=[64] divisibility=[4611686018427387904] constancy=[1]");
  EXPECT_EQ(a.facts("flat2"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("flat3"), "contiguity=[1] divisibility=[8] constancy=[1]");
  EXPECT_EQ(a.facts("wide"), a.facts("shift"));
  EXPECT_EQ(a.facts("addr"), "contiguity=[1] divisibility=[4] constancy=[1]");
  EXPECT_EQ(a.facts("back"), "contiguity=[1] divisibility=[4] constancy=[1]");
  EXPECT_EQ(a.facts("pid"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_TRUE(a["np"].nonNegative);
  EXPECT_TRUE(a["arg"].nonNegative);
}

TEST(AxisInfoOps, ReduceKeepsTheOtherDimsConstancy) {
  Analyzed a = analyze(R"(
func @f(%n: i32) {
  %nh = multiple_of %n {values = [16]} : i32
  %s = splat %nh : tensor<8x1xi32>
  %r = arange {end = 4, start = 0} : tensor<4xi32>
  %re = expand_dims %r {axis = 0} : tensor<1x4xi32>
  %sb = broadcast %s : tensor<8x4xi32>
  %rb = broadcast %re : tensor<8x4xi32>
  %m = mul %sb, %rb : tensor<8x4xi32>
  %red = reduce %m {axis = 1, kind = "sum"} : tensor<8xi32>
  %red0 = reduce %m {axis = 0, kind = "min"} : tensor<4xi32>
  return
})");
  EXPECT_EQ(a.facts("m"), "contiguity=[1, 1] divisibility=[16, 16] constancy=[8, 1]");
  EXPECT_EQ(a.facts("red"), "contiguity=[1] divisibility=[16] constancy=[8]");
  EXPECT_EQ(a.facts("red0"), "contiguity=[1] divisibility=[16] constancy=[1]");
}

TEST(AxisInfoBounds, DeepNestingIsAnErrorNotACrash) {
  ir::Module m;
  ir::Function& f = m.addFunction("deep");
  ir::Builder b(f.body);
  ir::Value* c = b.intConst(1, ir::Type::scalar(ir::Scalar::I1));
  ir::Block* blk = &f.body;
  std::vector<ir::Op*> ifs;
  for (int i = 0; i < 300; ++i) {
    ifs.push_back(ir::Builder(*blk).create(ir::Opcode::If, {c}, {}));
    blk = &ifs.back()->region(0);
  }
  for (ir::Op* op : ifs) {
    ir::Builder(op->region(0)).create(ir::Opcode::Yield, {}, {});
    ir::Builder(op->region(1)).create(ir::Opcode::Yield, {}, {});
  }
  ir::Builder(f.body).create(ir::Opcode::Return, {}, {});
  EXPECT_THROW(AxisInfoAnalysis{f}, CompileError);
}

TEST(AxisInfoBounds, NestedLoopsFinishQuickly) {
  // Each level carries a counter that needs two trips to settle: 2^depth walks without the budget.
  const int depth = 26;
  std::string s = "func @f(%n: i32) {\n  %z = constant {value = 0} : i32\n  %o = constant {value = 1} : i32\n";
  for (int i = 0; i < depth; ++i)
    s += "%r" + std::to_string(i) + " = for %z, %n, %o, %z : i32 {\n^(%k" + std::to_string(i) + ": i32, %c" +
         std::to_string(i) + ": i32):\n";
  s += "%x = add %c" + std::to_string(depth - 1) + ", %o : i32\n";
  for (int i = depth - 1; i >= 0; --i)
    s += "yield " + std::string(i == depth - 1 ? "%x" : "%r" + std::to_string(i + 1)) + "\n}\n";
  s += "return\n}\n";
  auto start = std::chrono::steady_clock::now();
  Analyzed a = analyze(s);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0);
  EXPECT_EQ(a.facts("c0"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("x"), "contiguity=[1] divisibility=[1] constancy=[1]");
}

}  // namespace
}  // namespace kiln::analysis::test
