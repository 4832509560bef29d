// dce: unused pure ops and non-volatile loads go, transitively; dead loop-carried values and if
// results go; stores, asserts, volatile loads, while loops and what they need stay.
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "dce";

TEST(Dce, RemovesUnusedPureOpsTransitively) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32) {
  %a = add %x, %x : i32
  %b = mul %a, %a : i32
  %c = sub %b, %x : i32
  %k = constant {value = 3} : i32
  %d = add %x, %k : i32
  store %p, %d
  %e = neg %d : i32
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32) {
  %k = constant {value = 3} : i32
  %d = add %x, %k : i32
  store %p, %d
  return
})");
}

TEST(Dce, SideEffectsStayWithWhatTheyUse) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %c: i1) {
  %a = load %p : i32
  %b = load %p {volatile = 1} : i32
  %m = cmp %a, %a {pred = "eq"} : i1
  %v = load %p, %c : i32
  assert %c {message = "check"}
  %w = add %v, %v : i32
  store %p, %w
  return
})",
              R"(
func @f(%p: ptr<i32>, %c: i1) {
  %b = load %p {volatile = 1} : i32
  %v = load %p, %c : i32
  assert %c {message = "check"}
  %w = add %v, %v : i32
  store %p, %w
  return
})");
}

TEST(Dce, DropsALoopCarriedValueThatOnlyFeedsItself) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %x: i32) {
  %r, %s = for %lb, %ub, %st, %x, %x : i32, i32 {
  ^(%i: i32, %acc: i32, %dead: i32):
    %n = add %acc, %i : i32
    %d = mul %dead, %i : i32
    %d2 = add %d, %n : i32
    yield %n, %d2
  }
  store %p, %r
  return
})",
              R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %x: i32) {
  %r = for %lb, %ub, %st, %x : i32 {
  ^(%i: i32, %acc: i32):
    %n = add %acc, %i : i32
    yield %n
  }
  store %p, %r
  return
})");
}

TEST(Dce, KeepsALoopCarriedValueAStoreNeeds) {
  // The result of %s is unused, but its iteration value reaches a store inside the loop.
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %x: i32) {
  %r, %s = for %lb, %ub, %st, %x, %x : i32, i32 {
  ^(%i: i32, %a: i32, %b: i32):
    store %p, %b
    %n = add %a, %i : i32
    %m = add %b, %i : i32
    yield %n, %m
  }
  return
})",
              R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %x: i32) {
  %s = for %lb, %ub, %st, %x : i32 {
  ^(%i: i32, %b: i32):
    store %p, %b
    %m = add %b, %i : i32
    yield %m
  }
  return
})");
}

TEST(Dce, RemovesLoopsAndIfsWithoutEffectsOrUsedResults) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %x: i32, %c: i1) {
  %r = for %lb, %ub, %st, %x : i32 {
  ^(%i: i32, %acc: i32):
    %v = load %p : i32
    %n = add %acc, %v : i32
    yield %n
  }
  if %c {
    yield
  } {
    yield
  }
  %s = if %c : i32 {
    %a = add %x, %x : i32
    yield %a
  } {
    yield %x
  }
  for %lb, %ub, %st {
  ^(%j: i32):
    %t = mul %j, %j : i32
    yield
  }
  return
})",
              R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %x: i32, %c: i1) {
  return
})");
}

TEST(Dce, KeptControlFlowLosesOnlyItsDeadResults) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32, %y: i32, %c: i1) {
  %a, %b = if %c : i32, i32 {
    store %p, %x
    %m = mul %x, %y : i32
    yield %m, %x
  } {
    %n = add %x, %y : i32
    yield %y, %n
  }
  store %p, %a
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32, %y: i32, %c: i1) {
  %a = if %c : i32 {
    store %p, %x
    %m = mul %x, %y : i32
    yield %m
  } {
    yield %y
  }
  store %p, %a
  return
})");
}

TEST(Dce, NestedEffectsKeepEveryEnclosingOp) {
  const char* in = R"(
func @f(%p: ptr<i32>, %lb: i32, %ub: i32, %st: i32, %c: i1) {
  for %lb, %ub, %st {
  ^(%i: i32):
    %k = cmp %i, %ub {pred = "lt"} : i1
    if %k {
      store %p, %i
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

TEST(Dce, WhileLoopsStay) {
  const char* in = R"(
func @f(%x: i32, %n: i32) {
  %r = while %x : i32 {
  ^(%a: i32):
    %c = cmp %a, %n {pred = "lt"} : i1
    condition %c, %a
  } {
  ^(%b: i32):
    %one = constant {value = 1} : i32
    %d = add %b, %one : i32
    yield %d
  }
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Dce, RemovesDeadOpsInsideAWhileLoop) {
  EXPECT_PASS(kPass, R"(
func @f(%x: i32, %n: i32) {
  %r = while %x : i32 {
  ^(%a: i32):
    %c = cmp %a, %n {pred = "lt"} : i1
    %u = mul %a, %a : i32
    condition %c, %a
  } {
  ^(%b: i32):
    %one = constant {value = 1} : i32
    %d = add %b, %one : i32
    %v = sub %d, %b : i32
    yield %d
  }
  return
})",
              R"(
func @f(%x: i32, %n: i32) {
  %r = while %x : i32 {
  ^(%a: i32):
    %c = cmp %a, %n {pred = "lt"} : i1
    condition %c, %a
  } {
  ^(%b: i32):
    %one = constant {value = 1} : i32
    %d = add %b, %one : i32
    yield %d
  }
  return
})");
}

}  // namespace
}  // namespace kiln::passes::test
