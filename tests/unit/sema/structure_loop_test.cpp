// Structure tests of sema: for over range/tl.range (loop-carried values), tl.static_range and
// tuple unrolling, while loops.
#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;
using ir::Scalar;

TEST(StructureFor, RangeWithCarriedValue) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    acc = n
    other = n
    for i in range(0, n, 2):
        acc = acc + i
    b = acc * other
)", "k", "i32");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  ASSERT_EQ(loop->numOperands(), 4u);  // lb, ub, step, one init
  EXPECT_EQ(loop->operand(1), m->functions[0]->body.arg(0));
  EXPECT_EQ(loop->operand(3), m->functions[0]->body.arg(0));
  ASSERT_EQ(loop->numResults(), 1u);
  EXPECT_EQ(loop->result()->type, ir::Type::scalar(Scalar::I32));
  const ir::Block& body = loop->region(0);
  ASSERT_EQ(body.numArgs(), 2u);  // iv, acc
  const ir::Op* add = findOp(body, Opcode::Add);
  ASSERT_TRUE(add);
  EXPECT_EQ(add->operand(0), body.arg(1));
  EXPECT_EQ(add->operand(1), body.arg(0));
  ASSERT_EQ(body.terminator()->opcode, Opcode::Yield);
  EXPECT_EQ(body.terminator()->operand(0), add->result());
  const ir::Op* mul = findOp(*m, Opcode::Mul);
  EXPECT_EQ(mul->operand(0), loop->result());
  EXPECT_EQ(mul->operand(1), m->functions[0]->body.arg(0));
}

TEST(StructureFor, OneArgumentRangeAndConstantBounds) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    for i in range(8):
        y = n + i
)", "k", "i32");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numResults(), 0u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(loop->operand(i)->def->opcode, Opcode::Constant);
    EXPECT_EQ(loop->operand(i)->type, ir::Type::scalar(Scalar::I32));
  }
  EXPECT_EQ(loop->operand(0)->def->intAttr("value"), 0);
  EXPECT_EQ(loop->operand(1)->def->intAttr("value"), 8);
  EXPECT_EQ(loop->operand(2)->def->intAttr("value"), 1);
}

TEST(StructureFor, Int64BoundMakesAnInt64Loop) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    for i in range(0, n):
        y = i + 1
)", "k", "i64");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->operand(0)->type, ir::Type::scalar(Scalar::I64));
  EXPECT_EQ(loop->region(0).arg(0)->type, ir::Type::scalar(Scalar::I64));
}

TEST(StructureFor, TlRangeOptionsBecomeAttributes) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    for i in tl.range(0, n, 4, num_stages=3, loop_unroll_factor=2, flatten=True, disable_licm=True):
        y = n + i
)", "k", "i32");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->intAttr("num_stages"), 3);
  EXPECT_EQ(loop->intAttr("loop_unroll_factor"), 2);
  EXPECT_EQ(loop->intAttr("flatten"), 1);
  EXPECT_EQ(loop->intAttr("disable_licm"), 1);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in tl.range(0, n, bogus=3):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "no keyword argument 'bogus'")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(0, n, num_stages=3):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "range() takes no keyword arguments")) << d.message;
}

TEST(StructureFor, BadBounds) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(0, n, -1):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "step of range must be positive, got -1")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(0, n, 0):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "must be positive, got 0")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(x):
    for i in range(x):
        pass
)", "k", "fp32");
  EXPECT_TRUE(contains(d.message, "the end of range must be an integer, got f32")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(x):
    for i in range(tl.arange(0, 4)):
        pass
)", "k", "fp32");
  EXPECT_TRUE(contains(d.message, "must be a scalar")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(1, 2, 3, 4):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "range takes 1 to 3 arguments, got 4")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(n):
        pass
    else:
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "'else' after a loop")) << d.message;
}

TEST(StructureFor, LoopVariableNotVisibleAfter) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(n):
        pass
    y = i + 1
)", "k", "i32");
  EXPECT_EQ(d.message, "name 'i' is not defined");
  EXPECT_EQ(srcLine(d), 5);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_TRUE(contains(d.notes[0].message, "variable of this loop")) << d.notes[0].message;
  EXPECT_EQ(srcLine(d.notes[0]), 3);
}

TEST(StructureFor, NamesFirstDefinedInBodyNotVisibleAfter) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(n):
        t = i * 2
    y = t + 1
)", "k", "i32");
  EXPECT_EQ(d.message, "name 't' is not defined");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_TRUE(contains(d.notes[0].message, "first assigned inside this loop")) << d.notes[0].message;
}

TEST(StructureFor, CarriedTypeChangeIsAnError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr, n):
    acc = n
    for i in range(n):
        acc = x_ptr
)", "k", "*fp32, i32");
  EXPECT_EQ(d.message, "loop-carried variable 'acc' is a i32 before the loop but a ptr<f32> at the end of the body");
  EXPECT_EQ(srcLine(d), 5);
  d = lowerError(R"(
@triton.jit
def k(n):
    acc = tl.zeros([16], dtype=tl.float32)
    for i in range(n):
        acc = tl.zeros([32], dtype=tl.float32)
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "is a tensor<16xf32> before the loop but a tensor<32xf32> at the end")) << d.message;
}

// Triton rejects a runtime value whose dtype the body changes; converting it back would truncate.
TEST(StructureFor, CarriedDtypeChangeIsAnError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n, f):
    acc = n
    for i in range(n):
        acc = acc + f
)", "k", "i32, fp32");
  EXPECT_EQ(d.message, "loop-carried variable 'acc' is a i32 before the loop but a f32 at the end of the body");
  EXPECT_EQ(srcLine(d), 5);
  d = lowerError(R"(
@triton.jit
def k(n, f):
    acc = n
    while acc < 10:
        acc = acc + f
)", "k", "i32, fp32");
  EXPECT_EQ(d.message, "loop-carried variable 'acc' is a i32 before the loop but a f32 at the end of the body");
}

TEST(StructureFor, CarriedConstexprNumberTakesTheBodyType) {
  auto m = lowerSource(R"(
@triton.jit
def k(x, n):
    acc = 0
    for i in range(n):
        acc = acc + x
    y = acc * 2.0
)", "k", "fp32, i32");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  ASSERT_EQ(loop->numResults(), 1u);
  EXPECT_EQ(loop->result()->type, ir::Type::scalar(Scalar::F32));
  EXPECT_EQ(loop->operand(3)->type, ir::Type::scalar(Scalar::F32));
  auto c = lowerSource(R"(
@triton.jit
def k(n):
    count = 0
    for i in range(n):
        count += 1
)", "k", "i32");
  EXPECT_EQ(findOp(*c, Opcode::For)->result()->type, ir::Type::scalar(Scalar::I32));
}

TEST(StructureFor, ConstexprThatStaysTheSameIsNotCarried) {
  auto m = lowerSource(R"(
@triton.jit
def k(n, HAS_MASK: tl.constexpr):
    mask = None
    for i in range(n):
        if HAS_MASK:
            mask = i < n
    y = n + 1
)", "k", "i32, False");
  EXPECT_EQ(findOp(*m, Opcode::For)->numResults(), 0u);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    d = tl.float16
    for i in range(n):
        d = tl.float32
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "cannot reassign 'd' inside a loop")) << d.message;
}

TEST(StructureFor, TupleCarriedValues) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    pair = (n, n + 1)
    for i in range(n):
        pair = (pair[1], pair[0] + pair[1])
    y = pair[0] * 2
)", "k", "i32");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numResults(), 2u);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), loop->result(0));
}

TEST(StructureFor, NestedLoops) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    acc = n
    for i in range(n):
        for j in range(i):
            acc = acc + j
    y = acc + 1
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::For), 2);
  const ir::Op* outer = findOp(*m, Opcode::For);
  const ir::Op* inner = findOp(outer->region(0), Opcode::For);
  ASSERT_TRUE(inner);
  EXPECT_EQ(outer->numResults(), 1u);
  EXPECT_EQ(inner->numResults(), 1u);
  EXPECT_EQ(inner->operand(3), outer->region(0).arg(1));
  EXPECT_EQ(outer->region(0).terminator()->operand(0), inner->result());
}

TEST(StructureStaticRange, Unrolls) {
  auto m = lowerSource(R"(
@triton.jit
def k(n, D: tl.constexpr):
    acc = n
    for i in tl.static_range(D + 1):
        acc = acc * n + i
    for j in tl.static_range(2, 10, 3):
        acc = acc - j
    for j in tl.static_range(10, 0, -3):
        acc = acc ^ j
)", "k", "i32, 3");
  EXPECT_EQ(countOps(*m, Opcode::For), 0);
  EXPECT_EQ(countOps(*m, Opcode::Mul), 4);
  EXPECT_EQ(countOps(*m, Opcode::Add), 4);
  EXPECT_EQ(countOps(*m, Opcode::Sub), 3);  // 2, 5, 8
  EXPECT_EQ(countOps(*m, Opcode::Xor), 4);  // 10, 7, 4, 1
}

TEST(StructureStaticRange, Errors) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in tl.static_range(n):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "static_range bounds must be constexpr")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    for i in tl.static_range(5000):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "would unroll 5000 iterations (at most 4096)")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    for i in tl.static_range(0, 4, 0):
        pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "must not be zero")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(n):
    x = range(3)
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "can only be used as the iterable of a for loop")) << d.message;
}

TEST(StructureStaticRange, TupleIteration) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    acc = n
    for a, b in ((1, 2), (3, 4), (5, 6)):
        acc = acc * a + b
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Mul), 3);
  EXPECT_EQ(countOps(*m, Opcode::Add), 3);
}

TEST(StructureStaticRange, BoundsTheTotalWork) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in tl.static_range(4000):
        for j in tl.static_range(4000):
            n = n + 1
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "too large after inlining helpers and unrolling loops")) << d.message;
}

TEST(StructureWhile, CarriedValuesAndRegions) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if mid < 5:
            lo = mid + 1
        else:
            hi = mid
    y = lo * 2
)", "k", "i32");
  const ir::Op* loop = findOp(*m, Opcode::While);
  ASSERT_TRUE(loop);
  ASSERT_EQ(loop->numOperands(), 2u);
  ASSERT_EQ(loop->numResults(), 2u);
  EXPECT_EQ(loop->operand(0)->def->opcode, Opcode::Constant);
  EXPECT_EQ(loop->operand(1), m->functions[0]->body.arg(0));
  const ir::Block& before = loop->region(0);
  const ir::Block& after = loop->region(1);
  EXPECT_EQ(before.numArgs(), 2u);
  EXPECT_EQ(after.numArgs(), 2u);
  ASSERT_EQ(before.terminator()->opcode, Opcode::Condition);
  EXPECT_EQ(before.terminator()->numOperands(), 3u);
  EXPECT_EQ(before.terminator()->operand(0)->def->opcode, Opcode::Cmp);
  ASSERT_EQ(after.terminator()->opcode, Opcode::Yield);
  EXPECT_EQ(after.terminator()->numOperands(), 2u);
  EXPECT_EQ(countOps(after, Opcode::If), 1);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), loop->result(0));
}

TEST(StructureWhile, TensorConditionIsAnError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    x = tl.arange(0, 8)
    while x < n:
        x = x + 1
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "while condition must be a scalar")) << d.message;
}

TEST(StructureWhile, ConstantConditions) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    while True:
        n = n + 1
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "while condition is a constant")) << d.message;
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    while False:
        n = n + 1
    y = n * 2
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::While), 0);
  EXPECT_EQ(countOps(*m, Opcode::Add), 0);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), m->functions[0]->body.arg(0));
}

}  // namespace
}  // namespace kiln::sema::test
