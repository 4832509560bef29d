// licm: invariant pure ops leave `for` bodies and `while` regions in order, through every loop
// they are invariant in; memory ops, control flow and ops that may trap stay.
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "licm";

TEST(Licm, HoistsInvariantPureOpsInOrder) {
  EXPECT_PASS(kPass, R"(
func @f(%p: tensor<16xptr<f32>>, %x: f32, %lb: i32, %ub: i32, %st: i32, %init: tensor<16xf32>) {
  %r = for %lb, %ub, %st, %init : tensor<16xf32> {
  ^(%i: i32, %acc: tensor<16xf32>):
    %c = constant {value = 2.0} : f32
    %t = constant {value = 1.0} : tensor<16xf32>
    %a = mul %x, %c : f32
    %s = splat %a : tensor<16xf32>
    %ar = arange {end = 16, start = 0} : tensor<16xi32>
    %is = splat %i : tensor<16xi32>
    %off = add %ar, %is : tensor<16xi32>
    %q = ptr_add %p, %off : tensor<16xptr<f32>>
    %v = load %q : tensor<16xf32>
    %w = mul %v, %s : tensor<16xf32>
    %u = add %w, %t : tensor<16xf32>
    %n = add %acc, %u : tensor<16xf32>
    yield %n
  }
  store %p, %r
  return
})",
              R"(
func @f(%p: tensor<16xptr<f32>>, %x: f32, %lb: i32, %ub: i32, %st: i32, %init: tensor<16xf32>) {
  %c = constant {value = 2.0} : f32
  %t = constant {value = 1.0} : tensor<16xf32>
  %a = mul %x, %c : f32
  %s = splat %a : tensor<16xf32>
  %ar = arange {end = 16, start = 0} : tensor<16xi32>
  %r = for %lb, %ub, %st, %init : tensor<16xf32> {
  ^(%i: i32, %acc: tensor<16xf32>):
    %is = splat %i : tensor<16xi32>
    %off = add %ar, %is : tensor<16xi32>
    %q = ptr_add %p, %off : tensor<16xptr<f32>>
    %v = load %q : tensor<16xf32>
    %w = mul %v, %s : tensor<16xf32>
    %u = add %w, %t : tensor<16xf32>
    %n = add %acc, %u : tensor<16xf32>
    yield %n
  }
  store %p, %r
  return
})");
}

TEST(Licm, NeverMovesMemoryOpsOrControlFlow) {
  const char* in = R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1, %lb: i32, %ub: i32, %st: i32) {
  for %lb, %ub, %st {
  ^(%i: i32):
    %v = load %p : i32
    store %p, %x
    assert %c {message = "m"}
    %r = if %c : i32 {
      yield %x
    } {
      yield %x
    }
    if %c {
      %m = mul %x, %x : i32
      store %p, %m
      yield
    } {
      yield
    }
    yield
  }
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Licm, DivisionMovesOnlyByANonZeroConstant) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %x: i32, %y: i32, %u: f32, %lb: i32, %ub: i32, %st: i32) {
  for %lb, %ub, %st {
  ^(%i: i32):
    %a = div %x, %y : i32
    %b = rem %x, %y : i32
    %z = constant {value = 0} : i32
    %c = div %x, %z : i32
    %seven = constant {value = 7} : i32
    %d = div %x, %seven : i32
    %e = rem %x, %seven : i32
    %f = div %u, %u : f32
    store %p, %a
    store %p, %b
    store %p, %c
    store %p, %d
    store %p, %e
    store %q, %f
    yield
  }
  return
})",
              R"(
func @f(%p: ptr<i32>, %q: ptr<f32>, %x: i32, %y: i32, %u: f32, %lb: i32, %ub: i32, %st: i32) {
  %z = constant {value = 0} : i32
  %seven = constant {value = 7} : i32
  %d = div %x, %seven : i32
  %e = rem %x, %seven : i32
  %f = div %u, %u : f32
  for %lb, %ub, %st {
  ^(%i: i32):
    %a = div %x, %y : i32
    %b = rem %x, %y : i32
    %c = div %x, %z : i32
    store %p, %a
    store %p, %b
    store %p, %c
    store %p, %d
    store %p, %e
    store %q, %f
    yield
  }
  return
})");
}

TEST(Licm, HoistsAsFarAsLegalFromNestedLoops) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32, %lb: i32, %ub: i32, %st: i32) {
  for %lb, %ub, %st {
  ^(%i: i32):
    for %lb, %ub, %st {
    ^(%j: i32):
      %a = mul %x, %x : i32
      %b = add %a, %i : i32
      %c = add %b, %j : i32
      store %p, %c
      yield
    }
    yield
  }
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32, %lb: i32, %ub: i32, %st: i32) {
  %a = mul %x, %x : i32
  for %lb, %ub, %st {
  ^(%i: i32):
    %b = add %a, %i : i32
    for %lb, %ub, %st {
    ^(%j: i32):
      %c = add %b, %j : i32
      store %p, %c
      yield
    }
    yield
  }
  return
})");
}

TEST(Licm, HoistsFromWhileRegions) {
  EXPECT_PASS(kPass, R"(
func @f(%x: i32, %n: i32, %p: ptr<i32>) {
  %r = while %x : i32 {
  ^(%a: i32):
    %lim = mul %n, %n : i32
    %c = cmp %a, %lim {pred = "lt"} : i1
    condition %c, %a
  } {
  ^(%b: i32):
    %one = constant {value = 1} : i32
    %d = add %b, %one : i32
    yield %d
  }
  store %p, %r
  return
})",
              R"(
func @f(%x: i32, %n: i32, %p: ptr<i32>) {
  %lim = mul %n, %n : i32
  %one = constant {value = 1} : i32
  %r = while %x : i32 {
  ^(%a: i32):
    %c = cmp %a, %lim {pred = "lt"} : i1
    condition %c, %a
  } {
  ^(%b: i32):
    %d = add %b, %one : i32
    yield %d
  }
  store %p, %r
  return
})");
}

TEST(Licm, OpsOutsideLoopsStay) {
  const char* in = R"(
func @f(%p: ptr<i32>, %x: i32, %c: i1) {
  %a = mul %x, %x : i32
  %r = if %c : i32 {
    %b = add %x, %x : i32
    yield %b
  } {
    yield %a
  }
  store %p, %r
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

}  // namespace
}  // namespace kiln::passes::test
