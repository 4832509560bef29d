// contract: a float mul used once by an add/sub of its block becomes one fma (sub through an exact
// neg); integer ops, muls with other uses, muls of another block and non-float types stay. A sum of
// such a mul is marked contract = 1 (the GPU fuses the products into its adds).
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "contract";

TEST(Contract, AddEitherOrderBecomesFma) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<f32>, %a: f32, %b: f32, %c: f32) {
  %m = mul %a, %b : f32
  %s = add %m, %c : f32
  store %p, %s
  %n = mul %b, %c : f32
  %t = add %a, %n : f32
  store %p, %t
  return
})",
              R"(
func @f(%p: ptr<f32>, %a: f32, %b: f32, %c: f32) {
  %s = fma %a, %b, %c : f32
  store %p, %s
  %t = fma %b, %c, %a : f32
  store %p, %t
  return
})");
}

TEST(Contract, SubNegatesTheAddendOrTheFactor) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<f64>, %a: f64, %b: f64, %c: f64) {
  %m = mul %a, %b : f64
  %s = sub %m, %c : f64
  store %p, %s
  %n = mul %a, %b : f64
  %t = sub %c, %n : f64
  store %p, %t
  return
})",
              R"(
func @f(%p: ptr<f64>, %a: f64, %b: f64, %c: f64) {
  %nc = neg %c : f64
  %s = fma %a, %b, %nc : f64
  store %p, %s
  %na = neg %a : f64
  %t = fma %na, %b, %c : f64
  store %p, %t
  return
})");
}

TEST(Contract, TilesAndHalvesInsideLoops) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<16xptr<f16>>, %x: tensor<16xf16>, %lb: i32, %ub: i32, %st: i32) {
  %r = for %lb, %ub, %st, %x : tensor<16xf16> {
  ^(%i: i32, %acc: tensor<16xf16>):
    %v = load %p : tensor<16xf16>
    %m = mul %v, %v : tensor<16xf16>
    %n = add %acc, %m : tensor<16xf16>
    yield %n
  }
  store %p, %r
  return
})",
              R"(
func @f(%p: tensor<16xptr<f16>>, %x: tensor<16xf16>, %lb: i32, %ub: i32, %st: i32) {
  %r = for %lb, %ub, %st, %x : tensor<16xf16> {
  ^(%i: i32, %acc: tensor<16xf16>):
    %v = load %p : tensor<16xf16>
    %n = fma %v, %v, %acc : tensor<16xf16>
    yield %n
  }
  store %p, %r
  return
})");
}

TEST(Contract, LeavesWhatWouldChangeOrDuplicateWork) {
  const char* same = R"(
func @f(%p: ptr<f32>, %q: ptr<i32>, %a: f32, %b: f32, %i: i32, %lb: i32, %ub: i32, %st: i32) {
  %m = mul %a, %b : f32
  %s = add %m, %a : f32
  store %p, %s
  store %p, %m
  %j = mul %i, %i : i32
  %k = add %j, %i : i32
  store %q, %k
  %o = mul %a, %a : f32
  for %lb, %ub, %st {
  ^(%x: i32):
    %u = add %o, %b : f32
    store %p, %u
    yield
  }
  return
})";
  EXPECT_PASS(kPass, same, same);
}

TEST(Contract, SumsOfSingleUseProductsAreMarked) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<f32>, %x: tensor<64xf32>, %y: tensor<64xf32>) {
  %m = mul %x, %y : tensor<64xf32>
  %s = reduce %m {axis = 0, kind = "sum"} : f32
  store %p, %s
  %n = mul %x, %x : tensor<64xf32>
  %t = reduce %n {axis = 0, kind = "max"} : f32
  store %p, %t
  %o = mul %y, %y : tensor<64xf32>
  %u = reduce %o {axis = 0, kind = "sum"} : f32
  %v = reduce %o {axis = 0, kind = "max"} : f32
  store %p, %u
  store %p, %v
  %w = reduce %x {axis = 0, kind = "sum"} : f32
  store %p, %w
  return
})",
              R"(
func @f(%p: ptr<f32>, %x: tensor<64xf32>, %y: tensor<64xf32>) {
  %m = mul %x, %y : tensor<64xf32>
  %s = reduce %m {axis = 0, contract = 1, kind = "sum"} : f32
  store %p, %s
  %n = mul %x, %x : tensor<64xf32>
  %t = reduce %n {axis = 0, kind = "max"} : f32
  store %p, %t
  %o = mul %y, %y : tensor<64xf32>
  %u = reduce %o {axis = 0, kind = "sum"} : f32
  %v = reduce %o {axis = 0, kind = "max"} : f32
  store %p, %u
  store %p, %v
  %w = reduce %x {axis = 0, kind = "sum"} : f32
  store %p, %w
  return
})");
}

}  // namespace
}  // namespace kiln::passes::test
