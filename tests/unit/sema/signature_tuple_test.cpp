// Tuple arguments in signatures and sema: the "(...)" entry form (nested, one-element, empty,
// NamedTuple), its errors, and how a tuple parameter binds (its runtime elements as IR parameters).
#include <gtest/gtest.h>

#include "sema/signature.h"
#include "structure_util.h"
#include "support/diagnostic.h"

namespace kiln::sema::test {
namespace {

using K = SigEntry::Kind;
using L = SigEntry::LitKind;
using S = ir::Scalar;
using ir::Opcode;

std::string tupleSigError(const std::string& text) {
  try {
    parseSignature(text);
  } catch (const CompileError& e) {
    return e.diag().message;
  }
  ADD_FAILURE() << "expected an error for '" << text << "'";
  return "";
}

TEST(SignatureTuple, NestedTuplesWithLiterals) {
  Signature s = parseSignature("*i32:16, (*i32:16, (1, None, *i32, 4)), 20, (*fp32:16,), ()");
  ASSERT_EQ(s.entries.size(), 5u);
  const SigEntry& t = s.entries[1];
  EXPECT_EQ(t.kind, K::Tuple);
  EXPECT_EQ(t.text, "(*i32:16, (1, None, *i32, 4))");
  ASSERT_EQ(t.elts.size(), 2u);
  EXPECT_EQ(t.elts[0].kind, K::Pointer);
  EXPECT_EQ(t.elts[0].divisibility, 16);
  const SigEntry& inner = t.elts[1];
  ASSERT_EQ(inner.kind, K::Tuple);
  ASSERT_EQ(inner.elts.size(), 4u);
  EXPECT_EQ(inner.elts[0].litKind, L::Int);
  EXPECT_EQ(inner.elts[1].litKind, L::None);
  EXPECT_EQ(inner.elts[2].type, S::I32);
  EXPECT_EQ(inner.elts[2].divisibility, 1);
  EXPECT_EQ(inner.elts[3].intValue, 4);
  EXPECT_EQ(s.entries[2].intValue, 20);
  ASSERT_EQ(s.entries[3].elts.size(), 1u);  // "(x,)": one element
  EXPECT_EQ(s.entries[4].kind, K::Tuple);
  EXPECT_TRUE(s.entries[4].elts.empty());
}

TEST(SignatureTuple, StringsAndCommasInsideTuples) {
  Signature s = parseSignature("('a,b', 2.5, True), i32");
  ASSERT_EQ(s.entries.size(), 2u);
  ASSERT_EQ(s.entries[0].elts.size(), 3u);
  EXPECT_EQ(s.entries[0].elts[0].strValue, "a,b");
  EXPECT_EQ(s.entries[0].elts[1].floatValue, 2.5);
  EXPECT_EQ(s.entries[0].elts[2].litKind, L::Bool);
}

TEST(SignatureTuple, NamedTuple) {
  Signature s = parseSignature("Tensor(ptr=*fp32:16, shape=(i32:16, i32), stride=(i32, 1))");
  const SigEntry& t = s.entries.at(0);
  EXPECT_EQ(t.kind, K::Tuple);
  EXPECT_EQ(t.tupleName, "Tensor");
  EXPECT_EQ(t.fields, (std::vector<std::string>{"ptr", "shape", "stride"}));
  EXPECT_EQ(t.elts.at(1).elts.at(0).divisibility, 16);
}

TEST(SignatureTuple, Errors) {
  EXPECT_NE(tupleSigError("(*fp32, i32").find("'(' is not closed"), std::string::npos);
  EXPECT_NE(tupleSigError("(i32)").find("one-element tuple is written '(x,)'"), std::string::npos);
  EXPECT_NE(tupleSigError("(i32 i64)").find("expected ',' or ')'"), std::string::npos);
  EXPECT_NE(tupleSigError("(i32, foo)").find("unknown type 'foo'"), std::string::npos);
  EXPECT_NE(tupleSigError("(i32, 4:16)").find("a literal cannot carry a ':' hint"), std::string::npos);
  EXPECT_NE(tupleSigError("(i32,):16").find("a tuple cannot carry a ':' hint"), std::string::npos);
  EXPECT_NE(tupleSigError("T(*fp32)").find("expected 'field='"), std::string::npos);
  EXPECT_NE(tupleSigError("(i32,) x").find("unexpected 'x'"), std::string::npos);
}

TEST(SignatureTuple, RuntimeElementsBecomeParameters) {
  auto m = lowerSource(R"(
@triton.jit
def k(p, t, q):
    tl.static_assert(t[1][1] is None)
    tl.static_assert(t[1][3] == 4)
    tl.store(t[0], t[1][0])
)", "k", "*i32, (*i32:16, (1, None, i32, 4)), fp32");
  const ir::Function& f = *m->functions.at(0);
  // p, t.0, t.1.0 (the 1 stays a parameter, as at top level), t.1.2, q; None and 4 compile away.
  ASSERT_EQ(f.body.numArgs(), 5u);
  EXPECT_EQ(f.body.arg(1)->name, "t.0");
  EXPECT_EQ(f.body.arg(1)->type, ir::Type::ptr(S::I32));
  EXPECT_EQ(f.body.arg(2)->name, "t.1.0");
  EXPECT_EQ(f.body.arg(3)->name, "t.1.2");
  EXPECT_EQ(f.body.arg(4)->name, "q");
  const ir::Op* hint = findOp(*m, Opcode::MultipleOf);
  ASSERT_TRUE(hint);
  EXPECT_EQ(hint->operand(0), f.body.arg(1));
}

TEST(SignatureTuple, ConstexprTupleAndNamedTupleFields) {
  auto m = lowerSource(R"(
@triton.jit
def k(x, shape: tl.constexpr, d):
    tl.static_assert(shape[1] == 4)
    tl.store(d.ptr + tl.arange(0, shape[0] * shape[1]), d.shape[0])
)", "k", "*fp32, (2, 4), Desc(ptr=*fp32:16, shape=(i32,))");
  const ir::Function& f = *m->functions.at(0);
  ASSERT_EQ(f.body.numArgs(), 3u);
  EXPECT_EQ(f.body.arg(1)->name, "d.0");
  EXPECT_EQ(f.body.arg(2)->name, "d.1.0");
}

TEST(SignatureTuple, ConstexprTupleNeedsLiterals) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(shape: tl.constexpr):
    pass
)", "k", "(2, i32)");
  EXPECT_NE(d.message.find("parameter 'shape' is a constexpr and needs literal values"), std::string::npos)
      << d.message;
}

}  // namespace
}  // namespace kiln::sema::test
