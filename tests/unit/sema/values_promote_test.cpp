// Triton's type promotion, broadcasting and pointer arithmetic on runtime values.
#include "sema/ops_common.h"
#include "values_util.h"

namespace kiln::sema::test {
namespace {

using ast::BinOp;

struct PromoteCase {
  Scalar a;
  bool aWeak;
  Scalar b;
  bool bWeak;
  bool divOrMod;
  Scalar want;
};

TEST(ValuesPromote, ComputationTypeTable) {
  const PromoteCase cases[] = {
      {Scalar::F16, false, Scalar::F32, false, false, Scalar::F32},
      {Scalar::F16, false, Scalar::BF16, false, false, Scalar::F16},  // Triton: half wins over bf16
      {Scalar::BF16, false, Scalar::BF16, false, false, Scalar::BF16},
      {Scalar::BF16, false, Scalar::BF16, false, true, Scalar::F32},
      {Scalar::BF16, false, Scalar::I32, false, false, Scalar::F32},
      {Scalar::F16, false, Scalar::I64, false, false, Scalar::F16},
      {Scalar::F16, false, Scalar::F16, false, true, Scalar::F32},
      {Scalar::F64, false, Scalar::F16, false, false, Scalar::F64},
      {Scalar::F32, false, Scalar::I64, false, false, Scalar::F32},
      {Scalar::F8E4M3, false, Scalar::F8E4M3, false, false, Scalar::F8E4M3},
      {Scalar::F8E4M3, false, Scalar::F8E5M2, false, false, Scalar::F16},
      {Scalar::I8, false, Scalar::I16, false, false, Scalar::I16},
      {Scalar::I32, false, Scalar::U32, false, false, Scalar::U32},
      {Scalar::I64, false, Scalar::U32, false, false, Scalar::I64},
      {Scalar::U8, false, Scalar::I8, false, false, Scalar::U8},
      {Scalar::U16, false, Scalar::I32, false, false, Scalar::I32},
      {Scalar::I1, false, Scalar::I8, false, false, Scalar::I8},
      {Scalar::I1, false, Scalar::I1, false, false, Scalar::I1},
      // Python numbers ("weak") of a kind no higher than the tensor's do not change its type.
      {Scalar::F16, false, Scalar::F32, true, false, Scalar::F16},
      {Scalar::I8, false, Scalar::I32, true, false, Scalar::I8},
      {Scalar::U8, false, Scalar::I32, true, false, Scalar::U8},
      {Scalar::I8, false, Scalar::F32, true, false, Scalar::F32},
      {Scalar::I32, true, Scalar::BF16, false, false, Scalar::BF16},
      {Scalar::F32, true, Scalar::F16, false, true, Scalar::F32},
      {Scalar::I1, false, Scalar::I32, true, false, Scalar::I32},
      {Scalar::I64, false, Scalar::I1, true, false, Scalar::I64},
  };
  for (const auto& c : cases) {
    Scalar got = computationType(c.a, c.aWeak, c.b, c.bWeak, c.divOrMod, "a and b", SourceLoc{});
    EXPECT_EQ(got, c.want) << ir::name(c.a) << (c.aWeak ? "(weak)" : "") << " op " << ir::name(c.b)
                           << (c.bWeak ? "(weak)" : "") << (c.divOrMod ? " div" : "") << " -> " << ir::name(got);
  }
}

TEST(ValuesPromote, SignednessMismatchForDivision) {
  EXPECT_THROW(computationType(Scalar::I32, false, Scalar::U32, false, true, "x", SourceLoc{}), CompileError);
  EXPECT_THROW(computationType(Scalar::F8E4M3, false, Scalar::I32, false, false, "x", SourceLoc{}), CompileError);
}

TEST(ValuesPromote, LiteralTypes) {
  EXPECT_EQ(literalType(SValue::integer(5)).str(), "i32");
  EXPECT_EQ(literalType(SValue::integer(-(int64_t(1) << 31))).str(), "i32");
  EXPECT_EQ(literalType(SValue::integer(int64_t(1) << 31)).str(), "i64");
  EXPECT_EQ(literalType(SValue::real(0.5)).str(), "f32");
  EXPECT_EQ(literalType(SValue::real(1e300)).str(), "f64");
  EXPECT_EQ(literalType(SValue::real(1e-300)).str(), "f64");
  EXPECT_EQ(literalType(SValue::boolean(true)).str(), "i1");
}

class ValuesArith : public Values {};

TEST_F(ValuesArith, TensorTimesPythonFloatKeepsHalf) {
  SValue x = tile({128}, Scalar::F16);
  SValue r = bin(BinOp::Mul, x, F(2.0));
  EXPECT_EQ(ty(r), "tensor<128xf16>");
  const ir::Op* c = last(Opcode::Constant);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->result()->type.str(), "tensor<128xf16>");  // the number becomes a splat constant
  EXPECT_EQ(count(Opcode::Cast), 0);
  expectValid();
}

TEST_F(ValuesArith, IntTensorPlusIntStaysNarrow) {
  EXPECT_EQ(ty(bin(BinOp::Add, tile({8}, Scalar::I8), I(1))), "tensor<8xi8>");
  EXPECT_EQ(ty(bin(BinOp::Add, tile({8}, Scalar::U8), I(1))), "tensor<8xu8>");
  EXPECT_EQ(ty(bin(BinOp::Add, tile({8}, Scalar::I8), F(1.5))), "tensor<8xf32>");
  EXPECT_EQ(ty(bin(BinOp::Add, tile({8}, Scalar::I1), I(1))), "tensor<8xi32>");
  expectValid();
}

TEST_F(ValuesArith, ScalarRangeChecks) {
  SValue x = tile({8}, Scalar::I8);
  EXPECT_TRUE(has(error([&] { bin(BinOp::Add, x, I(300)); }), "out of range for i8"));
  SValue u = tile({8}, Scalar::U32);
  EXPECT_TRUE(has(error([&] { bin(BinOp::Add, u, I(-1)); }), "negative"));
}

TEST_F(ValuesArith, MixedRuntimeTypesCastBeforeTheOp) {
  SValue a = tile({16}, Scalar::I32), b = scalar(Scalar::I64);
  SValue r = bin(BinOp::Add, a, b);
  EXPECT_EQ(ty(r), "tensor<16xi64>");
  EXPECT_EQ(count(Opcode::Cast), 1);
  EXPECT_EQ(count(Opcode::Splat), 1);
  expectValid();
}

TEST_F(ValuesArith, Division) {
  SValue a = tile({16}, Scalar::I32), b = tile({16}, Scalar::I32);
  SValue q = bin(BinOp::Div, a, b);  // true division in f32
  EXPECT_EQ(ty(q), "tensor<16xf32>");
  EXPECT_EQ(count(Opcode::Cast), 2);
  SValue fd = bin(BinOp::FloorDiv, a, b);  // C truncation
  EXPECT_EQ(ty(fd), "tensor<16xi32>");
  EXPECT_EQ(last(Opcode::Div)->result()->type.str(), "tensor<16xi32>");
  SValue m = bin(BinOp::Mod, a, I(3));
  EXPECT_EQ(last(Opcode::Rem)->result(), m.ir);
  SValue h = tile({16}, Scalar::F16);
  EXPECT_EQ(ty(bin(BinOp::Div, h, I(2))), "tensor<16xf32>");  // f16 division computes in f32
  EXPECT_EQ(ty(bin(BinOp::Mod, h, h)), "tensor<16xf32>");
  std::string e = error([&] { bin(BinOp::FloorDiv, tile({16}, Scalar::F32), I(2)); });
  EXPECT_TRUE(has(e, "invalid operands of type tensor<16xf32> and the constexpr 2 for //")) << e;
  e = error([&] { bin(BinOp::FloorDiv, a, tile({16}, Scalar::U32)); });
  EXPECT_TRUE(has(e, "Cannot use /, // or % with a tensor<16xi32> and a tensor<16xu32> because they have different "
                     "signedness (i32 and u32)"))
      << e;
  expectValid();
}

TEST_F(ValuesArith, BitwiseNeedsIntegers) {
  SValue f = tile({128}, Scalar::F32);
  std::string e = error([&] { bin(BinOp::LShift, f, I(2)); });
  EXPECT_EQ(e, "invalid operands of type tensor<128xf32> and the constexpr 2 for <<: bitwise operators need "
               "integers");
  SValue u = tile({128}, Scalar::U32);
  EXPECT_EQ(ty(bin(BinOp::RShift, u, I(16))), "tensor<128xu32>");
  EXPECT_EQ(ty(bin(BinOp::BitXor, u, I(0x45d9f3b))), "tensor<128xu32>");
  EXPECT_EQ(ty(bin(BinOp::BitAnd, tile({4}, Scalar::I1), B(true))), "tensor<4xi1>");
  expectValid();
}

TEST_F(ValuesArith, Broadcasting) {
  SValue col = tile({64, 1}, Scalar::I32), row = tile({32}, Scalar::I32);
  SValue r = bin(BinOp::Add, col, row);
  EXPECT_EQ(ty(r), "tensor<64x32xi32>");
  EXPECT_EQ(count(Opcode::ExpandDims), 1);
  EXPECT_EQ(count(Opcode::Broadcast), 2);
  std::string e = error([&] { bin(BinOp::Add, tile({128}, Scalar::F32), tile({64}, Scalar::F32)); });
  EXPECT_EQ(e, "cannot broadcast shapes [128] and [64]");
  expectValid();
}

TEST_F(ValuesArith, PointerArithmetic) {
  SValue p = scalar(Scalar::I32);
  SValue base = val(Type::ptr(Scalar::F32));
  SValue offs = tile({128}, Scalar::I32);
  SValue q = bin(BinOp::Add, base, offs);
  EXPECT_EQ(ty(q), "tensor<128xptr<f32>>");
  EXPECT_EQ(last(Opcode::PtrAdd)->result(), q.ir);
  EXPECT_EQ(ty(bin(BinOp::Add, offs, base)), "tensor<128xptr<f32>>");  // offset + pointer
  SValue back = bin(BinOp::Sub, q, I(4));
  EXPECT_EQ(ty(back), "tensor<128xptr<f32>>");
  EXPECT_EQ(count(Opcode::Neg), 1);
  bin(BinOp::Add, base, tile({128}, Scalar::U32));  // unsigned offsets are zero-extended
  EXPECT_EQ(last(Opcode::Cast)->result()->type.str(), "tensor<128xi64>");
  EXPECT_EQ(ty(bin(BinOp::Add, base, p)), "ptr<f32>");
  EXPECT_TRUE(has(error([&] { bin(BinOp::Add, q, base); }), "cannot add two pointers"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Add, base, F(1.5)); }), "invalid operands of type"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Mul, base, I(2)); }), "invalid operands of type"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Sub, I(2), base); }), "invalid operands of type"));
  expectValid();
}

TEST_F(ValuesArith, PointerComparison) {
  SValue a = ptrs({8}, Scalar::F32), b = ptrs({8}, Scalar::F32);
  EXPECT_EQ(ty(cmp(ast::CmpOp::Eq, a, b)), "tensor<8xi1>");
  EXPECT_EQ(count(Opcode::Bitcast), 2);
  EXPECT_TRUE(has(error([&] { cmp(ast::CmpOp::Lt, a, b); }), "pointers only compare"));
  expectValid();
}

TEST_F(ValuesArith, Comparisons) {
  SValue x = tile({4, 8}, Scalar::F16);
  SValue c = cmp(ast::CmpOp::Lt, x, F(0.5));
  EXPECT_EQ(ty(c), "tensor<4x8xi1>");
  EXPECT_EQ(std::get<std::string>(*last(Opcode::Cmp)->findAttr("pred")), "lt");
  EXPECT_EQ(last(Opcode::Cmp)->operand(0)->type.str(), "tensor<4x8xf32>");  // numbers are not weak here
  cmp(ast::CmpOp::Lt, tile({8}, Scalar::I8), I(300));  // compares in i32, no range error
  EXPECT_EQ(last(Opcode::Cmp)->operand(1)->type.str(), "tensor<8xi32>");
  SValue isNone = cmp(ast::CmpOp::Is, x, SValue::none());
  EXPECT_EQ(isNone.kind, SValue::Kind::Bool);
  EXPECT_EQ(isNone.i, 0);
  EXPECT_EQ(cmp(ast::CmpOp::Is, x, x).i, 1);
  expectValid();
}

TEST_F(ValuesArith, UnaryAndLogical) {
  SValue x = tile({8}, Scalar::I32);
  EXPECT_EQ(ty(unary(cx, ast::UnaryOp::Neg, x, loc)), "tensor<8xi32>");
  EXPECT_EQ(ty(unary(cx, ast::UnaryOp::Invert, x, loc)), "tensor<8xi32>");
  EXPECT_EQ(ty(unary(cx, ast::UnaryOp::Not, x, loc)), "tensor<8xi1>");  // x == 0
  EXPECT_TRUE(has(error([&] { unary(cx, ast::UnaryOp::Invert, tile({8}, Scalar::F32), loc); }), "unary ~"));
  SValue m = tile({8}, Scalar::I1), s = scalar(Scalar::I1);
  EXPECT_EQ(ty(logical(cx, ast::BoolOp::And, m, s, loc)), "tensor<8xi1>");
  EXPECT_EQ(ty(logical(cx, ast::BoolOp::Or, x, B(false), loc)), "tensor<8xi1>");
  expectValid();
}

TEST_F(ValuesArith, Materialize) {
  EXPECT_EQ(materialize(cx, I(3), loc)->type.str(), "i32");
  EXPECT_EQ(materialize(cx, I(int64_t(1) << 40), loc)->type.str(), "i64");
  ir::Value* f = materialize(cx, F(0.1), loc);
  EXPECT_EQ(f->type.str(), "f32");
  EXPECT_EQ(f->def->floatAttr("value"), double(0.1f));  // rounded to the constant's type
  EXPECT_EQ(materialize(cx, B(true), loc)->type.str(), "i1");
  EXPECT_TRUE(has(error([&] { materialize(cx, S("x"), loc); }), "cannot use the constexpr 'x'"));
  expectValid();
}

TEST_F(ValuesArith, CastTo) {
  SValue i = scalar(Scalar::I32);
  ir::Value* v = castTo(cx, i.ir, Type::tensor({128}, Scalar::F32), loc);
  EXPECT_EQ(v->type.str(), "tensor<128xf32>");
  EXPECT_EQ(count(Opcode::Cast), 1);
  EXPECT_EQ(count(Opcode::Splat), 1);
  SValue t = tile({64}, Scalar::F32);
  EXPECT_TRUE(has(error([&] { castTo(cx, t.ir, Type::tensor({128}, Scalar::F32), loc); }), "cannot broadcast"));
  EXPECT_TRUE(has(error([&] { castTo(cx, t.ir, Type::scalar(Scalar::F32), loc); }), "cannot convert"));
  SValue p = val(Type::ptr(Scalar::F32));
  EXPECT_TRUE(has(error([&] { castTo(cx, p.ir, Type::scalar(Scalar::F32), loc); }), "cannot cast"));
  expectValid();
}

}  // namespace
}  // namespace kiln::sema::test
