// Layout assignment through control flow (for, if, while: one layout per iteration value, conversions
// outside loops where possible), shape ops, dots, cheap values recomputed rather than converted, and the
// contract checker rejecting GPU IR that breaks a rule.
#include "assign_test.h"
#include "layout/named_layouts.h"
#include "lower/codegen.h"

namespace kiln::lower::test {
namespace {

using ir::Opcode;

// acc += load(...) in a loop, reduced after it (layernorm's shape): the carried value takes the load's
// layout from the loop body, so nothing converts.
TEST(AssignControl, LoopCarriedValueFollowsTheBody) {
  auto m = parseIr(R"(func @sum(%p: ptr<f16>, %n: i32, %out: ptr<f32>) {
  %a = multiple_of %p {values = [16]} : ptr<f16>
  %zero = constant {value = 0.0} : tensor<256xf32>
  %lb = constant {value = 0} : i32
  %st = constant {value = 256} : i32
  %r = arange {end = 256, start = 0} : tensor<256xi32>
  %acc = for %lb, %n, %st, %zero : tensor<256xf32> {
  ^(%i: i32, %c: tensor<256xf32>):
    %s = splat %i : tensor<256xi32>
    %o = add %s, %r : tensor<256xi32>
    %sp = splat %a : tensor<256xptr<f16>>
    %pp = ptr_add %sp, %o : tensor<256xptr<f16>>
    %x = load %pp : tensor<256xf16>
    %y = cast %x : tensor<256xf32>
    %z = add %c, %y : tensor<256xf32>
    yield %z
  }
  %t = reduce %acc {axis = 0, kind = "sum"} : f32
  store %out, %t
  return
})");
  assignAndCheck(*m, 4);
  const ir::Function& f = *m->functions[0];
  EXPECT_EQ(countOps(f, Opcode::ConvertLayout), 0) << ir::print(f);
  EXPECT_EQ(*firstOp(f, Opcode::For)->result()->type.layout, *firstOp(f, Opcode::Load)->result()->type.layout);
  EXPECT_EQ(firstOp(f, Opcode::Load)->result()->type.layout->getNumConsecutiveInOut(), 2);  // 256 / 128 threads
}

// A carried value combined in the loop with a loop-invariant tile of another layout (a transpose of
// the initial value): conversions happen before or after the loop, not per iteration.
TEST(AssignControl, InvariantConversionsStayOutsideTheLoop) {
  auto m = parseIr(R"(func @f(%p: ptr<f32>, %q: ptr<f32>, %n: i32) {
  %a = multiple_of %p {values = [16]} : ptr<f32>
  %b = multiple_of %q {values = [16]} : ptr<f32>
  %r = arange {end = 32, start = 0} : tensor<32xi32>
  %row = expand_dims %r {axis = 1} : tensor<32x1xi32>
  %col = expand_dims %r {axis = 0} : tensor<1x32xi32>
  %k = constant {value = 32} : tensor<32x1xi32>
  %rs = mul %row, %k : tensor<32x1xi32>
  %rb = broadcast %rs : tensor<32x32xi32>
  %cb = broadcast %col : tensor<32x32xi32>
  %off = add %rb, %cb : tensor<32x32xi32>
  %sa = splat %a : tensor<32x32xptr<f32>>
  %pa = ptr_add %sa, %off : tensor<32x32xptr<f32>>
  %x = load %pa : tensor<32x32xf32>
  %xt = permute %x {order = [1, 0]} : tensor<32x32xf32>
  %lb = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %acc = for %lb, %n, %one, %x : tensor<32x32xf32> {
  ^(%i: i32, %c: tensor<32x32xf32>):
    %d = add %c, %xt : tensor<32x32xf32>
    yield %d
  }
  %sb = splat %b : tensor<32x32xptr<f32>>
  %pb = ptr_add %sb, %off : tensor<32x32xptr<f32>>
  store %pb, %acc
  return
})");
  assignAndCheck(*m, 4);
  const ir::Function& f = *m->functions[0];
  const ir::Op* loop = firstOp(f, Opcode::For);
  // The body's add decides the carried layout (the permuted one); the initial value converts into it
  // before the loop and the result out of it after: never per iteration.
  EXPECT_LE(countOps(f, Opcode::ConvertLayout), 2) << ir::print(f);
  forEachOp(loop->region(0), [&](const ir::Op& op) { EXPECT_NE(op.opcode, Opcode::ConvertLayout) << ir::print(f); });
}

// if and while carry tiles: results, region arguments and the values flowing in share a layout.
TEST(AssignControl, IfAndWhileTieTheirValues) {
  auto m = parseIr(R"(func @f(%p: ptr<i32>, %q: ptr<i32>, %flag: i1) {
  %a = multiple_of %p {values = [16]} : ptr<i32>
  %r = arange {end = 128, start = 0} : tensor<128xi32>
  %sp = splat %a : tensor<128xptr<i32>>
  %pp = ptr_add %sp, %r : tensor<128xptr<i32>>
  %x = load %pp : tensor<128xi32>
  %y = if %flag : tensor<128xi32> {
    %two = constant {value = 2} : tensor<128xi32>
    %d = mul %x, %two : tensor<128xi32>
    yield %d
  } {
    yield %r
  }
  %z, %steps = while %y, %r : tensor<128xi32>, tensor<128xi32> {
  ^(%v: tensor<128xi32>, %s: tensor<128xi32>):
    %c = reduce %v {axis = 0, kind = "max"} : i32
    %one = constant {value = 1} : i32
    %go = cmp %c, %one {pred = "gt"} : i1
    condition %go, %v, %s
  } {
  ^(%v2: tensor<128xi32>, %s2: tensor<128xi32>):
    %k = constant {value = 1} : tensor<128xi32>
    %h = shr %v2, %k : tensor<128xi32>
    %t = add %s2, %k : tensor<128xi32>
    yield %h, %t
  }
  %w = add %z, %steps : tensor<128xi32>
  %b = multiple_of %q {values = [16]} : ptr<i32>
  %sq = splat %b : tensor<128xptr<i32>>
  %pq = ptr_add %sq, %r : tensor<128xptr<i32>>
  store %pq, %w
  return
})");
  for (int warps : {1, 4, 8}) {
    SCOPED_TRACE(warps);
    assignAndCheck(*m, warps);
    const ir::Function& f = *m->functions[0];
    EXPECT_EQ(countOps(f, Opcode::ConvertLayout), 0) << ir::print(f);
    const ir::Op* w = firstOp(f, Opcode::While);
    EXPECT_EQ(*w->result(0)->type.layout, *firstOp(f, Opcode::Load)->result()->type.layout);
  }
}

// Tile kernel parameters, reshape and permute: the shape ops move no data, so a load reshaped and
// transposed before a store converts at most once.
TEST(AssignControl, ShapeOpsAndTileParameters) {
  auto m = parseIr(R"(func @f(%ptrs: tensor<8x16xptr<f32>>, %out: tensor<128xptr<f32>>) {
  %x = load %ptrs : tensor<8x16xf32>
  %t = permute %x {order = [1, 0]} : tensor<16x8xf32>
  %flat = reshape %t : tensor<128xf32>
  %e = exp %flat : tensor<128xf32>
  store %out, %e
  return
})");
  assignAndCheck(*m, 2);
  const ir::Function& f = *m->functions[0];
  EXPECT_LE(countOps(f, Opcode::ConvertLayout), 1);
  EXPECT_TRUE(f.body.arg(0)->type.layout && f.body.arg(1)->type.layout);
}

// A splat and an arange used in two layouts are recomputed in each rather than converted.
TEST(AssignControl, CheapValuesAreRecomputedNotConverted) {
  auto m = parseIr(R"(func @f(%p: ptr<f32>, %q: ptr<f32>, %s: f32) {
  %a = multiple_of %p {values = [16]} : ptr<f32>
  %b = multiple_of %q {values = [16]} : ptr<f32>
  %r = arange {end = 32, start = 0} : tensor<32xi32>
  %row = expand_dims %r {axis = 1} : tensor<32x1xi32>
  %col = expand_dims %r {axis = 0} : tensor<1x32xi32>
  %k = constant {value = 32} : tensor<32x1xi32>
  %rs = mul %row, %k : tensor<32x1xi32>
  %rb = broadcast %rs : tensor<32x32xi32>
  %cb = broadcast %col : tensor<32x32xi32>
  %off = add %rb, %cb : tensor<32x32xi32>
  %k2 = constant {value = 32} : tensor<1x32xi32>
  %cs = mul %col, %k2 : tensor<1x32xi32>
  %cb2 = broadcast %cs : tensor<32x32xi32>
  %rb2 = broadcast %row : tensor<32x32xi32>
  %toff = add %cb2, %rb2 : tensor<32x32xi32>
  %sp = splat %s : tensor<32x32xf32>
  %sa = splat %a : tensor<32x32xptr<f32>>
  %pa = ptr_add %sa, %off : tensor<32x32xptr<f32>>
  store %pa, %sp
  %sb = splat %b : tensor<32x32xptr<f32>>
  %pb = ptr_add %sb, %toff : tensor<32x32xptr<f32>>
  store %pb, %sp
  return
})");
  assignAndCheck(*m, 4);
  const ir::Function& f = *m->functions[0];
  EXPECT_EQ(countOps(f, Opcode::ConvertLayout), 0) << ir::print(f);
  EXPECT_EQ(countOps(f, Opcode::Splat), 4);   // %s in both store layouts, and the two base pointers
  EXPECT_LE(countOps(f, Opcode::Arange), 4);  // the row and the column index in each store's layout
}

// A dot: a and b convert into the operand layouts dotLayout gives, the accumulator is built in its
// layout (the zero constant is recomputed, not converted), and the result converts for the store.
TEST(AssignControl, SmallDotUsesTheDotLayouts) {
  auto m = parseIr(R"(func @mm(%pa: tensor<32x16xptr<f16>>, %pb: tensor<16x32xptr<f16>>, %pc: tensor<32x32xptr<f32>>) {
  %a = load %pa : tensor<32x16xf16>
  %b = load %pb : tensor<16x32xf16>
  %z = constant {value = 0.0} : tensor<32x32xf32>
  %c = dot %a, %b, %z : tensor<32x32xf32>
  store %pc, %c
  return
})");
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a})
    for (int warps : {1, 2, 4, 8}) {
      SCOPED_TRACE(std::to_string(warps) + " " + target.name());
      assignAndCheck(*m, warps, target);
      const ir::Function& f = *m->functions[0];
      const ir::Op* dot = firstOp(f, Opcode::Dot);
      for (int i = 0; i < 3; ++i) EXPECT_EQ(*dot->operand(unsigned(i))->type.layout, dotLayout(i, *dot, warps, target));
      EXPECT_EQ(dot->operand(2)->def->opcode, Opcode::Constant);
      EXPECT_LE(countOps(f, Opcode::ConvertLayout), 3);
    }
}

// ---- the checker: each broken rule is caught, naming the op.

std::unique_ptr<ir::Module> assignedRows() {
  auto m = parseIr(R"(func @rows(%p: tensor<16x64xptr<f32>>, %q: tensor<16xptr<f32>>) {
  %x = load %p : tensor<16x64xf32>
  %s = reduce %x {axis = 1, kind = "sum"} : tensor<16xf32>
  %e = expand_dims %s {axis = 1} : tensor<16x1xf32>
  %b = broadcast %e : tensor<16x64xf32>
  %d = sub %x, %b : tensor<16x64xf32>
  %t = reduce %d {axis = 1, kind = "max"} : tensor<16xf32>
  store %q, %t
  return
})");
  assignAndCheck(*m, 4);
  return m;
}

void expectBroken(const ir::Function& f, const std::string& opName) {
  try {
    checkGpuContract(f, 4, ptx::kSm80);
    ADD_FAILURE() << "the checker accepted:\n" << ir::print(f);
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + opName + "'"), std::string::npos) << e.what();
  }
}

ir::Op* nth(ir::Function& f, Opcode code, int n = 0) {
  for (const auto& op : f.body.ops)
    if (op->opcode == code && n-- == 0) return op.get();
  return nullptr;
}

TEST(AssignCheck, CatchesEachBrokenRule) {
  auto other = std::make_shared<const layout::LinearLayout>(layout::defaultBlocked({16, 64}, 4, 1, {0, 1}));
  {
    auto m = assignedRows();  // an element-wise op with operands in two layouts
    ir::Function& f = *m->functions[0];
    nth(f, Opcode::Sub)->result()->type.layout = other;
    expectBroken(f, "sub");
  }
  {
    auto m = assignedRows();  // a broadcast whose operand is not its result's projection
    ir::Function& f = *m->functions[0];
    nth(f, Opcode::ExpandDims)->result()->type.layout =
        std::make_shared<const layout::LinearLayout>(layout::defaultBlocked({16, 1}, 4, 1, {0, 1}));
    expectBroken(f, "expand_dims");  // the expand_dims is checked first: its result changed
  }
  {
    auto m = assignedRows();  // a reduction whose result is not the slice of its operand
    ir::Function& f = *m->functions[0];
    ir::Op* red = nth(f, Opcode::Reduce);
    red->result()->type.layout = std::make_shared<const layout::LinearLayout>(layout::defaultBlocked({16}, 4, 1, {0}));
    expectBroken(f, "reduce");
  }
  {
    auto m = assignedRows();  // a tile without a layout
    nth(*m->functions[0], Opcode::Sub)->result()->type.layout = nullptr;
    expectBroken(*m->functions[0], "sub");
  }
  {
    auto m = assignedRows();  // a store whose value is in another layout than its pointer
    ir::Function& f = *m->functions[0];
    ir::Op* store = nth(f, Opcode::Store);
    ir::Builder b(f.body, f.body.indexOf(store));
    auto wrong = std::make_shared<const layout::LinearLayout>(layout::defaultBlocked({16}, 4, 2, {0}));
    store->operands[1] = b.create1(Opcode::ConvertLayout, {store->operand(1)}, store->operand(1)->type.withLayout(wrong));
    expectBroken(f, "store");
  }
  {
    auto m = assignedRows();  // the kernel parameter's layout for another warp count
    ir::Function& f = *m->functions[0];
    f.body.arg(0)->type.layout = std::make_shared<const layout::LinearLayout>(layout::defaultBlocked({16, 64}, 8, 1, {1, 0}));
    EXPECT_THROW(checkGpuContract(f, 4, ptx::kSm80), InternalError);
  }
  {
    // A loop whose region argument's layout differs from its result's.
    auto m = parseIr(R"(func @f(%x: tensor<64xf32>, %n: i32) {
  %lb = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %r = for %lb, %n, %one, %x : tensor<64xf32> {
  ^(%i: i32, %c: tensor<64xf32>):
    %d = exp %c : tensor<64xf32>
    yield %d
  }
  return
})");
    assignAndCheck(*m, 4);
    ir::Function& f = *m->functions[0];
    ir::Op* loop = nth(f, Opcode::For);
    auto wrong = std::make_shared<const layout::LinearLayout>(layout::defaultBlocked({64}, 4, 2, {0}));
    loop->region(0).arg(1)->type.layout = wrong;
    loop->region(0).ops[0]->result()->type.layout = wrong;
    expectBroken(f, "for");
  }
}

}  // namespace
}  // namespace kiln::lower::test
