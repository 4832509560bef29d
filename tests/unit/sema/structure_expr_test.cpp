// Structure tests of sema: expressions (literals, short-circuit and/or, comparison chains, calls of
// non-callables, subscripts).
#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;

TEST(StructureExpr, TupleGrowthIsBounded) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    t = (n,)
    for i in tl.static_range(40):
        t = (t, t)
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "tuple too large")) << d.message;
}

// Issue 17, item 8: `t = t + t` in a static_range(64) grew to 7 GB before "out of memory"; concatenation
// and repetition are bounded like tuple literals, text included.
TEST(StructureExpr, ConcatenationAndRepetitionGrowthIsBounded) {
  struct Case {
    const char *init, *iterations, *step, *after, *error;
  };
  const Case cases[] = {
      {"(n, 1)", "64", "t = t + t", "", "tuple too large (more than 65536 values, nested ones included)"},
      {"\"ab\"", "64", "t = t + t", "", "string too large (more than 1048576 bytes of text)"},
      {"(\"abcdefgh\" * 1024,)", "64", "t = t + t", "", "tuple too large (more than 1048576 bytes of text)"},
      {"(n,)", "12", "t = (t, t)", "u = (t,) * 1000", "repetition result is too large"}};
  for (const Case& c : cases) {
    const std::string src = std::string("@triton.jit\ndef k(n):\n    t = ") + c.init +
                            "\n    for i in tl.static_range(" + c.iterations + "):\n        " + c.step + "\n    " +
                            c.after + "\n";
    Diagnostic d = lowerError(src, "k", "i32");
    EXPECT_TRUE(contains(d.message, c.error)) << src << d.message;
  }
}

TEST(StructureExpr, IntegerLiteralTooLarge) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    y = 18446744073709551615 + 1
)", "k", "i32");
  // [2^63, 2^64) is a uint64 where it meets a tensor; constexpr arithmetic on it is refused
  EXPECT_TRUE(contains(d.message, "the integer 18446744073709551615 is at or above 2^63")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    y = 18446744073709551616
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "integer literal is too large")) << d.message;
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    for i in tl.static_range(9223372036854775807 // 4611686018427387904):
        n = n + 1
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 1);
}

TEST(StructureExpr, SliceWithBounds) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    x = tl.arange(0, 16)
    y = x[1:4]
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "unsupported tensor index (the slice slice(1, 4, None))")) << d.message;
}

TEST(StructureExpr, NotCallable) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    y = n(3)
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "i32 is not callable")) << d.message;
}

TEST(StructureExpr, BoolOpShortCircuitsOnConstexprs) {
  auto m = lowerSource(R"(
@triton.jit
def k(n, FLAG: tl.constexpr):
    a = FLAG or undefined_name
    b = (not FLAG) and undefined_name
    if a and not b:
        y = n + 1
)", "k", "i32, True");
  EXPECT_EQ(countOps(*m, Opcode::Add), 1);
  EXPECT_EQ(countOps(*m, Opcode::If), 0);
}

TEST(StructureExpr, BoolOpOnValues) {
  auto m = lowerSource(R"(
@triton.jit
def k(n, m):
    if n > 0 and m > 0:
        y = n + 1
)", "k", "i32, i32");
  EXPECT_EQ(countOps(*m, Opcode::Cmp), 2);
  EXPECT_EQ(countOps(*m, Opcode::If), 1);
}

TEST(StructureExpr, CompareChains) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    if 0 < n < 10:
        y = n + 1
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Cmp), 2);
  EXPECT_EQ(countOps(*m, Opcode::And), 1);
  auto c = lowerSource(R"(
@triton.jit
def k(n):
    if 1 > 2 < undefined_name:
        y = n + 1
    if 1 < 2 < 3:
        z = n * 2
)", "k", "i32");
  EXPECT_EQ(countOps(*c, Opcode::Add), 0);
  EXPECT_EQ(countOps(*c, Opcode::Mul), 1);
  EXPECT_EQ(countOps(*c, Opcode::Cmp), 0);
}

}  // namespace
}  // namespace kiln::sema::test
