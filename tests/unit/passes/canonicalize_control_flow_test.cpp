// canonicalize, control flow: `if` on a constant inlines the taken region, `for` with constant
// bounds and zero or one trip disappears, and folding repeats until nothing changes.
#include "pass_test.h"

namespace kiln::passes::test {
namespace {

const char* kPass = "canonicalize";

TEST(Canonicalize, IfOnAConstantInlinesTheTakenRegion) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32) {
  %t = constant {value = 1} : i1
  %r = if %t : i32 {
    %a = mul %x, %x : i32
    store %p, %a
    yield %a
  } {
    yield %x
  }
  store %p, %r
  %f = constant {value = 0} : i1
  %s = if %f : i32 {
    yield %x
  } {
    %b = sub %x, %r : i32
    yield %b
  }
  store %p, %s
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32) {
  %a = mul %x, %x : i32
  store %p, %a
  store %p, %a
  %b = sub %x, %a : i32
  store %p, %b
  return
})");
}

TEST(Canonicalize, ForWithoutTripsYieldsItsInits) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32) {
  %lb = constant {value = 10} : i32
  %ub = constant {value = 4} : i32
  %st = constant {value = 1} : i32
  %r = for %lb, %ub, %st, %x : i32 {
  ^(%i: i32, %acc: i32):
    store %p, %i
    %n = add %acc, %i : i32
    yield %n
  }
  store %p, %r
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32) {
  store %p, %x
  return
})");
}

TEST(Canonicalize, ForWithOneTripRunsItsBodyInPlace) {
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32) {
  %lb = constant {value = 3} : i32
  %ub = constant {value = 7} : i32
  %st = constant {value = 8} : i32
  %r = for %lb, %ub, %st, %x : i32 {
  ^(%i: i32, %acc: i32):
    %n = add %acc, %i : i32
    yield %n
  }
  store %p, %r
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32) {
  %lb = constant {value = 3} : i32
  %n = add %x, %lb : i32
  store %p, %n
  return
})");
}

TEST(Canonicalize, LoopsWithUnknownOrManyTripsStay) {
  const char* in = R"(
func @f(%p: ptr<i32>, %x: i32, %n: i32) {
  %lb = constant {value = 0} : i32
  %ub = constant {value = 2} : i32
  %st = constant {value = 1} : i32
  %r = for %lb, %ub, %st, %x : i32 {
  ^(%i: i32, %acc: i32):
    %m = add %acc, %i : i32
    yield %m
  }
  store %p, %r
  %s = for %lb, %n, %st, %x : i32 {
  ^(%j: i32, %acc2: i32):
    yield %acc2
  }
  store %p, %s
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Canonicalize, UnsignedLoopBoundsCompareUnsigned) {
  // 0xFFFFFFFF as u32 is above 0: this loop has many trips and must stay.
  const char* in = R"(
func @f(%p: ptr<u32>, %x: u32) {
  %lb = constant {value = 0} : u32
  %ub = constant {value = 4294967295} : u32
  %st = constant {value = 1} : u32
  %r = for %lb, %ub, %st, %x : u32 {
  ^(%i: u32, %acc: u32):
    %m = add %acc, %i : u32
    yield %m
  }
  store %p, %r
  return
})";
  EXPECT_UNCHANGED(kPass, in);
}

TEST(Canonicalize, IteratesToAFixedPoint) {
  // The if condition only becomes constant after folding, and the inlined region folds further.
  EXPECT_PASS(kPass, R"(
func @f(%p: ptr<i32>, %x: i32) {
  %a = constant {value = 2} : i32
  %b = constant {value = 3} : i32
  %c = mul %a, %b : i32
  %d = cmp %c, %b {pred = "gt"} : i1
  %r = if %d : i32 {
    %e = sub %c, %a : i32
    %g = mul %x, %e : i32
    yield %g
  } {
    yield %x
  }
  store %p, %r
  return
})",
              R"(
func @f(%p: ptr<i32>, %x: i32) {
  %e = constant {value = 4} : i32
  %g = mul %x, %e : i32
  store %p, %g
  return
})");
}

}  // namespace
}  // namespace kiln::passes::test
