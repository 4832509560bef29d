// canonicalize, constant folding: every dtype's exact semantics (wrapping, rounding, saturation),
// never a division by zero, and the folded constant keeps the location of the op it replaces.
#include "passes/effects.h"
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "canonicalize";

TEST(Canonicalize, FoldsIntegerArithmeticWithWrapping) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i8>, %q: ptr<u8>, %r: ptr<i32>) {
  %a = constant {value = 100} : i8
  %b = add %a, %a : i8
  store %p, %b
  %c = constant {value = 200} : u8
  %d = constant {value = 100} : u8
  %e = add %c, %d : u8
  store %q, %e
  %f = constant {value = 7} : i32
  %g = constant {value = -2} : i32
  %h = div %f, %g : i32
  %i = rem %f, %g : i32
  %j = mul %h, %i : i32
  store %r, %j
  return
})",
              R"(
func @f(%p: ptr<i8>, %q: ptr<u8>, %r: ptr<i32>) {
  %b = constant {value = -56} : i8
  store %p, %b
  %e = constant {value = 44} : u8
  store %q, %e
  %j = constant {value = -3} : i32
  store %r, %j
  return
})");
}

TEST(Canonicalize, FoldsUnsignedCompareAndShift) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i1>, %q: ptr<u32>, %r: ptr<i32>) {
  %m = constant {value = 4294967295} : u32
  %one = constant {value = 1} : u32
  %lt = cmp %m, %one {pred = "lt"} : i1
  store %p, %lt
  %s = shr %m, %one : u32
  store %q, %s
  %n = constant {value = -8} : i32
  %t = constant {value = 1} : i32
  %u = shr %n, %t : i32
  store %r, %u
  return
})",
              R"(
func @f(%p: ptr<i1>, %q: ptr<u32>, %r: ptr<i32>) {
  %lt = constant {value = 0} : i1
  store %p, %lt
  %s = constant {value = 2147483647} : u32
  store %q, %s
  %u = constant {value = -4} : i32
  store %r, %u
  return
})");
}

TEST(Canonicalize, NeverFoldsIntegerDivisionByZero) {
  const char* in = R"(
func @f(%p: ptr<i32>) {
  %a = constant {value = 7} : i32
  %z = constant {value = 0} : i32
  %d = div %a, %z : i32
  store %p, %d
  %r = rem %a, %z : i32
  store %p, %r
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Canonicalize, FoldsFloatsWithTheirOwnRounding) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<f32>, %q: ptr<f16>, %r: ptr<f32>) {
  %a = constant {value = 1.5} : f32
  %b = constant {value = 2.0} : f32
  %c = mul %a, %b : f32
  store %p, %c
  %x = constant {value = 0.1} : f32
  %h = cast %x : f16
  store %q, %h
  %z = constant {value = 0.0} : f32
  %nz = neg %z : f32
  store %r, %nz
  %inf = constant {value = inf} : f32
  %nan = mul %inf, %z : f32
  store %r, %nan
  return
})",
              R"(
func @f(%p: ptr<f32>, %q: ptr<f16>, %r: ptr<f32>) {
  %c = constant {value = 3.0} : f32
  store %p, %c
  %h = constant {value = 0.0999755859375} : f16
  store %q, %h
  %nz = constant {value = -0.0} : f32
  store %r, %nz
  %nan = constant {value = nan} : f32
  store %r, %nan
  return
})");
}

TEST(Canonicalize, FoldsCastsAndBitcasts) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %r: ptr<u8>) {
  %a = constant {value = -2.75} : f32
  %b = cast %a : i32
  store %p, %b
  %one = constant {value = 1.0} : f32
  %bits = bitcast %one : i32
  store %p, %bits
  %i = constant {value = 16777217} : i32
  %f = cast %i : f32
  store %q, %f
  %g = cast %i {rounding = "rtz"} : f32
  store %q, %g
  %w = constant {value = 300} : i32
  %n = cast %w : u8
  store %r, %n
  return
})",
              R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %r: ptr<u8>) {
  %b = constant {value = -2} : i32
  store %p, %b
  %bits = constant {value = 1065353216} : i32
  store %p, %bits
  %f = constant {value = 16777216.0} : f32
  store %q, %f
  %g = constant {value = 16777216.0} : f32
  store %q, %g
  %n = constant {value = 44} : u8
  store %r, %n
  return
})");
}

TEST(Canonicalize, FoldsSplatsAndShapeOpsOfConstants) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<4x8xptr<f32>>) {
  %a = constant {value = 2.0} : f32
  %s = splat %a : tensor<8xf32>
  %e = expand_dims %s {axis = 0} : tensor<1x8xf32>
  %b = broadcast %e : tensor<4x8xf32>
  %t = permute %b {order = [1, 0]} : tensor<8x4xf32>
  %r = reshape %t : tensor<4x8xf32>
  %c = constant {value = 3.0} : tensor<4x8xf32>
  %m = mul %r, %c : tensor<4x8xf32>
  store %p, %m
  return
})",
              R"(
func @f(%p: tensor<4x8xptr<f32>>) {
  %m = constant {value = 6.0} : tensor<4x8xf32>
  store %p, %m
  return
})");
}

TEST(Canonicalize, SingleElementArangeIsAConstant) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<1xptr<i32>>) {
  %a = arange {end = 6, start = 5} : tensor<1xi32>
  store %p, %a
  return
})",
              R"(
func @f(%p: tensor<1xptr<i32>>) {
  %a = constant {value = 5} : tensor<1xi32>
  store %p, %a
  return
})");
}

TEST(Canonicalize, FoldedConstantTakesTheLocationOfTheOpItReplaces) {
  std::unique_ptr<ir::Module> m = parse(R"(func @f(%p: ptr<i32>) {
  %a = constant {value = 2} : i32
  %b = constant {value = 3} : i32
  %c = add %a, %b : i32
  store %p, %c
  return
})");
  ir::Function& f = *m->functions.at(0);
  canonicalize(f);
  ASSERT_EQ(f.body.ops.size(), 3u);
  const ir::Op& folded = *f.body.ops[0];
  EXPECT_EQ(folded.opcode, ir::Opcode::Constant);
  EXPECT_EQ(folded.intAttr("value"), 5);
  EXPECT_EQ(folded.loc.line, 4);
  EXPECT_EQ(f.body.ops[1]->operand(1), folded.result());
}

TEST(Canonicalize, FoldsConstantsBuiltWithTheBuilder) {
  // Builder-made IR (as sema makes it): an i1 constant of -1 is true, tensor constants are splats.
  ir::Module m;
  ir::Function& f = m.addFunction("f");
  ir::Value* p = f.body.addArg(ir::Type::tensor({4}, ir::Scalar::Ptr).withElem(ir::Type::ptr(ir::Scalar::I1)));
  ir::Builder b(f.body);
  ir::Type t = ir::Type::tensor({4}, ir::Scalar::I1);
  ir::Value* c = b.intConst(-1, t);
  ir::Value* n = b.create1(ir::Opcode::Not, {c}, t);
  b.create(ir::Opcode::Store, {p, n}, {});
  b.create(ir::Opcode::Return, {}, {});
  expectValid(f, "input");
  canonicalize(f);
  expectValid(f, "output");
  ASSERT_EQ(f.body.ops.size(), 3u);
  std::optional<ir::Elem> e = constantElem(f.body.ops[0]->result());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->i, 0);
  EXPECT_EQ(f.body.ops[0]->result()->type, t);
}

}  // namespace
}  // namespace kiln::passes::test
