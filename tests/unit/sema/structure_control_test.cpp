// Structure tests of sema: if (constexpr folding, merged variables), conditional expressions,
// returns and asserts.
#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;

TEST(StructureIf, ConstexprConditionFolds) {
  const char* src = R"(
@triton.jit
def k(n, FLAG: tl.constexpr):
    if FLAG:
        a = n + 1
    else:
        a = n * 2
    b = a - 3
)";
  auto t = lowerSource(src, "k", "i32, True");
  EXPECT_EQ(countOps(*t, Opcode::If), 0);
  EXPECT_EQ(countOps(*t, Opcode::Add), 1);
  EXPECT_EQ(countOps(*t, Opcode::Mul), 0);
  auto f = lowerSource(src, "k", "i32, False");
  EXPECT_EQ(countOps(*f, Opcode::Add), 0);
  EXPECT_EQ(countOps(*f, Opcode::Mul), 1);
  // elif chains fold too, and the untaken branch is never looked at.
  auto e = lowerSource(R"(
@triton.jit
def k(n, MODE: tl.constexpr):
    if MODE == 0:
        a = undefined_name
    elif MODE == 1:
        a = n + 1
    else:
        a = also_undefined
    b = a * 2
)", "k", "i32, 1");
  EXPECT_EQ(countOps(*e, Opcode::Add), 1);
  EXPECT_EQ(countOps(*e, Opcode::Mul), 1);
}

TEST(StructureIf, VariablesAssignedInBranchesBecomeResults) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    a = n
    b = n
    if n > 0:
        a = n + 1
    else:
        a = n * 2
    c = a - b
)", "k", "i32");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  ASSERT_EQ(ifOp->numResults(), 1u);  // b is unchanged: not a result
  EXPECT_EQ(ifOp->result()->type, ir::Type::scalar(ir::Scalar::I32));
  EXPECT_EQ(ifOp->region(0).terminator()->opcode, Opcode::Yield);
  EXPECT_EQ(ifOp->region(0).terminator()->numOperands(), 1u);
  EXPECT_EQ(ifOp->region(1).terminator()->numOperands(), 1u);
  const ir::Op* sub = findOp(*m, Opcode::Sub);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->operand(0), ifOp->result());
}

TEST(StructureIf, DefinedInBothBranchesIsVisibleAfter) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    if n > 0:
        t = n + 1
    else:
        t = 5
    u = t * 2
)", "k", "i32");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  ASSERT_EQ(ifOp->numResults(), 1u);
  // the constexpr 5 is materialized in the else-branch with the then-branch's type
  EXPECT_EQ(countOps(ifOp->region(1), Opcode::Constant), 1);
  EXPECT_EQ(findOp(*m, Opcode::Mul)->operand(0), ifOp->result());
}

TEST(StructureIf, DefinedInOneBranchIsNotVisibleAfter) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    if n > 0:
        t = n + 1
    u = t * 2
)", "k", "i32");
  EXPECT_EQ(d.message, "name 't' is not defined");
  EXPECT_EQ(srcLine(d), 5);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_TRUE(contains(d.notes[0].message, "only one branch")) << d.notes[0].message;
  EXPECT_EQ(srcLine(d.notes[0]), 3);
}

TEST(StructureIf, TypeMismatchBetweenBranches) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr, n):
    a = n
    if n > 0:
        a = x_ptr
)", "k", "*fp32, i32");
  EXPECT_EQ(d.message, "variable 'a' has type ptr<f32> in the then-branch and i32 in the else-branch");
  EXPECT_EQ(srcLine(d), 4);
}

TEST(StructureIf, TensorConditionIsAnError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    x = tl.arange(0, 16)
    if x > 3:
        y = n + 1
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "Boolean value of Tensor with more than one value is ambiguous")) << d.message;
}

TEST(StructureIf, IntegerConditionComparesWithZero) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    if n:
        y = n + 1
)", "k", "i32");
  const ir::Op* cmp = findOp(*m, Opcode::Cmp);
  ASSERT_TRUE(cmp);
  EXPECT_EQ(cmp->strAttr("pred"), "ne");
  EXPECT_EQ(findOp(*m, Opcode::If)->operand(0), cmp->result());
}

TEST(StructureIf, ConditionalExpression) {
  auto m = lowerSource(R"(
@triton.jit
def k(n, FLAG: tl.constexpr):
    a = n + 1 if n > 0 else 0
    b = n * 2 if FLAG else undefined_name
)", "k", "i32, True");
  EXPECT_EQ(countOps(*m, Opcode::If), 1);
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_EQ(ifOp->numResults(), 1u);
  EXPECT_EQ(countOps(ifOp->region(0), Opcode::Add), 1);
  EXPECT_EQ(countOps(*m, Opcode::Mul), 1);
}

TEST(StructureIf, ConditionalExpressionTypeMismatch) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr, n):
    a = x_ptr if n > 0 else n
)", "k", "*fp32, i32");
  EXPECT_EQ(d.message, "the conditional expression has type ptr<f32> in the then-branch and i32 in the else-branch");
}

TEST(StructureReturn, KernelReturns) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    y = n + 1
    return
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Return), 1);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    return n
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "a kernel cannot return a value")) << d.message;
}

TEST(StructureReturn, EarlyReturnGuardsTheRestOfTheKernel) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    if n < 0:
        return
    y = n + 1
    z = y * 2
)", "k", "i32");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  EXPECT_EQ(ifOp->numResults(), 0u);
  EXPECT_EQ(countOps(ifOp->region(0), Opcode::Add), 0);
  EXPECT_EQ(countOps(ifOp->region(1), Opcode::Add), 1);
  EXPECT_EQ(countOps(ifOp->region(1), Opcode::Mul), 1);
  EXPECT_EQ(m->functions[0]->body.ops.back()->opcode, Opcode::Return);
}

TEST(StructureReturn, ReturnInElseBranchGuardsTheRest) {
  auto m = lowerSource(R"(
@triton.jit
def k():
    pid = tl.program_id(0)
    if pid < 4:
        a = pid + 1
    else:
        return
    b = a * 2
)", "k", "");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  EXPECT_EQ(m->functions[0]->body.numArgs(), 0u);
  EXPECT_EQ(countOps(ifOp->region(0), Opcode::Mul), 1);
  EXPECT_EQ(countOps(ifOp->region(1), Opcode::Mul), 0);
}

TEST(StructureReturn, ReturnInHelperLoopIsAnError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def f(x):
    while x > 0:
        if x == 3:
            return x
        x = x - 1
    return x

@triton.jit
def k(n):
    y = f(n)
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "early return is not supported")) << d.message;
  EXPECT_EQ(srcLine(d), 5);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(srcLine(d.notes[0]), 11);
}

TEST(StructureReturn, ReturnInLoopIsAnError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    for i in range(n):
        return
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "early return is not supported")) << d.message;
  EXPECT_EQ(srcLine(d), 4);
}

TEST(StructureAssert, ConstexprAndRuntime) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n, B: tl.constexpr):
    assert B % 2 == 0, "B must be even"
)", "k", "i32, 3");
  EXPECT_EQ(d.message, "assertion failed: B must be even");
  EXPECT_EQ(srcLine(d), 3);
  auto ok = lowerSource(R"(
@triton.jit
def k(n, B: tl.constexpr):
    assert B % 2 == 0, "B must be even"
)", "k", "i32, 4");
  EXPECT_EQ(countOps(*ok, Opcode::Assert), 0);
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    assert n > 0, "n must be positive"
    assert n
)", "k", "i32");
  ASSERT_EQ(countOps(*m, Opcode::Assert), 2);
  const ir::Op* a = findOp(*m, Opcode::Assert);
  EXPECT_EQ(a->strAttr("message"), "n must be positive");
  EXPECT_EQ(a->operand(0)->type, ir::Type::scalar(ir::Scalar::I1));
  d = lowerError(R"(
@triton.jit
def k(n):
    assert n > 0, n
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "must be a constexpr string")) << d.message;
}

TEST(StructureIR, LocationsPointAtTheSource) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    a = n
    if n > 0:
        a = n + 1
)", "k", "i32");
  const ir::Op* ifOp = findOp(*m, Opcode::If);
  ASSERT_TRUE(ifOp);
  EXPECT_EQ(srcLine(ifOp->loc), 4);
  EXPECT_EQ(srcLine(findOp(*m, Opcode::Add)->loc), 5);
  EXPECT_EQ(srcLine(ifOp->region(0).terminator()->loc), 4);
}

}  // namespace
}  // namespace kiln::sema::test
