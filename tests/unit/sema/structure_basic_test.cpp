// Structure tests of sema: kernel parameters and the signature, names and globals, assignment.
#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;

TEST(StructureParams, PointersScalarsHintsAndConstexprs) {
  auto m = lowerSource(R"(
@triton.jit
def k(x_ptr, n, scale, BLOCK: tl.constexpr):
    pass
)", "k", "*fp32:16, i32:16, fp32, 128");
  const ir::Function& f = *m->functions.at(0);
  EXPECT_EQ(f.name, "k");
  ASSERT_EQ(f.body.numArgs(), 3u);  // the constexpr is not an IR parameter
  EXPECT_EQ(f.body.arg(0)->name, "x_ptr");
  EXPECT_EQ(f.body.arg(0)->type, ir::Type::ptr(ir::Scalar::F32));
  EXPECT_EQ(f.body.arg(1)->name, "n");
  EXPECT_EQ(f.body.arg(1)->type, ir::Type::scalar(ir::Scalar::I32));
  EXPECT_EQ(f.body.arg(2)->type, ir::Type::scalar(ir::Scalar::F32));
  EXPECT_EQ(countOps(*m, Opcode::MultipleOf), 2);
  const ir::Op* hint = findOp(*m, Opcode::MultipleOf);
  EXPECT_EQ(hint->operand(0), f.body.arg(0));
  EXPECT_EQ(hint->listAttr("values"), std::vector<int64_t>{16});
  EXPECT_EQ(f.body.terminator()->opcode, Opcode::Return);
}

TEST(StructureParams, HintedParameterUsesTheHint) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    y = n + 1
)", "k", "i32:16");
  const ir::Op* hint = findOp(*m, Opcode::MultipleOf);
  const ir::Op* add = findOp(*m, Opcode::Add);
  ASSERT_TRUE(hint && add);
  EXPECT_EQ(add->operand(0), hint->result());
}

TEST(StructureParams, EqualToOneSpecialization) {
  // `stride` stays an i32 parameter, but its uses see the constexpr 1 (static_range needs one).
  auto m = lowerSource(R"(
@triton.jit
def k(n, stride):
    for i in tl.static_range(stride + 2):
        y = n + i
)", "k", "i32, 1");
  const ir::Function& f = *m->functions.at(0);
  ASSERT_EQ(f.body.numArgs(), 2u);
  EXPECT_EQ(f.body.arg(1)->name, "stride");
  EXPECT_EQ(f.body.arg(1)->type, ir::Type::scalar(ir::Scalar::I32));
  EXPECT_EQ(countOps(*m, Opcode::Add), 3);
}

TEST(StructureParams, LiteralInNonConstexprPosition) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n, m):
    pass
)", "k", "i32, 1024");
  EXPECT_TRUE(contains(d.message, "parameter 'm' is not a constexpr")) << d.message;
  EXPECT_TRUE(contains(d.message, "'1024'")) << d.message;
  EXPECT_EQ(srcLine(d), 2);
}

TEST(StructureParams, ConstexprNeedsLiteral) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n, BLOCK: tl.constexpr):
    pass
)", "k", "i32, i32");
  EXPECT_TRUE(contains(d.message, "parameter 'BLOCK' is a constexpr and needs a literal")) << d.message;
}

TEST(StructureParams, ConstexprAnnotationSpellings) {
  auto m = lowerSource(R"(
from triton.language import constexpr
@triton.jit
def k(A: triton.language.constexpr, B: constexpr, C: "tl.constexpr", n):
    for i in tl.static_range(A + B + C):
        y = n + i
)", "k", "1, 2, 3, i32");
  EXPECT_EQ(m->functions.at(0)->body.numArgs(), 1u);
  EXPECT_EQ(countOps(*m, Opcode::Add), 6);
}

TEST(StructureParams, OmittedTrailingConstexprTakesDefault) {
  auto m = lowerSource(R"(
@triton.jit
def k(n, BLOCK: tl.constexpr = 4):
    for i in tl.static_range(BLOCK):
        y = n + i
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 4);
}

TEST(StructureParams, CountMismatch) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    pass
)", "k", "i32, i32");
  EXPECT_TRUE(contains(d.message, "kernel 'k' has 1 parameter but the signature 'i32, i32' has 2 entries (expected 1)"))
      << d.message;
  EXPECT_EQ(srcLine(d), 2);
  d = lowerError(R"(
@triton.jit
def k(n, m, B: tl.constexpr = 2):
    pass
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "(expected 2 to 3)")) << d.message;
}

TEST(StructureNames, UnknownKernel) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    pass

@triton.jit
def helper(n):
    pass

def host():
    pass
)", "host", "i32");
  EXPECT_EQ(d.message, "no @jit function named 'host' in test.py (its @jit functions: k, helper)");
}

TEST(StructureNames, UndefinedName) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    y = n + 1
    z = y + zz
)", "k", "i32");
  EXPECT_EQ(d.message, "name 'zz' is not defined");
  EXPECT_EQ(srcLine(d), 4);
  EXPECT_EQ(d.loc.col, 13);
}

TEST(StructureNames, Globals) {
  auto m = lowerSource(R"(
BLOCK = tl.constexpr(2)
SIZE = BLOCK * 3
PAIR = (1, SIZE)
UNUSED = [i for i in range(3)]

@triton.jit
def k(n):
    for i in tl.static_range(PAIR[1]):
        y = n + i
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 6);
}

TEST(StructureNames, HostGlobalIsAnErrorAtTheUse) {
  Diagnostic d = lowerError(R"(
HOST = {i: i for i in range(3)}

@triton.jit
def k(n):
    y = n + HOST
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "global 'HOST' is not a compile-time constant (host code: ")) << d.message;
  EXPECT_EQ(srcLine(d), 5);
}

TEST(StructureNames, GlobalDefinedInTermsOfItself) {
  Diagnostic d = lowerError(R"(
A = B + 1
B = A + 1

@triton.jit
def k(n):
    y = n + A
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "is defined in terms of itself")) << d.message;
}

TEST(StructureNames, LongGlobalChainsAreBounded) {
  std::string src = "G0 = 1\n";
  for (int i = 1; i < 400; ++i) src += "G" + std::to_string(i) + " = G" + std::to_string(i - 1) + " + 1\n";
  src += "@triton.jit\ndef k(n):\n    y = n + G399\n";
  Diagnostic d = lowerError(src, "k", "i32");
  EXPECT_TRUE(contains(d.message, "more than 256 levels deep")) << d.message;
  std::string ok = "G0 = 1\n";
  for (int i = 1; i < 200; ++i) ok += "G" + std::to_string(i) + " = G" + std::to_string(i - 1) + " + 1\n";
  ok += "@triton.jit\ndef k(n):\n    for i in tl.static_range(G199 - 197):\n        n = n + 1\n";
  EXPECT_EQ(countOps(*lowerSource(ok, "k", "i32"), Opcode::Add), 3);
}

TEST(StructureNames, GlobalMustNotEmitIR) {
  Diagnostic d = lowerError(R"(
OFFS = tl.arange(0, 16)

@triton.jit
def k(n):
    y = n + OFFS
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "global 'OFFS' is not a compile-time constant")) << d.message;
  EXPECT_EQ(srcLine(d), 5);
}

TEST(StructureNames, GlobalReferringToJitFunction) {
  auto m = lowerSource(R"(
@triton.jit
def helper(x):
    return x * 2

f = helper

@triton.jit
def k(n):
    y = f(n)
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Mul), 1);
}

TEST(StructureAssign, TupleUnpackingAndMultipleTargets) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    a, (b, c) = 1, (2, 3)
    d = e = a + b + c
    for i in tl.static_range(d + e):
        y = n + i
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 12);
}

TEST(StructureAssign, UnpackingArity) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    a, b = 1, 2, 3
)", "k", "i32");
  EXPECT_EQ(d.message, "too many values to unpack (expected 2, got 3)");
  d = lowerError(R"(
@triton.jit
def k(n):
    a, b, c = n, 2
)", "k", "i32");
  EXPECT_EQ(d.message, "not enough values to unpack (expected 3, got 2)");
  d = lowerError(R"(
@triton.jit
def k(n):
    a, b = n
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "cannot unpack i32 into 2 names")) << d.message;
}

TEST(StructureAssign, BadTargets) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x):
    x[0] = 1
)", "k", "*fp32");
  EXPECT_TRUE(contains(d.message, "cannot assign to a subscript")) << d.message;
  d = lowerError(R"(
@triton.jit
def k(x):
    x.foo = 1
)", "k", "*fp32");
  EXPECT_EQ(d.message, "cannot assign to an attribute");
  d = lowerError(R"(
@triton.jit
def k(x):
    x[0] += 1
)", "k", "*fp32");
  EXPECT_TRUE(contains(d.message, "cannot assign to a subscript")) << d.message;
}

TEST(StructureAssign, AugmentedAssignment) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    a = n
    a += 1
    a *= n
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 1);
  const ir::Op* mul = findOp(*m, Opcode::Mul);
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->operand(0), findOp(*m, Opcode::Add)->result());
}

TEST(StructureAssign, AnnotatedConstexprNeedsConstant) {
  auto m = lowerSource(R"(
@triton.jit
def k(n):
    B: tl.constexpr = 2
    for i in tl.static_range(B):
        y = n + i
)", "k", "i32");
  EXPECT_EQ(countOps(*m, Opcode::Add), 2);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    B: tl.constexpr = n
)", "k", "i32");
  EXPECT_TRUE(contains(d.message, "'B' is annotated constexpr but its value is i32")) << d.message;
}

TEST(StructureStatements, ExitsOutsideALoop) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(n):
    if n > 0:
        break
)", "k", "i32");
  EXPECT_EQ(d.message, "'break' outside a loop");
  EXPECT_EQ(srcLine(d), 4);
  d = lowerError(R"(
@triton.jit
def helper(x):
    continue

@triton.jit
def k(n):
    while n > 0:
        n = helper(n)
)", "k", "i32");
  EXPECT_EQ(d.message, "'continue' outside a loop");  // a helper's body is not inside the caller's loop
  EXPECT_EQ(srcLine(d), 3);
}

}  // namespace
}  // namespace kiln::sema::test
