// Expression parsing: precedence, associativity, literals, calls, attributes, subscripts, slices
// and the location of each node.
#include "frontend_test_util.h"

namespace kiln::frontend {
namespace {

using test::parseExpr;

TEST(ParserExpr, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(parseExpr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(parseExpr("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(parseExpr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(parseExpr("a / b // c % d @ e"), "(@ (% (// (/ a b) c) d) e)");
  EXPECT_EQ(parseExpr("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(parseExpr("a << b + c"), "(<< a (+ b c))");
  EXPECT_EQ(parseExpr("a >> b << c"), "(<< (>> a b) c)");
  EXPECT_EQ(parseExpr("a | b ^ c & d << e"), "(| a (^ b (& c (<< d e))))");
  EXPECT_EQ(parseExpr("a & b | c ^ d"), "(| (& a b) (^ c d))");
  EXPECT_EQ(parseExpr("a + b * c ** d - e"), "(- (+ a (* b (** c d))) e)");
}

TEST(ParserExpr, PowerAndUnary) {
  EXPECT_EQ(parseExpr("a ** b ** c"), "(** a (** b c))");
  EXPECT_EQ(parseExpr("-x ** 2"), "(neg (** x 2))");
  EXPECT_EQ(parseExpr("2 ** -1"), "(** 2 (neg 1))");
  EXPECT_EQ(parseExpr("-2 ** -x ** 2"), "(neg (** 2 (neg (** x 2))))");
  EXPECT_EQ(parseExpr("- - +~x"), "(neg (neg (+ (~ x))))");
  EXPECT_EQ(parseExpr("-a * b"), "(* (neg a) b)");
  EXPECT_EQ(parseExpr("~a.b[0] ** 2"), "(~ (** (sub a.b 0) 2))");
}

TEST(ParserExpr, BooleanAndComparison) {
  EXPECT_EQ(parseExpr("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(parseExpr("a and b or c and d or e"), "(or (and a b) (and c d) e)");
  EXPECT_EQ(parseExpr("not a and not b"), "(and (not a) (not b))");
  EXPECT_EQ(parseExpr("not not a"), "(not (not a))");
  EXPECT_EQ(parseExpr("not a == b"), "(not (cmp a == b))");
  EXPECT_EQ(parseExpr("a < b <= c"), "(cmp a < b <= c)");
  EXPECT_EQ(parseExpr("a == b != c > d >= e"), "(cmp a == b != c > d >= e)");
  EXPECT_EQ(parseExpr("a in b not in c"), "(cmp a in b not in c)");
  EXPECT_EQ(parseExpr("a is None is not b"), "(cmp a is None is not b)");
  EXPECT_EQ(parseExpr("a + 1 < b | c"), "(cmp (+ a 1) < (| b c))");
  EXPECT_EQ(parseExpr("(a < b) < c"), "(cmp (cmp a < b) < c)");
}

TEST(ParserExpr, ConditionalExpression) {
  EXPECT_EQ(parseExpr("a if c else b"), "(ifexp c a b)");
  EXPECT_EQ(parseExpr("a if c else b if d else e"), "(ifexp c a (ifexp d b e))");
  EXPECT_EQ(parseExpr("a or b if c and d else e + f"), "(ifexp (and c d) (or a b) (+ e f))");
  EXPECT_EQ(parseExpr("f(x if y else z)"), "(call f (ifexp y x z))");
}

TEST(ParserExpr, Literals) {
  EXPECT_EQ(parseExpr("(1, 0x10, 0o17, 0b11, 1_000, 1.5, 1e-3, .5, 1.)"),
            "(tuple 1 16 15 3 1000 f1.500000 f0.001000 f0.500000 f1.000000)");
  EXPECT_EQ(parseExpr("[True, False, None, 'a' \"b\" '''c''']"), "(list True False None 'abc')");
  EXPECT_EQ(parseExpr("()"), "(tuple)");
  EXPECT_EQ(parseExpr("(a,)"), "(tuple a)");
  EXPECT_EQ(parseExpr("[]"), "(list)");
  EXPECT_EQ(parseExpr("[a, [b, c],]"), "(list a (list b c))");
  EXPECT_EQ(parseExpr("a, b,"), "(tuple a b)");
  EXPECT_EQ(parseExpr("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(parseExpr("-1"), "(neg 1)");
}

TEST(ParserExpr, CallsAttributesSubscripts) {
  EXPECT_EQ(parseExpr("tl.load(p + o, mask=m, other=0.0)"), "(call tl.load (+ p o) mask=m other=f0.000000)");
  EXPECT_EQ(parseExpr("f()"), "(call f)");
  EXPECT_EQ(parseExpr("f(a,)(b)"), "(call (call f a) b)");
  EXPECT_EQ(parseExpr("a.b.c(d).e"), "(call a.b.c d).e");
  EXPECT_EQ(parseExpr("x[:, None]"), "(sub x (slice _ _ _) None)");
  EXPECT_EQ(parseExpr("x[None, :]"), "(sub x None (slice _ _ _))");
  EXPECT_EQ(parseExpr("x[0]"), "(sub x 0)");
  EXPECT_EQ(parseExpr("x[1:3]"), "(sub x (slice 1 3 _))");
  EXPECT_EQ(parseExpr("x[::2]"), "(sub x (slice _ _ 2))");
  EXPECT_EQ(parseExpr("x[a:]"), "(sub x (slice a _ _))");
  EXPECT_EQ(parseExpr("x[:b:]"), "(sub x (slice _ b _))");
  EXPECT_EQ(parseExpr("t[i, j]"), "(sub t i j)");
  EXPECT_EQ(parseExpr("t[i, j,]"), "(sub t i j)");
  EXPECT_EQ(parseExpr("t[i][j]"), "(sub (sub t i) j)");
  EXPECT_EQ(parseExpr("t[i + 1, ::-1]"), "(sub t (+ i 1) (slice _ _ (neg 1)))");
}

const ast::Expr& exprOf(const ast::Module& m) { return *m.functions.at(0)->body.at(0)->value; }

// Expected columns are Python's own (ast col_offset + 1).
TEST(ParserExpr, LocationsAreTheFirstCharacter) {
  auto m = test::parse(test::kernel("    (a  +  b) * tl.load(p)[0].x\n"));
  const ast::Expr& mul = exprOf(*m);
  EXPECT_EQ(mul.loc.line, 4);
  EXPECT_EQ(mul.loc.col, 5);  // a BinOp starts where its left operand's text does: at the '('
  const ast::Expr& add = *mul.elts[0];
  EXPECT_EQ(add.loc.col, 6);  // a parenthesised expression keeps its own loc
  EXPECT_EQ(add.elts[1]->loc.col, 12);
  const ast::Expr& attr = *mul.elts[1];
  EXPECT_EQ(attr.kind, ast::ExprKind::Attribute);
  EXPECT_EQ(attr.loc.col, 17);  // the object's start
  const ast::Expr& call = *attr.elts[0]->elts[0];
  EXPECT_EQ(call.kind, ast::ExprKind::Call);
  EXPECT_EQ(call.loc.col, 17);  // the callee's start
  EXPECT_EQ(call.elts[1]->loc.col, 25);
  EXPECT_EQ(attr.elts[0]->elts[1]->loc.col, 28);
}

TEST(ParserExpr, MoreLocations) {
  auto m = test::parse(test::kernel("    -x, (y, z), [1], x[1:2, :], f(k=v), 'a' 'b', a if b else c, not q < r, (f)(x)\n"));
  const ast::Expr& t = exprOf(*m);
  ASSERT_EQ(t.kind, ast::ExprKind::Tuple);
  EXPECT_EQ(t.loc.col, 5);             // a bare tuple starts at its first element
  EXPECT_EQ(t.elts[0]->loc.col, 5);    // unary at its operator
  EXPECT_EQ(t.elts[1]->loc.col, 9);    // a parenthesised tuple at its '('
  EXPECT_EQ(t.elts[2]->loc.col, 17);   // list at '['
  const ast::Expr& sub = *t.elts[3];
  EXPECT_EQ(sub.loc.col, 22);
  EXPECT_EQ(sub.elts[1]->loc.col, 24); // slice at its first character
  EXPECT_EQ(sub.elts[2]->loc.col, 29);
  EXPECT_EQ(t.elts[4]->loc.col, 33);
  EXPECT_EQ(t.elts[4]->keywords[0].loc.col, 35);
  EXPECT_EQ(t.elts[5]->loc.col, 41);   // concatenated strings at the first
  EXPECT_EQ(t.elts[6]->loc.col, 50);   // conditional expression at its body
  EXPECT_EQ(t.elts[7]->loc.col, 65);
  EXPECT_EQ(t.elts[7]->elts[0]->loc.col, 69);
  EXPECT_EQ(t.elts[8]->loc.col, 76);   // a call of a parenthesised callee starts at the '('
  EXPECT_EQ(t.elts[8]->elts[0]->loc.col, 77);
}

TEST(ParserExpr, DumpIsAnIndentedTree) {
  auto m = test::parse(test::kernel("    y = -x[0] ** 2 if a < b else f(1, k='s')\n"));
  EXPECT_EQ(dump(exprOf(*m)),
            "IfExp @4:9\n"
            "  test: Compare < @4:23\n"
            "    Name a @4:23\n"
            "    Name b @4:27\n"
            "  body: UnaryOp - @4:9\n"
            "    BinOp ** @4:10\n"
            "      Subscript @4:10\n"
            "        Name x @4:10\n"
            "        Int 0 @4:12\n"
            "      Int 2 @4:18\n"
            "  orelse: Call @4:34\n"
            "    Name f @4:34\n"
            "    Int 1 @4:36\n"
            "    Keyword k @4:39\n"
            "      Str \"s\" @4:41\n");
}

TEST(ParserExpr, LongFlatExpressionsDoNotRecurse) {
  std::string sum = "a";
  for (int i = 0; i < 999; ++i) sum += " + a";
  auto m = test::parse(test::kernel("    " + sum + "\n"));  // 1000 levels deep: the limit
  EXPECT_EQ(exprOf(*m).kind, ast::ExprKind::BinOp);
  std::string many = "f(a";
  for (int i = 0; i < 100000; ++i) many += ", a";
  auto m2 = test::parse(test::kernel("    " + many + ")\n"));  // wide, not deep
  EXPECT_EQ(exprOf(*m2).elts.size(), 100002u);  // the callee and the arguments
  std::string conj = "a";
  for (int i = 0; i < 100000; ++i) conj += " and a < b";
  auto m3 = test::parse(test::kernel("    " + conj + "\n"));
  EXPECT_EQ(exprOf(*m3).elts.size(), 100001u);
}

}  // namespace
}  // namespace kiln::frontend
