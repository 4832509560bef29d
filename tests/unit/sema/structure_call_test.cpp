// Structure tests of sema: inlining of @jit helpers (argument binding, tuple and constexpr
// returns, returns inside if/else), recursion and depth limits, errors located in helpers.
#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;

TEST(StructureCall, InlinesHelpers) {
  auto m = lowerSource(R"(
@triton.jit
def add1(x):
    return x + 1

@triton.jit
def k(n):
    y = add1(add1(n))
    z = y * 2
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 2);
  const ir::Op* mul = findOp(*m, Opcode::Mul);
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->operand(0)->def->opcode, Opcode::Add);
  EXPECT_EQ(mul->operand(0)->def->operand(0)->def->opcode, Opcode::Add);
}

TEST(StructureCall, TupleReturns) {
  auto m = lowerSource(R"(
@triton.jit
def two(x):
    return x + 1, x * 2

@triton.jit
def k(n):
    a, b = two(n)
    c = a - b
)", "k", "i32");
  const ir::Op* sub = findOp(*m, Opcode::Sub);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->operand(0)->def->opcode, Opcode::Add);
  EXPECT_EQ(sub->operand(1)->def->opcode, Opcode::Mul);
}

TEST(StructureCall, KeywordsAndDefaults) {
  auto m = lowerSource(R"(
SCALE = 3

@triton.jit
def f(x, y=SCALE, Z: tl.constexpr = 2):
    for i in tl.static_range(Z):
        x = x * y
    return x

@triton.jit
def k(n):
    a = f(n, Z=4)
    b = f(y=n, x=a)
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Mul), 6);
}

TEST(StructureCall, ArgumentErrors) {
  const char* helper = R"(
@triton.jit
def f(x, y):
    return x + y

@triton.jit
def k(n):
)";
  auto err = [&](const std::string& body) { return lowerError(std::string(helper) + "    " + body + "\n", "k", "i32"); };
  EXPECT_EQ(err("z = f(n, n, n)").message, "helper 'f' takes 2 arguments but 3 were given");
  EXPECT_EQ(err("z = f(n)").message, "helper 'f' is missing the argument 'y'");
  EXPECT_EQ(err("z = f(n, q=n)").message, "helper 'f' has no parameter named 'q'");
  EXPECT_EQ(err("z = f(n, x=n)").message, "helper 'f' got multiple values for argument 'x'");
  Diagnostic d = err("z = f(n)");
  EXPECT_EQ(srcLine(d), 7);  // at the call
  EXPECT_TRUE(d.notes.empty());
}

// A helper's `tl.constexpr` annotation does not make its argument one: Triton specializes a helper on
// what it is called with (the flash-attention tutorial passes a tile and the runtime N_CTX to
// parameters annotated constexpr), so the parameter is a runtime value there.
TEST(StructureCall, ConstexprAnnotatedHelperParameterTakesARuntimeValue) {
  auto m = lowerSource(R"(
@triton.jit
def f(x, B: tl.constexpr):
    return x * B

@triton.jit
def k(n):
    z = f(n, n)
)", "k", "i32");
  const ir::Op* mul = findOp(*m, Opcode::Mul);
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->operand(0), mul->operand(1));  // both the kernel's n
}

TEST(StructureCall, Recursion) {
  Diagnostic d = lowerError(R"(
@triton.jit
def f(x):
    return g(x)

@triton.jit
def g(x):
    return f(x)

@triton.jit
def k(n):
    z = f(n)
)", "k", "i32");
  EXPECT_EQ(d.message, "recursive call to 'f' is not supported (f -> g -> f)");
  EXPECT_EQ(srcLine(d), 7);
  // notes: where f is defined, then the call chain back to the kernel
  ASSERT_EQ(d.notes.size(), 3u);
  EXPECT_EQ(d.notes[1].message, "in 'g' called from here");
  EXPECT_EQ(srcLine(d.notes[1]), 3);
  EXPECT_EQ(d.notes[2].message, "in 'f' called from here");
  EXPECT_EQ(srcLine(d.notes[2]), 11);
  d = lowerError(R"(
@triton.jit
def k(n):
    k(n)
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "recursive call to 'k' is not supported (k -> k)")) << d.message;
}

TEST(StructureCall, ErrorsInsideHelpersNoteTheCallSite) {
  Diagnostic d = lowerError(R"(
@triton.jit
def h(x):
    return x + zz

@triton.jit
def k(n):
    y = n + 1
    z = h(y)
)", "k", "i32");
  EXPECT_EQ(d.message, "name 'zz' is not defined");
  EXPECT_EQ(srcLine(d), 3);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message, "in 'h' called from here");
  EXPECT_EQ(srcLine(d.notes[0]), 8);
}

TEST(StructureCall, InlineDepthLimit) {
  std::string src;
  for (int i = 0; i < 70; ++i)
    src += "@triton.jit\ndef f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i + 1) + "(x)\n\n";
  src += "@triton.jit\ndef f70(x):\n    return x\n\n@triton.jit\ndef k(n):\n    y = f0(n)\n";
  Diagnostic d = lowerError(src, "k", "i32");
  EXPECT_TRUE(contains(d.message, "more than 64 levels deep")) << d.message;
}

TEST(StructureCall, NestingThroughHelpersIsBounded) {
  // 60 helpers, each nesting its call 9 blocks deep: more than the 256 levels sema allows.
  std::string src;
  for (int i = 0; i < 60; ++i) {
    src += "@triton.jit\ndef f" + std::to_string(i) + "(x):\n";
    std::string indent = "    ";
    for (int d = 0; d < 8; ++d, indent += "    ") src += indent + "if x > " + std::to_string(d) + ":\n";
    src += indent + "x = f" + std::to_string(i + 1) + "(x)\n    return x\n\n";
  }
  src += "@triton.jit\ndef f60(x):\n    return x\n\n@triton.jit\ndef k(n):\n    y = f0(n)\n";
  Diagnostic d = lowerError(src, "k", "i32");
  EXPECT_TRUE(contains(d.message, "nested too deeply (more than 256 levels)")) << d.message;
}

TEST(StructureCall, ExponentialInliningIsBounded) {
  std::string src;
  for (int i = 0; i < 24; ++i)
    src += "@triton.jit\ndef f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i + 1) + "(x) + f" +
           std::to_string(i + 1) + "(x)\n\n";
  src += "@triton.jit\ndef f24(x):\n    return x\n\n@triton.jit\ndef k(n):\n    y = f0(n)\n";
  Diagnostic d = lowerError(src, "k", "i32");
  EXPECT_TRUE(contains(d.message, "too large after inlining")) << d.message;
}

TEST(StructureCall, ConstexprReturnsThroughFoldedIfs) {
  auto m = lowerSource(R"(
@triton.jit
def pick(FLAG: tl.constexpr):
    if FLAG:
        return 4
    return 8

@triton.jit
def k(n):
    for i in tl.static_range(pick(True) + pick(False)):
        n = n + 1
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 12);
  EXPECT_EQ(countOps(*m, Opcode::If), 0);
}

TEST(StructureCall, ReturnsInBothBranches) {
  auto m = lowerSource(R"(
@triton.jit
def absval(x):
    if x < 0:
        return -x
    else:
        return x

@triton.jit
def k(n):
    y = absval(n) * 2
)", "k", "i32");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  ASSERT_EQ(ifOp->numResults(), 1u);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), ifOp->result());
}

TEST(StructureCall, EarlyReturnInHelper) {
  auto m = lowerSource(R"(
@triton.jit
def clamp_or_inc(x):
    if x < 0:
        return 0
    y = x + 1
    return y

@triton.jit
def k(n):
    z = clamp_or_inc(n) * 2
)", "k", "i32");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  ASSERT_EQ(ifOp->numResults(), 1u);
  EXPECT_EQ(ifOp->result()->type, ir::Type::scalar(ir::Scalar::I32));
  EXPECT_EQ(countOps(ifOp->region(1), Opcode::Add), 1);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), ifOp->result());
}

TEST(StructureCall, ReturnTypeMismatch) {
  Diagnostic d = lowerError(R"(
@triton.jit
def f(x, p):
    if x < 0:
        return p
    return x

@triton.jit
def k(x_ptr, n):
    z = f(n, x_ptr)
)", "k", "*fp32, i32");
  EXPECT_EQ(d.message, "the return value has type ptr<f32> in the then-branch and i32 in the else-branch");
}

TEST(StructureCall, HelperWithoutReturnGivesNone) {
  auto m = lowerSource(R"(
@triton.jit
def noop(x):
    y = x + 1

@triton.jit
def k(n):
    r = noop(n)
    if r is None:
        z = n * 2
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 1);
  EXPECT_EQ(countOps(*m, Opcode::Mul), 1);
  EXPECT_EQ(countOps(*m, Opcode::If), 0);
}

TEST(StructureCall, HelperLoopsAndCarriedValues) {
  auto m = lowerSource(R"(
@triton.jit
def inner(acc, lo, hi, STEP: tl.constexpr):
    for start in range(lo, hi, STEP):
        start = start + 0
        acc = acc + start
    return acc

@triton.jit
def k(n):
    acc = inner(n, 0, n, 16)
    y = acc * 3
)", "k", "i32");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numResults(), 1u);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), loop->result());
}

}  // namespace
}  // namespace kiln::sema::test
