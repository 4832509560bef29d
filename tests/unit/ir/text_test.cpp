// Tests of the IR text form: exact printing, round trips (print(parse(print(f))) == print(f)),
// value naming, literals, and the parser's errors at file:line:col.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "ir/text.h"
#include "ir_test_util.h"

namespace kiln::ir {
namespace {

using testing::buildEverything;
using testing::parseString;
using testing::structuralDiff;

TEST(IrText, EverythingCoversEveryOpcode) {
  auto m = buildEverything();
  std::set<Opcode> seen;
  walk(*m->functions[0], [&](Op& op) { seen.insert(op.opcode); });
  for (int i = 0; i < numOpcodes(); ++i) EXPECT_TRUE(seen.count(Opcode(i))) << info(Opcode(i)).spelling;
}

TEST(IrText, EverythingRoundTrips) {
  auto m = buildEverything();
  const Function& f = *m->functions[0];
  std::string text = print(f);
  auto parsed = parseString(text);
  ASSERT_EQ(parsed->functions.size(), 1u);
  EXPECT_EQ(print(*parsed->functions[0]), text);
  EXPECT_EQ(structuralDiff(f, *parsed->functions[0]), "");
  // And the printed form is stable from then on.
  EXPECT_EQ(print(*parseString(print(*parsed))), text);
}

TEST(IrText, ExactPrint) {
  auto m = std::make_unique<Module>();
  Function& f = m->addFunction("k");
  Value* p = f.body.addArg(Type::ptr(Scalar::BF16), "p");
  Value* n = f.body.addArg(Type::scalar(Scalar::U64), "n");
  Builder b(f.body);
  Value* c = b.intConst(4, Type::scalar(Scalar::U64));
  Op* loop = b.create(Opcode::For, {c, n, c, c}, {Type::scalar(Scalar::U64)});
  Value* iv = loop->region(0).addArg(Type::scalar(Scalar::U64));
  Value* acc = loop->region(0).addArg(Type::scalar(Scalar::U64));
  Builder lb(loop->region(0));
  lb.create(Opcode::Yield, {lb.create1(Opcode::Add, {iv, acc}, Type::scalar(Scalar::U64))}, {});
  b.create1(Opcode::Splat, {p}, Type::ptr(Scalar::BF16).withShape({2, 8}));
  b.create(Opcode::Assert, {b.intConst(1, Type::scalar(Scalar::I1))}, {}, {{"message", std::string("a\"b")}});
  b.create(Opcode::Return, {}, {});
  EXPECT_EQ(print(*m),
            "func @k(%p: ptr<bf16>, %n: u64) {\n"
            "  %0 = constant {value = 4} : u64\n"
            "  %1 = for %0, %n, %0, %0 : u64 {\n"
            "  ^(%2: u64, %3: u64):\n"
            "    %4 = add %2, %3 : u64\n"
            "    yield %4\n"
            "  }\n"
            "  %5 = splat %p : tensor<2x8xptr<bf16>>\n"
            "  %6 = constant {value = 1} : i1\n"
            "  assert %6 {message = \"a\\\"b\"}\n"
            "  return\n"
            "}\n");
}

TEST(IrText, ParameterNaming) {
  auto m = std::make_unique<Module>();
  Function& f = m->addFunction("names");
  for (const char* name : {"a", "", "a", "0", "b-c", "_ok.1$"}) f.body.addArg(Type::scalar(Scalar::I32), name);
  Builder(f.body).create(Opcode::Return, {}, {});
  std::string text = print(*m);
  EXPECT_EQ(text, "func @names(%a: i32, %0: i32, %1: i32, %2: i32, %3: i32, %_ok.1$: i32) {\n  return\n}\n");
  EXPECT_EQ(print(*parseString(text)), text);
}

TEST(IrText, FloatLiteralsRoundTripExactly) {
  const double cases[] = {0.1, 1e-06, 1.0, -2.5, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, 123456789.0,
                          1.0 / 3.0, -0.0, 0.0, std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity()};
  for (double d : cases) {
    auto m = std::make_unique<Module>();
    Function& f = m->addFunction("c");
    Builder b(f.body);
    b.floatConst(d, Type::scalar(Scalar::F64));
    b.create(Opcode::Return, {}, {});
    std::string text = print(*m);
    auto back = parseString(text);
    double got = back->functions[0]->body.ops[0]->floatAttr("value");
    EXPECT_EQ(std::signbit(got), std::signbit(d)) << text;
    EXPECT_EQ(got, d) << text;
    EXPECT_EQ(print(*back), text);
  }
  auto m = parseString("func @c() {\n  %0 = constant {value = nan} : f32\n  %1 = constant {value = -inf} : f32\n  return\n}\n");
  EXPECT_TRUE(std::isnan(m->functions[0]->body.ops[0]->floatAttr("value")));
  EXPECT_EQ(m->functions[0]->body.ops[1]->floatAttr("value"), -std::numeric_limits<double>::infinity());
  std::string text = print(*m);
  EXPECT_NE(text.find("{value = nan}"), std::string::npos) << text;
  EXPECT_NE(text.find("{value = -inf}"), std::string::npos) << text;
}

TEST(IrText, LiteralSpelling) {
  auto m = parseString(
      "func @c() {\n"
      "  %0 = constant {value = 1.0} : f32\n"
      "  %1 = constant {value = 1e-06} : f32\n"
      "  %2 = constant {value = 2.5E+3} : f64\n"
      "  %3 = constant {value = -9223372036854775808} : i64\n"
      "  %4 = permute %3 {order = [], x = [-1, 2]} : i64\n"
      "  return\n"
      "}\n");
  std::string text = print(*m);
  EXPECT_NE(text.find("{value = 1.0}"), std::string::npos) << text;
  EXPECT_NE(text.find("{value = 1e-06}"), std::string::npos) << text;
  EXPECT_NE(text.find("{value = 2500.0}"), std::string::npos) << text;
  EXPECT_NE(text.find("{value = -9223372036854775808}"), std::string::npos) << text;
  EXPECT_NE(text.find("{order = [], x = [-1, 2]}"), std::string::npos) << text;
}

TEST(IrText, StringEscapesRoundTrip) {
  auto m = parseString("func @s(%b: i1) {\n  assert %b {message = \"q\\\"\\\\\\n\\t\\r\\0\\x7f\\xC3\\xa9'\\'\"}\n  return\n}\n");
  const std::string& msg = m->functions[0]->body.ops[0]->strAttr("message");
  EXPECT_EQ(msg, std::string("q\"\\\n\t\r\0\x7f\xc3\xa9''", 12));
  std::string text = print(*m);
  EXPECT_EQ(print(*parseString(text)), text);
  EXPECT_EQ(parseString(text)->functions[0]->body.ops[0]->strAttr("message"), msg);
}

TEST(IrText, ScopesAndComments) {
  // A region sees earlier values of enclosing blocks; names inside a closed region may be reused.
  auto m = parseString(
      "// leading comment\n"
      "func @s(%n: i32) {  // trailing comment\n"
      "  %c = constant {value = 1} : i32\n"
      "  for %c, %n, %c {\n"
      "  ^(%i: i32):\n"
      "    %t = add %i, %c : i32\n"
      "    yield\n"
      "  }\n"
      "  %t = add %n, %c : i32\n"
      "  %i = add %t, %t : i32\n"
      "  return\n"
      "}\n"
      "\n"
      "func @second(%n: i32) {\n"
      "  return\n"
      "}\n");
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(verify(*m->functions[0]), std::nullopt);
  const Op& inner = *m->functions[0]->body.ops[1]->region(0).ops[0];
  EXPECT_EQ(inner.operand(1), m->functions[0]->body.ops[0]->result());
  EXPECT_EQ(m->functions[0]->body.args[0]->name, "n");
  std::string text = print(*m);
  EXPECT_NE(text.find("}\n\nfunc @second(%n: i32) {\n"), std::string::npos) << text;
  EXPECT_EQ(print(*parseString(text)), text);
}

TEST(IrText, OpsCarryTheirLocation) {
  auto m = parseString("func @f(%a: f32) {\n  %0 = add %a, %a : f32\n\t%1 = neg %0 : f32\n  return\n}\n", "dir/x.tir");
  const Op& add = *m->functions[0]->body.ops[0];
  EXPECT_EQ(add.loc.str(), "dir/x.tir:2:8");
  EXPECT_EQ(m->functions[0]->body.ops[1]->loc.str(), "dir/x.tir:3:7");
  EXPECT_EQ(m->functions[0]->loc.str(), "dir/x.tir:1:1");
}

TEST(IrText, DocsExampleParsesAndVerifies) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/docs/ir.md");
  ASSERT_TRUE(in) << "docs/ir.md";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  size_t start = doc.find("```\nfunc @");
  ASSERT_NE(start, std::string::npos);
  start += 4;
  std::string code = doc.substr(start, doc.find("```", start) - start);
  auto m = parseString(code, "ir.md");
  ASSERT_EQ(m->functions.size(), 1u);
  auto d = verify(*m->functions[0]);
  EXPECT_EQ(d, std::nullopt) << (d ? d->render() : "");
  EXPECT_EQ(print(*m), code) << "the example in docs/ir.md is exactly what the printer writes";
}

struct BadText {
  const char* text;
  int line, col;
  const char* message;
};

class ParseErrors : public ::testing::TestWithParam<BadText> {};

TEST_P(ParseErrors, ReportedAtTheToken) {
  const BadText& c = GetParam();
  try {
    parseString(c.text, "bad.tir");
    FAIL() << "parsed: " << c.text;
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diag();
    EXPECT_EQ(d.loc.line, c.line) << d.render();
    EXPECT_EQ(d.loc.col, c.col) << d.render();
    EXPECT_NE(d.message.find(c.message), std::string::npos) << d.render();
    EXPECT_EQ(d.loc.file->name, "bad.tir");
    EXPECT_NE(d.render().find("\n  "), std::string::npos) << "render shows the source line: " << d.render();
  }
}

#define F(body) "func @f(%a: i32, %b: f32) {\n" body "  return\n}\n"
INSTANTIATE_TEST_SUITE_P(
    IrText, ParseErrors,
    ::testing::Values(
        BadText{F("  %0 = frob %a : i32\n"), 2, 8, "unknown op 'frob'"},
        BadText{F("  %0 = add %a, %zz : i32\n"), 2, 16, "unknown value '%zz'"},
        BadText{F("  %0 = add %a, %a : i32\n  %0 = add %a, %a : i32\n"), 3, 3, "redefinition of '%0'"},
        BadText{F("  %a = add %a, %a : i32\n"), 2, 3, "redefinition of '%a'"},
        BadText{F("  %x, %x = add %a, %a : i32, i32\n"), 2, 7, "redefinition of '%x'"},
        BadText{F("  %0 = add %a, %a : i33\n"), 2, 21, "unknown type 'i33'"},
        BadText{F("  %0 = add %a, %a : tensor<4xf32\n"), 2, 33, "expected '>'"},
        BadText{F("  %0 = add %a, %a : tensor<0xf32>\n"), 2, 28, "must be positive"},
        BadText{F("  %0 = add %a, %a : tensor<f32>\n"), 2, 28, "expected a tensor dimension"},
        BadText{F("  %0 = add %a, %a : ptr<tensor<4xf32>>\n"), 2, 25, "scalar pointee"},
        BadText{F("  %0 = add %a, %a : tensor<99999999999x4xf32>\n"), 2, 28, "too large"},
        BadText{F("  %0 = add %a, %a : tensor<65536x65536x2xf32>\n"), 2, 40, "too many elements"},
        BadText{F("  %0 = add %a, %a\n"), 3, 3, "expected ':'"},
        BadText{F("  %0 = add %a, %a : i32, i32\n"), 2, 19, "1 result name(s) but 2"},
        BadText{F("  store %a, %a : i32\n"), 2, 16, "0 result name(s) but 1"},
        BadText{F("  %0 = add %a, %a : i32 {\n  }\n"), 2, 25, "'add' takes 0 region(s)"},
        BadText{F("  for %a, %a, %a\n"), 3, 3, "'for' takes 1 region(s)"},
        BadText{F("  if %a {\n    yield\n  }\n"), 5, 3, "'if' takes 2 region(s), found 'return'"},
        BadText{F("  if %a {\n    yield\n  } {\n    yield\n  } {\n  }\n"), 6, 5, "'if' takes 2 region(s)"},
        BadText{F("  for %a, %a, %a { yield\n  }\n"), 2, 18, "must be the last token"},
        BadText{F("  %0 = constant {value = } : i32\n"), 2, 26, "expected an attribute value"},
        BadText{F("  %0 = constant {value = 1, value = 2} : i32\n"), 2, 29, "duplicate attribute"},
        BadText{F("  %0 = constant {value = 99999999999999999999} : i32\n"), 2, 26, "out of range"},
        BadText{F("  %0 = constant {value = 1e999} : f64\n"), 2, 26, "out of range"},
        BadText{F("  %0 = constant {value = -foo} : f64\n"), 2, 27, "expected 'inf' or 'nan'"},
        BadText{F("  %0 = constant {value = [1, 2.0]} : f64\n"), 2, 30, "expected an integer"},
        BadText{F("  assert %a {message = \"abc}\n"), 2, 24, "unterminated string"},
        BadText{F("  assert %a {message = \"a\\qc\"}\n"), 2, 26, "unknown escape"},
        BadText{F("  assert %a {message = \"\\x4\"}\n"), 2, 25, "two hex digits"},
        BadText{F("  %0 = add %a, %a : i32 %1 = add %a, %a : i32\n"), 2, 25, "expected a new line"},
        BadText{F("  %0 = add %a, # : i32\n"), 2, 16, "unexpected character '#'"},
        BadText{F("  %0 = add %a, % : i32\n"), 2, 16, "expected a name after '%'"},
        BadText{F("  %0 =\n  add %a, %a : i32\n"), 3, 3, "on the line of its results"},
        BadText{"func @f() {\n  return\n", 2, 9, "expected '}'"},
        BadText{"func @f() {\n  return\n}\nfunc @f() {\n  return\n}\n", 4, 6, "redefinition of function '@f'"},
        BadText{"fun @f() {\n}\n", 1, 1, "expected 'func'"},
        BadText{"func @f(%a: i32, %a: i32) {\n}\n", 1, 18, "redefinition of '%a'"},
        BadText{"func @f() { return\n}\n", 1, 11, "must be the last token"},
        BadText{"func @f(%a: i32) {\n  for %a, %a, %a {\n  ^(%a: i32):\n    yield\n  }\n}\n", 3, 5, "redefinition of '%a'"},
        BadText{"func @f(%a: i32) {\n  for %a, %a, %a {\n  ^(%i: i32):\n    %t = add %i, %i : i32\n    yield\n  }\n"
                "  %u = add %t, %t : i32\n}\n", 7, 12, "unknown value '%t'"},
        BadText{"func @f(%a: i32) {\n  %0 = add %0, %a : i32\n}\n", 2, 12, "unknown value '%0'"},
        BadText{"func @f(%a: i32) {\n  %0 = add %a, %a : i32\n  return }\n", 3, 10, "expected a new line before '}'"},
        BadText{"func @f() {\n  return\n}\n\x01", 4, 1, "unexpected character byte 0x01"}));
#undef F

}  // namespace
}  // namespace kiln::ir
