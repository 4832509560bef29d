// Python semantics of operators on constexprs, truth values and descriptions.
#include <cmath>
#include <limits>

#include "values_util.h"

namespace kiln::sema::test {
namespace {

using ast::BinOp;
using ast::CmpOp;
using K = SValue::Kind;

class ValuesConstexpr : public Values {
 protected:
  int64_t ival(const SValue& v) {
    EXPECT_EQ(v.kind, K::Int) << v.describe();
    return v.i;
  }
  double fval(const SValue& v) {
    EXPECT_EQ(v.kind, K::Float) << v.describe();
    return v.f;
  }
  bool bval(const SValue& v) {
    EXPECT_EQ(v.kind, K::Bool) << v.describe();
    return v.i != 0;
  }
};

TEST_F(ValuesConstexpr, IntegerArithmeticIsPython) {
  EXPECT_EQ(ival(bin(BinOp::FloorDiv, I(-7), I(2))), -4);
  EXPECT_EQ(ival(bin(BinOp::FloorDiv, I(7), I(-2))), -4);
  EXPECT_EQ(ival(bin(BinOp::FloorDiv, I(7), I(2))), 3);
  EXPECT_EQ(ival(bin(BinOp::Mod, I(-7), I(2))), 1);
  EXPECT_EQ(ival(bin(BinOp::Mod, I(7), I(-2))), -1);
  EXPECT_EQ(ival(bin(BinOp::Mod, I(std::numeric_limits<int64_t>::min()), I(-1))), 0);
  EXPECT_EQ(fval(bin(BinOp::Div, I(7), I(2))), 3.5);
  EXPECT_EQ(ival(bin(BinOp::Pow, I(2), I(10))), 1024);
  EXPECT_EQ(fval(bin(BinOp::Pow, I(2), I(-1))), 0.5);
  EXPECT_EQ(ival(bin(BinOp::LShift, I(1), I(40))), int64_t(1) << 40);
  EXPECT_EQ(ival(bin(BinOp::RShift, I(-8), I(1))), -4);
  EXPECT_EQ(ival(bin(BinOp::RShift, I(-8), I(100))), -1);
  EXPECT_EQ(ival(bin(BinOp::BitXor, I(6), I(3))), 5);
  EXPECT_EQ(ival(bin(BinOp::Add, B(true), B(true))), 2);
  EXPECT_TRUE(bval(bin(BinOp::BitAnd, B(true), B(true))));
  EXPECT_EQ(count(Opcode::Constant), 0);  // nothing reaches the IR
}

TEST_F(ValuesConstexpr, OverflowAndDivisionByZeroAreErrors) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(error([&] { bin(BinOp::Add, I(max), I(1)); }), "integer overflow in constant expression");
  EXPECT_EQ(error([&] { bin(BinOp::Mul, I(max / 2 + 1), I(2)); }), "integer overflow in constant expression");
  EXPECT_EQ(error([&] { bin(BinOp::LShift, I(1), I(63)); }), "integer overflow in constant expression");
  EXPECT_EQ(error([&] { bin(BinOp::Pow, I(3), I(40)); }), "integer overflow in constant expression");
  EXPECT_EQ(error([&] { unary(cx, ast::UnaryOp::Neg, I(std::numeric_limits<int64_t>::min()), loc); }),
            "integer overflow in constant expression");
  EXPECT_TRUE(has(error([&] { bin(BinOp::FloorDiv, I(1), I(0)); }), "by zero"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Div, F(1), I(0)); }), "by zero"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::LShift, I(1), I(-1)); }), "negative shift count"));
}

TEST_F(ValuesConstexpr, FloatArithmeticIsPython) {
  EXPECT_EQ(fval(bin(BinOp::FloorDiv, F(-7.5), I(2))), -4.0);
  EXPECT_EQ(fval(bin(BinOp::Mod, F(-7.5), I(2))), 0.5);
  EXPECT_EQ(fval(bin(BinOp::Mod, F(7.5), F(-2))), -0.5);
  EXPECT_EQ(fval(bin(BinOp::Add, I(1), F(0.5))), 1.5);
  EXPECT_EQ(fval(bin(BinOp::Pow, F(2), F(0.5))), std::sqrt(2.0));
  EXPECT_TRUE(has(error([&] { bin(BinOp::BitAnd, F(1), I(1)); }), "unsupported operand type(s) for &: 'float'"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Pow, F(-8), F(0.5)); }), "fractional power"));
}

TEST_F(ValuesConstexpr, StringsAndTuples) {
  SValue s = bin(BinOp::Add, S("ab"), S("cd"));
  EXPECT_EQ(s.str, "abcd");
  EXPECT_EQ(bin(BinOp::Mul, S("ab"), I(3)).str, "ababab");
  SValue t = bin(BinOp::Add, Tup({I(1), I(2)}), Tup({I(3)}));
  ASSERT_EQ(t.elts.size(), 3u);
  EXPECT_EQ(t.elts[2].i, 3);
  EXPECT_EQ(bin(BinOp::Mul, I(2), Tup({I(1), I(2)})).elts.size(), 4u);
  EXPECT_TRUE(bval(cmp(CmpOp::Eq, Tup({I(1), F(2.0)}), Tup({I(1), I(2)}))));
  EXPECT_TRUE(bval(cmp(CmpOp::In, I(3), Tup({I(1), I(2), I(3)}))));
  EXPECT_TRUE(bval(cmp(CmpOp::NotIn, S("x"), S("abc"))));
  EXPECT_TRUE(bval(cmp(CmpOp::Lt, Tup({I(1), I(2)}), Tup({I(1), I(3)}))));
  EXPECT_TRUE(bval(cmp(CmpOp::Lt, S("a"), S("b"))));
  EXPECT_TRUE(has(error([&] { cmp(CmpOp::Lt, I(1), S("a")); }), "not supported between instances of 'int' and 'str'"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Add, S("a"), I(1)); }), "'str' and 'int'"));
  EXPECT_TRUE(has(error([&] { bin(BinOp::Add, SValue::none(), I(1)); }), "'NoneType' and 'int'"));
}

TEST_F(ValuesConstexpr, ComparisonsAndIdentity) {
  EXPECT_TRUE(bval(cmp(CmpOp::Eq, I(1), F(1.0))));
  EXPECT_TRUE(bval(cmp(CmpOp::Eq, B(true), I(1))));
  EXPECT_FALSE(bval(cmp(CmpOp::Eq, SValue::none(), I(0))));
  EXPECT_TRUE(bval(cmp(CmpOp::Is, SValue::none(), SValue::none())));
  EXPECT_TRUE(bval(cmp(CmpOp::IsNot, I(0), SValue::none())));
  EXPECT_TRUE(bval(cmp(CmpOp::Eq, dt("float32"), SValue::dtype(Type::scalar(Scalar::F32)))));
  EXPECT_FALSE(bval(cmp(CmpOp::Lt, F(NAN), F(1.0))));
  EXPECT_TRUE(bval(cmp(CmpOp::GtE, I(3), F(2.5))));
}

TEST_F(ValuesConstexpr, Unary) {
  EXPECT_EQ(ival(unary(cx, ast::UnaryOp::Invert, I(5), loc)), -6);
  EXPECT_EQ(ival(unary(cx, ast::UnaryOp::Neg, B(true), loc)), -1);
  EXPECT_TRUE(bval(unary(cx, ast::UnaryOp::Not, I(0), loc)));
  EXPECT_FALSE(bval(unary(cx, ast::UnaryOp::Not, Tup({I(0)}), loc)));
  EXPECT_TRUE(has(error([&] { unary(cx, ast::UnaryOp::Invert, F(1.0), loc); }), "bad operand type for unary ~"));
}

TEST_F(ValuesConstexpr, LogicalOnConstexprsReturnsAnOperand) {
  EXPECT_EQ(ival(logical(cx, ast::BoolOp::And, I(0), I(5), loc)), 0);
  EXPECT_EQ(ival(logical(cx, ast::BoolOp::Or, I(0), I(5), loc)), 5);
}

TEST_F(ValuesConstexpr, TruthAndTypes) {
  EXPECT_TRUE(constexprTruth(I(2), loc, "cond"));
  EXPECT_FALSE(constexprTruth(S(""), loc, "cond"));
  EXPECT_FALSE(constexprTruth(SValue::none(), loc, "cond"));
  SValue x = scalar(Scalar::I32);
  std::string e = error([&] { constexprTruth(x, loc, "if condition"); });
  EXPECT_TRUE(has(e, "if condition must be a constexpr, but it is a scalar of type i32")) << e;
  EXPECT_EQ(typeOf(I(1)).str(), "i32");
  EXPECT_EQ(typeOf(F(1.0)).str(), "f32");
  EXPECT_EQ(typeOf(x).str(), "i32");
  EXPECT_THROW(typeOf(S("a")), CompileError);
}

TEST_F(ValuesConstexpr, Describe) {
  EXPECT_EQ(tile({128}, Scalar::F32).describe(), "a tensor<128xf32>");
  EXPECT_EQ(scalar(Scalar::I64).describe(), "a scalar of type i64");
  EXPECT_EQ(I(3).describe(), "the constexpr 3");
  EXPECT_EQ(F(2.5).describe(), "the constexpr 2.5");
  EXPECT_EQ(F(1.0).describe(), "the constexpr 1.0");
  EXPECT_EQ(B(true).describe(), "the constexpr True");
  EXPECT_EQ(S("a").describe(), "the constexpr 'a'");
  EXPECT_EQ(dt("float16").describe(), "tl.float16");
  EXPECT_EQ(SValue::dtype(Type::ptr(Scalar::F32)).describe(), "tl.pointer_type(tl.float32)");
  EXPECT_EQ(Tup({I(1)}).describe(), "the tuple (1,)");
  EXPECT_EQ(tl("load").describe(), "the builtin tl.load");
  EXPECT_TRUE(Tup({I(1), S("a")}).allConstexpr());
  EXPECT_FALSE(Tup({I(1), scalar(Scalar::I32)}).allConstexpr());
  EXPECT_FALSE(Tup({I(1), scalar(Scalar::I32)}).isConstexpr());
}

}  // namespace
}  // namespace kiln::sema::test
