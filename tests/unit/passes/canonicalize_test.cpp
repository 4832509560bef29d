// canonicalize: algebraic identities (exact for floats), operand order, shorter shape chains,
// and that ops with side effects are left alone.
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "canonicalize";

TEST(Canonicalize, IntegerIdentities) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32, %y: i32) {
  %z = constant {value = 0} : i32
  %one = constant {value = 1} : i32
  %m1 = constant {value = -1} : i32
  %a = add %x, %z : i32
  %b = add %z, %a : i32
  %c = sub %b, %z : i32
  %d = mul %c, %one : i32
  %e = mul %one, %d : i32
  %f = div %e, %one : i32
  %g = and %f, %m1 : i32
  %h = or %g, %z : i32
  %i = xor %h, %z : i32
  %j = shl %i, %z : i32
  %k = shr %j, %z : i32
  store %p, %k
  %l = mul %y, %z : i32
  store %p, %l
  %n = and %y, %z : i32
  store %p, %n
  %o = or %y, %m1 : i32
  store %p, %o
  %q = xor %y, %y : i32
  store %p, %q
  %r = sub %y, %y : i32
  store %p, %r
  %s = rem %y, %one : i32
  store %p, %s
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32, %y: i32) {
  %z = constant {value = 0} : i32
  %m1 = constant {value = -1} : i32
  store %p, %x
  store %p, %z
  store %p, %z
  store %p, %m1
  %q = constant {value = 0} : i32
  store %p, %q
  %r = constant {value = 0} : i32
  store %p, %r
  %s = constant {value = 0} : i32
  store %p, %s
  return
})");
}

TEST(Canonicalize, AllOnesDependsOnTheWidth) {
  // 255 is every bit of a u8, so `and` with it is the identity; for i32 it is not.
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<u8>, %q: ptr<i32>, %x: u8, %y: i32) {
  %a = constant {value = 255} : u8
  %b = and %x, %a : u8
  store %p, %b
  %c = constant {value = 255} : i32
  %d = and %y, %c : i32
  store %q, %d
  return
})",
              R"(
func @f(%p: ptr<u8>, %q: ptr<i32>, %x: u8, %y: i32) {
  store %p, %x
  %c = constant {value = 255} : i32
  %d = and %y, %c : i32
  store %q, %d
  return
})");
}

TEST(Canonicalize, FloatIdentitiesKeepSignedZerosNaNAndInf) {
  // x + 0.0 is not x for x = -0.0, x * 0.0 is not 0 for inf/NaN/negative x, x - x is NaN for inf.
  const char* kept = R"(
func @f(%p: ptr<f32>, %x: f32) {
  %z = constant {value = 0.0} : f32
  %nz = constant {value = -0.0} : f32
  %a = add %x, %z : f32
  store %p, %a
  %b = mul %x, %z : f32
  store %p, %b
  %c = sub %x, %x : f32
  store %p, %c
  %d = sub %x, %nz : f32
  store %p, %d
  %e = div %x, %x : f32
  store %p, %e
  return
})";
  EXPECT_UNCHANGED(kPass, kept);
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<f32>, %x: f32) {
  %z = constant {value = 0.0} : f32
  %nz = constant {value = -0.0} : f32
  %one = constant {value = 1.0} : f32
  %a = add %x, %nz : f32
  %b = add %nz, %a : f32
  %c = sub %b, %z : f32
  %d = mul %c, %one : f32
  %e = mul %one, %d : f32
  store %p, %e
  return
})",
              R"(
func @f(%p: ptr<f32>, %x: f32) {
  store %p, %x
  return
})");
}

TEST(Canonicalize, InvolutionsAndSelect) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %r: ptr<i1>, %x: i32, %y: f32, %c: i1) {
  %a = not %x : i32
  %b = not %a : i32
  store %p, %b
  %n = neg %y : f32
  %m = neg %n : f32
  store %q, %m
  %t = constant {value = 1} : i1
  %f = constant {value = 0} : i1
  %z = constant {value = 5} : i32
  %s1 = select %t, %x, %z : i32
  store %p, %s1
  %s2 = select %f, %x, %z : i32
  store %p, %s2
  %s3 = select %c, %x, %x : i32
  store %p, %s3
  %s4 = select %c, %t, %f : i1
  store %r, %s4
  return
})",
              R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %r: ptr<i1>, %x: i32, %y: f32, %c: i1) {
  store %p, %x
  store %q, %y
  %z = constant {value = 5} : i32
  store %p, %x
  store %p, %z
  store %p, %x
  store %r, %c
  return
})");
}

TEST(Canonicalize, IdentityConversionsAndShapes) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<4x8xptr<f32>>, %x: tensor<4x8xf32>, %v: tensor<8xf32>) {
  %a = cast %x : tensor<4x8xf32>
  %b = bitcast %a : tensor<4x8xf32>
  %c = broadcast %b : tensor<4x8xf32>
  %d = reshape %c : tensor<4x8xf32>
  %e = permute %d {order = [0, 1]} : tensor<4x8xf32>
  %t1 = permute %e {order = [1, 0]} : tensor<8x4xf32>
  %t2 = permute %t1 {order = [1, 0]} : tensor<4x8xf32>
  store %p, %t2
  %i = bitcast %x : tensor<4x8xi32>
  %j = bitcast %i : tensor<4x8xf32>
  store %p, %j
  %u = expand_dims %v {axis = 0} : tensor<1x8xf32>
  %w = reshape %u : tensor<8xf32>
  %k = expand_dims %w {axis = 0} : tensor<1x8xf32>
  %l = broadcast %k : tensor<4x8xf32>
  store %p, %l
  return
})",
              R"(
func @f(%p: tensor<4x8xptr<f32>>, %x: tensor<4x8xf32>, %v: tensor<8xf32>) {
  store %p, %x
  store %p, %x
  %k = expand_dims %v {axis = 0} : tensor<1x8xf32>
  %l = broadcast %k : tensor<4x8xf32>
  store %p, %l
  return
})");
}

TEST(Canonicalize, ShapeChainsCollapse) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<2x4x8xptr<f32>>, %q: tensor<64xptr<f32>>, %x: tensor<8x4x2xf32>, %s: f32) {
  %a = permute %x {order = [1, 0, 2]} : tensor<4x8x2xf32>
  %b = permute %a {order = [2, 0, 1]} : tensor<2x4x8xf32>
  store %p, %b
  %r1 = reshape %x : tensor<32x2xf32>
  %r2 = reshape %r1 : tensor<64xf32>
  store %q, %r2
  %sp = splat %s : tensor<2x1x8xf32>
  %bc = broadcast %sp : tensor<2x4x8xf32>
  store %p, %bc
  return
})",
              R"(
func @f(%p: tensor<2x4x8xptr<f32>>, %q: tensor<64xptr<f32>>, %x: tensor<8x4x2xf32>, %s: f32) {
  %b = permute %x {order = [2, 1, 0]} : tensor<2x4x8xf32>
  store %p, %b
  %r2 = reshape %x : tensor<64xf32>
  store %q, %r2
  %bc = splat %s : tensor<2x4x8xf32>
  store %p, %bc
  return
})");
}

TEST(Canonicalize, PtrAddOfZero) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<16xptr<f32>>, %v: tensor<16xf32>) {
  %z = constant {value = 0} : tensor<16xi32>
  %q = ptr_add %p, %z : tensor<16xptr<f32>>
  store %q, %v
  return
})",
              R"(
func @f(%p: tensor<16xptr<f32>>, %v: tensor<16xf32>) {
  store %p, %v
  return
})");
}

TEST(Canonicalize, ConstantsGoRight) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %q: ptr<i1>, %r: ptr<f32>, %x: i32, %y: f32) {
  %c = constant {value = 3} : i32
  %a = add %c, %x : i32
  %m = mul %c, %a : i32
  %n = max %c, %m : i32
  store %p, %n
  %s = sub %c, %x : i32
  store %p, %s
  %lt = cmp %c, %x {pred = "lt"} : i1
  store %q, %lt
  %ge = cmp %c, %x {pred = "ge"} : i1
  store %q, %ge
  %fc = constant {value = 2.0} : f32
  %fm = min %fc, %y : f32
  store %r, %fm
  %fz = constant {value = 0.0} : f32
  %fn = min %fz, %y : f32
  store %r, %fn
  return
})",
              R"(
func @f(%p: ptr<i32>, %q: ptr<i1>, %r: ptr<f32>, %x: i32, %y: f32) {
  %c = constant {value = 3} : i32
  %a = add %x, %c : i32
  %m = mul %a, %c : i32
  %n = max %m, %c : i32
  store %p, %n
  %s = sub %c, %x : i32
  store %p, %s
  %lt = cmp %x, %c {pred = "gt"} : i1
  store %q, %lt
  %ge = cmp %x, %c {pred = "le"} : i1
  store %q, %ge
  %fc = constant {value = 2.0} : f32
  %fm = min %y, %fc : f32
  store %r, %fm
  %fz = constant {value = 0.0} : f32
  %fn = min %fz, %y : f32
  store %r, %fn
  return
})");
}

TEST(Canonicalize, CompareOfAValueWithItself) {
  EXPECT_PASS(kPass, R"(
func @f(%q: ptr<i1>, %x: i32, %y: f32) {
  %a = cmp %x, %x {pred = "le"} : i1
  store %q, %a
  %b = cmp %x, %x {pred = "ne"} : i1
  store %q, %b
  %c = cmp %y, %y {pred = "eq"} : i1
  store %q, %c
  return
})",
              R"(
func @f(%q: ptr<i1>, %x: i32, %y: f32) {
  %a = constant {value = 1} : i1
  store %q, %a
  %b = constant {value = 0} : i1
  store %q, %b
  %c = cmp %y, %y {pred = "eq"} : i1
  store %q, %c
  return
})");
}

TEST(Canonicalize, LeavesSideEffectsAlone) {
  const char* in = R"(
func @f(%p: ptr<i32>) {
  %a = constant {value = 1} : i32
  %t = constant {value = 1} : i1
  %v = load %p : i32
  %w = load %p {volatile = 1} : i32
  store %p, %a
  assert %t {message = "always"}
  return
})";
  EXPECT_PASS(kPass, in, R"(
func @f(%p: ptr<i32>) {
  %a = constant {value = 1} : i32
  %t = constant {value = 1} : i1
  %v = load %p : i32
  %w = load %p {volatile = 1} : i32
  store %p, %a
  assert %t {message = "always"}
  return
})");
}

}  // namespace
}  // namespace kiln::passes::test
