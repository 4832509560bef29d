// cse: duplicates of pure ops merge (commutative operands in either order), keyed by opcode,
// operands, attributes and result types; scoped by regions; loads, stores and control flow never merge.
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "cse";

TEST(Cse, MergesDuplicatesTransitively) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32, %y: i32) {
  %a = add %x, %y : i32
  %b = add %x, %y : i32
  %c = mul %a, %a : i32
  %d = mul %b, %b : i32
  %e = sub %c, %d : i32
  store %p, %e
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32, %y: i32) {
  %a = add %x, %y : i32
  %c = mul %a, %a : i32
  %e = sub %c, %c : i32
  store %p, %e
  return
})");
}

TEST(Cse, CommutativeOperandsInEitherOrder) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %x: i32, %y: i32, %u: f32, %v: f32) {
  %a = add %x, %y : i32
  %b = add %y, %x : i32
  store %p, %b
  %c = sub %x, %y : i32
  %d = sub %y, %x : i32
  store %p, %c
  store %p, %d
  %e = mul %u, %v : f32
  %f = mul %v, %u : f32
  store %q, %f
  %g = min %u, %v : f32
  %h = min %v, %u : f32
  store %q, %g
  store %q, %h
  store %p, %a
  return
})",
              R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %x: i32, %y: i32, %u: f32, %v: f32) {
  %a = add %x, %y : i32
  store %p, %a
  %c = sub %x, %y : i32
  %d = sub %y, %x : i32
  store %p, %c
  store %p, %d
  %e = mul %u, %v : f32
  store %q, %e
  %g = min %u, %v : f32
  %h = min %v, %u : f32
  store %q, %g
  store %q, %h
  store %p, %a
  return
})");
}

TEST(Cse, AttributesAndResultTypesArePartOfTheKey) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i1>, %q: ptr<f32>, %r: ptr<i64>, %s: ptr<i32>, %x: i32, %y: i32) {
  %a = cmp %x, %y {pred = "lt"} : i1
  %b = cmp %x, %y {pred = "gt"} : i1
  %c = cmp %x, %y {pred = "lt"} : i1
  store %p, %a
  store %p, %b
  store %p, %c
  %z = constant {value = 0.0} : f32
  %nz = constant {value = -0.0} : f32
  %z2 = constant {value = 0.0} : f32
  store %q, %z
  store %q, %nz
  store %q, %z2
  %i = constant {value = 1} : i64
  %j = constant {value = 1} : i32
  store %r, %i
  store %s, %j
  return
})",
              R"(
func @f(%p: ptr<i1>, %q: ptr<f32>, %r: ptr<i64>, %s: ptr<i32>, %x: i32, %y: i32) {
  %a = cmp %x, %y {pred = "lt"} : i1
  %b = cmp %x, %y {pred = "gt"} : i1
  store %p, %a
  store %p, %b
  store %p, %a
  %z = constant {value = 0.0} : f32
  %nz = constant {value = -0.0} : f32
  store %q, %z
  store %q, %nz
  store %q, %z
  %i = constant {value = 1} : i64
  %j = constant {value = 1} : i32
  store %r, %i
  store %s, %j
  return
})");
}

TEST(Cse, MemoryOpsNeverMergeButProgramIdDoes) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>) {
  %a = load %p : i32
  %b = load %p : i32
  %pid = program_id {axis = 0} : i32
  %pid2 = program_id {axis = 0} : i32
  %pid3 = program_id {axis = 1} : i32
  %r = arange {end = 16, start = 0} : tensor<16xi32>
  %r2 = arange {end = 16, start = 0} : tensor<16xi32>
  store %p, %a
  store %p, %a
  store %p, %b
  store %p, %pid
  store %p, %pid2
  store %p, %pid3
  %s = reshape %r : tensor<16xi32>
  %s2 = reshape %r2 : tensor<16xi32>
  %t = add %s, %s2 : tensor<16xi32>
  %tp = splat %p : tensor<16xptr<i32>>
  store %tp, %t
  return
})",
              R"(
func @f(%p: ptr<i32>) {
  %a = load %p : i32
  %b = load %p : i32
  %pid = program_id {axis = 0} : i32
  %pid3 = program_id {axis = 1} : i32
  %r = arange {end = 16, start = 0} : tensor<16xi32>
  store %p, %a
  store %p, %a
  store %p, %b
  store %p, %pid
  store %p, %pid
  store %p, %pid3
  %s = reshape %r : tensor<16xi32>
  %t = add %s, %s : tensor<16xi32>
  %tp = splat %p : tensor<16xptr<i32>>
  store %tp, %t
  return
})");
}

TEST(Cse, OuterValuesReplaceInnerDuplicatesNeverTheReverse) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1) {
  %a = mul %x, %x : i32
  %r = if %c : i32 {
    %b = mul %x, %x : i32
    %d = add %b, %x : i32
    yield %d
  } {
    %e = add %x, %x : i32
    yield %e
  }
  %g = add %a, %x : i32
  %h = add %x, %x : i32
  store %p, %r
  store %p, %g
  store %p, %h
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1) {
  %a = mul %x, %x : i32
  %r = if %c : i32 {
    %d = add %a, %x : i32
    yield %d
  } {
    %e = add %x, %x : i32
    yield %e
  }
  %g = add %a, %x : i32
  %h = add %x, %x : i32
  store %p, %r
  store %p, %g
  store %p, %h
  return
})");
}

TEST(Cse, SiblingRegionsStayApart) {
  const char* in = R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1, %n: i32) {
  %r = if %c : i32 {
    %a = mul %x, %x : i32
    yield %a
  } {
    %b = mul %x, %x : i32
    yield %b
  }
  %s = for %x, %n, %x, %r : i32 {
  ^(%i: i32, %acc: i32):
    %d = mul %x, %x : i32
    %e = add %acc, %d : i32
    yield %e
  }
  %t = for %x, %n, %x, %s : i32 {
  ^(%j: i32, %acc2: i32):
    %f = mul %x, %x : i32
    %g = add %acc2, %f : i32
    yield %g
  }
  store %p, %t
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Cse, SideEffectsNeverMerge) {
  const char* in = R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1) {
  %a = load %p {volatile = 1} : i32
  %b = load %p {volatile = 1} : i32
  store %p, %a
  store %p, %a
  store %p, %b
  assert %c {message = "m"}
  assert %c {message = "m"}
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Cse, ControlFlowNeverMerges) {
  const char* in = R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1) {
  %r = if %c : i32 {
    yield %x
  } {
    yield %x
  }
  %s = if %c : i32 {
    yield %x
  } {
    yield %x
  }
  store %p, %r
  store %p, %s
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Cse, AttributeOrderDoesNotMatter) {
  // Builder-made ops may list attributes in any order.
  ir::Module m;
  ir::Function& f = m.addFunction("f");
  ir::Value* p = f.body.addArg(ir::Type::tensor({8}, ir::Scalar::Ptr).withElem(ir::Type::ptr(ir::Scalar::I32)));
  ir::Builder b(f.body);
  ir::Type t = ir::Type::tensor({8}, ir::Scalar::I32);
  ir::Value* r1 = b.create1(ir::Opcode::Arange, {}, t, {{"start", int64_t(0)}, {"end", int64_t(8)}});
  ir::Value* r2 = b.create1(ir::Opcode::Arange, {}, t, {{"end", int64_t(8)}, {"start", int64_t(0)}});
  ir::Value* r3 = b.create1(ir::Opcode::Arange, {}, t, {{"end", int64_t(9)}, {"start", int64_t(1)}});
  b.create(ir::Opcode::Store, {p, r1}, {});
  b.create(ir::Opcode::Store, {p, r2}, {});
  b.create(ir::Opcode::Store, {p, r3}, {});
  b.create(ir::Opcode::Return, {}, {});
  cse(f);
  ASSERT_EQ(f.body.ops.size(), 6u);
  EXPECT_EQ(f.body.ops[2]->operand(1), r1);
  EXPECT_EQ(f.body.ops[3]->operand(1), r1);
  EXPECT_EQ(f.body.ops[4]->operand(1), r3);
}

}  // namespace
}  // namespace kiln::passes::test
