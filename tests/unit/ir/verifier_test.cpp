// Verifier tests: every rule rejects a bad op at that op's location, valid IR passes, and broken
// hand-built IR (dominance, stale links, missing regions) is caught.
#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir_test_util.h"

namespace kiln::ir {
namespace {

const char* kHeader =
    "func @f(%p: ptr<f32>, %n: i32, %b: i1, %x: f32, %t: tensor<4xf32>, %ti: tensor<4xi32>, %tb: tensor<4xi1>, "
    "%tp: tensor<4xptr<f32>>, %m: tensor<4x8xf32>, %h: tensor<16x16xf16>, %acc: tensor<16x16xf32>, %l: i64) {\n";

std::optional<Diagnostic> verifyBody(const std::string& body) {
  auto m = testing::parseString(std::string(kHeader) + body + "\n  return\n}\n", "v.tir");
  return verify(*m->functions[0]);
}

TEST(IrVerifier, EverythingIsValid) {
  auto m = testing::buildEverything();
  auto d = verify(*m->functions[0]);
  EXPECT_EQ(d, std::nullopt) << (d ? d->render() + print(*m) : "");
}

TEST(IrVerifier, ValidCorners) {
  const char* ok[] = {
      "  %0 = reduce %t {axis = 0, kind = \"sum\"} : f64",  // sum may widen
      "  %0 = reduce %m {axis = 1, kind = \"argmin\"} : tensor<4xi32>",
      "  %0 = select %b, %t, %t : tensor<4xf32>",          // scalar condition
      "  %0 = multiple_of %n {values = [16]} : i32",
      "  %0 = load %p, %b, %x : f32\n  store %p, %0, %b",
      "  %0 = bitcast %p : i64\n  %1 = bitcast %0 : ptr<f16>",
      "  %0 = expand_dims %x {axis = 0} : tensor<1xf32>",
      "  %0 = cmp %tp, %tp {pred = \"eq\"} : tensor<4xi1>",
      "  %0 = constant {value = 2.0} : tensor<3x2x16xf16>\n  %1 = constant {value = 2.0} : tensor<3x16x4xf16>\n"
      "  %2 = constant {value = 0.0} : tensor<3x2x4xf32>\n  %3 = dot %0, %1, %2 : tensor<3x2x4xf32>",  // batched
      "  %0 = constant {value = 1.0} : tensor<16x8xf16>\n  %1 = constant {value = 0} : tensor<16x8xi32>\n"
      "  %2 = dot %h, %0, %1 {input_precision = \"tf32\"} : tensor<16x8xi32>",
      "  %0 = arange {end = -4, start = -8} : tensor<4xi32>",
      "  %0 = cast %t {rounding = \"rtz\"} : tensor<4xf16>\n  %1 = sqrt %0 {rounding = \"rn\"} : tensor<4xf16>",
      "  %0 = shl %tb, %tb : tensor<4xi1>",
      "  %0 = permute %x {order = []} : f32",
      "  for %l, %l, %l {\n  ^(%i: i64):\n    yield\n  }",
      "  while %n, %x {\n  ^(%i: i32, %y: f32):\n    condition %b\n  } {\n    yield %n, %x\n  }",
      "  %0 = for %n, %n, %n, %x {num_stages = 2, warp_specialize = 1} : f32 {\n  ^(%i: i32, %a: f32):\n"
      "    %1 = if %b : f32 {\n      yield %a\n    } {\n      %2 = add %a, %x : f32\n      yield %2\n    }\n"
      "    yield %1\n  }",
  };
  for (const char* body : ok) {
    auto d = verifyBody(body);
    EXPECT_EQ(d, std::nullopt) << body << "\n" << (d ? d->render() : "");
  }
}

struct Bad {
  const char* body;
  int lineOffset;  // of the offending op, from the first body line
  const char* message;
};

class VerifierErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(VerifierErrors, ReportedAtTheOp) {
  const Bad& c = GetParam();
  auto d = verifyBody(c.body);
  ASSERT_TRUE(d.has_value()) << "verified: " << c.body;
  EXPECT_EQ(d->kind, Diagnostic::Kind::Error);
  EXPECT_EQ(d->loc.file ? d->loc.file->name : "", "v.tir");
  EXPECT_EQ(d->loc.line, 2 + c.lineOffset) << d->render();
  EXPECT_NE(d->message.find(c.message), std::string::npos) << d->render();
}

INSTANTIATE_TEST_SUITE_P(
    IrVerifier, VerifierErrors,
    ::testing::Values(
        Bad{"  %0 = add %x : f32", 0, "takes 2 operand(s), got 1"},
        Bad{"  %0 = load %p, %b, %x, %x : f32", 0, "takes a pointer, a mask and other, no more"},
        Bad{"  store %p, %x, %b, %x", 0, "takes a pointer, a value and a mask, no more"},
        Bad{"  store %p, %x, %b {tma = 1}", 0, "tma must be 0, got 1"},
        Bad{"  %0, %1 = add %x, %x : f32, f32", 0, "has 1 result(s), got 2"},
        Bad{"  %0 = program_id : i32", 0, "needs attribute 'axis'"},
        Bad{"  %0 = program_id {axis = \"0\"} : i32", 0, "attribute 'axis' must be an integer"},
        Bad{"  %0 = permute %t {order = 0} : tensor<4xf32>", 0, "attribute 'order' must be a list of integers"},
        Bad{"  %0 = add %x, %x {foo = 1} : f32", 0, "has no attribute 'foo'"},
        Bad{"  for %n, %n, %n {num_stage = 1} {\n  ^(%i: i32):\n    yield\n  }", 0, "has no attribute 'num_stage'"},
        Bad{"  %0 = add %x, %n : f32", 0, "needs operands and result of one type, got (f32, i32) -> f32"},
        Bad{"  %0 = and %x, %x : f32", 0, "takes integers or i1"},
        Bad{"  %0 = not %t : tensor<4xf32>", 0, "takes integers or i1"},
        Bad{"  %0 = exp %n : i32", 0, "takes floats"},
        Bad{"  %0 = fma %n, %n, %n : i32", 0, "takes floats"},
        Bad{"  %0 = add %p, %p : ptr<f32>", 0, "does not take pointers"},
        Bad{"  %0 = max %x, %x {propagate_nan = 2} : f32", 0, "propagate_nan must be 0 or 1"},
        Bad{"  %0 = div %x, %x {rounding = \"rz\"} : f32", 0, "rounding must be one of rn"},
        Bad{"  %0 = cmp %x, %x {pred = \"lt\"} : f32", 0, "produces i1"},
        Bad{"  %0 = cmp %x, %n {pred = \"lt\"} : i1", 0, "needs operands of one type"},
        Bad{"  %0 = cmp %x, %x {pred = \"lte\"} : i1", 0, "pred must be one of eq, ne, lt, le, gt, ge"},
        Bad{"  %0 = select %n, %x, %x : f32", 0, "condition must be i1"},
        Bad{"  %0 = select %tb, %x, %x : f32", 0, "condition must be i1 of the result's shape"},
        Bad{"  %0 = select %b, %x, %n : f32", 0, "needs both values of the result type"},
        Bad{"  %0 = splat %t : tensor<4xf32>", 0, "takes a scalar"},
        Bad{"  %0 = splat %n : tensor<4xf32>", 0, "cannot produce"},
        Bad{"  %0 = broadcast %t : tensor<8xf32>", 0, "cannot broadcast"},
        Bad{"  %0 = broadcast %x : tensor<8xf32>", 0, "cannot broadcast"},
        Bad{"  %0 = expand_dims %t {axis = 2} : tensor<4x1xf32>", 0, "out of range"},
        Bad{"  %0 = expand_dims %t {axis = -1} : tensor<4x1xf32>", 0, "out of range"},
        Bad{"  %0 = expand_dims %t {axis = 0} : tensor<4x1xf32>", 0, "produces tensor<1x4xf32>"},
        Bad{"  %0 = reshape %m : tensor<16xf32>", 0, "cannot reshape"},
        Bad{"  %0 = reshape %m : tensor<32xi32>", 0, "cannot reshape"},
        Bad{"  %0 = permute %m {order = [0, 0]} : tensor<4x8xf32>", 0, "not a permutation"},
        Bad{"  %0 = permute %m {order = [1, 0, 2]} : tensor<4x8xf32>", 0, "not a permutation"},
        Bad{"  %0 = permute %m {order = [1, 0]} : tensor<4x8xf32>", 0, "produces tensor<8x4xf32>"},
        Bad{"  %0 = cast %t : f32", 0, "cannot change the shape"},
        Bad{"  %0 = cast %p : i64", 0, "does not convert pointers"},
        Bad{"  %0 = cast %x {rounding = \"up\"} : f16", 0, "rounding must be one of rtne, rtz"},
        Bad{"  %0 = bitcast %x : i64", 0, "same shape and bit width"},
        Bad{"  %0 = constant {value = 1} : f32", 0, "needs a float value"},
        Bad{"  %0 = constant {value = 1.0} : i32", 0, "needs an integer value"},
        Bad{"  %0 = constant {value = \"1\"} : i32", 0, "attribute 'value' must be a number"},
        Bad{"  %0 = constant {value = 0} : ptr<f32>", 0, "cannot produce a pointer"},
        Bad{"  %0 = program_id {axis = 0} : i64", 0, "produces an i32 scalar"},
        Bad{"  %0 = num_programs {axis = 3} : i32", 0, "axis must be 0, 1 or 2"},
        Bad{"  %0 = arange {end = 12, start = 0} : tensor<12xi32>", 0, "power of two"},
        Bad{"  %0 = arange {end = 0, start = 4} : tensor<4xi32>", 0, "needs start < end"},
        Bad{"  %0 = arange {end = 4294967296, start = 0} : tensor<4xi32>", 0, "needs start < end within i32"},
        Bad{"  %0 = arange {end = 8, start = 0} : tensor<4xi32>", 0, "produces tensor<8xi32>"},
        Bad{"  %0 = ptr_add %n, %n : i32", 0, "takes a pointer first"},
        Bad{"  %0 = ptr_add %tp, %n : tensor<4xptr<f32>>", 0, "integer offset of the pointer's shape"},
        Bad{"  %0 = ptr_add %p, %x : ptr<f32>", 0, "integer offset"},
        Bad{"  %0 = ptr_add %p, %n : ptr<f16>", 0, "produces the pointer type ptr<f32>"},
        Bad{"  %0 = load %x : f32", 0, "takes a pointer"},
        Bad{"  %0 = load %p : f16", 0, "produces f32"},
        Bad{"  %0 = load %tp : f32", 0, "produces tensor<4xf32>"},
        Bad{"  %0 = load %tp, %ti : tensor<4xf32>", 0, "mask must be tensor<4xi1>"},
        Bad{"  %0 = load %tp, %tb, %ti : tensor<4xf32>", 0, "other must be tensor<4xf32>"},
        Bad{"  store %tp, %ti", 0, "needs a value of type tensor<4xf32>"},
        Bad{"  store %p, %x, %tb", 0, "mask must be i1"},
        Bad{"  store %n, %x", 0, "takes a pointer"},
        Bad{"  %0 = reduce %t {axis = 0, kind = \"prod\"} : f32", 0, "kind must be one of"},
        Bad{"  %0 = reduce %t {axis = 1, kind = \"sum\"} : f32", 0, "out of range"},
        Bad{"  %0 = reduce %x {axis = 0, kind = \"sum\"} : f32", 0, "takes a non-pointer tensor"},
        Bad{"  %0 = reduce %m {axis = 0, kind = \"max\"} : tensor<4xf32>", 0, "has shape [8]"},
        Bad{"  %0 = reduce %t {axis = 0, kind = \"argmax\"} : f32", 0, "produces i32 indices"},
        Bad{"  %0 = reduce %t {axis = 0, kind = \"max\"} : f64", 0, "keeps the element type"},
        Bad{"  %0 = dot %h, %m, %acc : tensor<16x16xf32>", 0, "needs a[M,K]"},
        Bad{"  %0 = dot %t, %t, %t : tensor<4xf32>", 0, "needs a[M,K]"},
        Bad{"  %0 = dot %h, %acc, %acc : tensor<16x16xf32>", 0, "a and b of one non-pointer element type"},
        Bad{"  %0 = dot %h, %h, %acc : tensor<16x16xf16>", 0, "produces the accumulator type"},
        Bad{"  %0 = dot %h, %h, %acc {input_precision = \"fast\"} : tensor<16x16xf32>", 0, "input_precision must be"},
        Bad{"  %0 = multiple_of %m {values = [16]} : tensor<4x8xf32>", 0, "values needs 2 entries"},
        Bad{"  %0 = max_contiguous %t {values = [4]} : tensor<4xf16>", 0, "is an identity"},
        Bad{"  for %x, %x, %x {\n  ^(%i: f32):\n    yield\n  }", 0, "bounds must be scalar integers"},
        Bad{"  for %b, %b, %b {\n  ^(%i: i1):\n    yield\n  }", 0, "bounds must be scalar integers"},
        Bad{"  for %n, %l, %n {\n  ^(%i: i32):\n    yield\n  }", 0, "need one type, got (i32, i64, i32)"},
        Bad{"  %0 = for %n, %n, %n, %x : i32 {\n  ^(%i: i32, %a: f32):\n    yield %a\n  }", 0,
            "results (i32) must match the initial values (f32)"},
        Bad{"  for %n, %n, %n {\n  ^(%i: i64):\n    yield\n  }", 0, "body arguments must be"},
        Bad{"  for %n, %n, %n {\n    yield\n  }", 0, "body arguments must be"},
        Bad{"  %0 = for %n, %n, %n, %x : f32 {\n  ^(%i: i32, %a: f32):\n    yield %i\n  }", 2,
            "passes (i32) where the body of 'for' needs (f32)"},
        Bad{"  for %n, %n, %n {\n  ^(%i: i32):\n    %0 = add %i, %i : i32\n  }", 0, "the body must end with 'yield'"},
        Bad{"  if %n {\n    yield\n  } {\n    yield\n  }", 0, "condition must be a scalar i1"},
        Bad{"  if %tb {\n    yield\n  } {\n    yield\n  }", 0, "condition must be a scalar i1"},
        Bad{"  %0 = if %b : f32 {\n    yield %x\n  } {\n    yield %n\n  }", 3,
            "passes (i32) where the else region of 'if' needs (f32)"},
        Bad{"  if %b {\n  } {\n    yield\n  }", 0, "the then region must end with 'yield'"},
        Bad{"  if %b {\n  ^(%i: i32):\n    yield\n  } {\n    yield\n  }", 0, "regions take no arguments"},
        Bad{"  while {\n    condition %n\n  } {\n    yield\n  }", 1, "condition must be a scalar i1"},
        Bad{"  while %n {\n  ^(%i: i64):\n    condition %b\n  } {\n    yield %n\n  }", 0,
            "before region arguments must match"},
        Bad{"  while {\n    yield\n  } {\n    yield\n  }", 0, "the before region must end with 'condition'"},
        Bad{"  %0 = while %n : f32 {\n  ^(%i: i32):\n    condition %b, %i\n  } {\n  ^(%j: i32):\n    yield %j\n  }", 0,
            "results (f32) must match the values passed by 'condition' (i32)"},
        Bad{"  %0 = while %n : i32 {\n  ^(%i: i32):\n    condition %b, %i\n  } {\n  ^(%j: i64):\n    yield %n\n  }", 0,
            "after region arguments must match"},
        Bad{"  while %n {\n  ^(%i: i32):\n    condition %b\n  } {\n    yield %x\n  }", 4,
            "passes (f32) where the after region of 'while' needs (i32)"},
        Bad{"  yield", 0, "must end the body of 'for', a region of 'if', 'warp_partition', 'reduce_combine' or 'scan', or the after region of 'while'"},
        Bad{"  for %n, %n, %n {\n  ^(%i: i32):\n    yield\n    yield\n  }", 2, "must be the last op of its region"},
        Bad{"  for %n, %n, %n {\n  ^(%i: i32):\n    condition %b\n    yield\n  }", 2, "must end the before region of 'while'"},
        Bad{"  while {\n    condition %b\n    condition %b\n  } {\n    yield\n  }", 1, "must be the last op of its region"},
        Bad{"  if %b {\n    return\n    yield\n  } {\n    yield\n  }", 1, "not inside a region"},
        Bad{"  return\n  %0 = add %x, %x : f32", 0, "must be the last op of the function body"},
        Bad{"  assert %n {message = \"m\"}", 0, "condition must be i1"},
        Bad{"  assert %b", 0, "needs attribute 'message'"},
        Bad{"  assert %b {message = 1}", 0, "attribute 'message' must be a string"}));

TEST(IrVerifier, FunctionMustEndWithReturn) {
  auto m = testing::parseString("func @f(%x: f32) {\n  %0 = add %x, %x : f32\n}\nfunc @g() {\n}\n", "r.tir");
  auto d = verify(*m->functions[0]);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.str(), "r.tir:2:8");
  EXPECT_NE(d->message.find("'@f' must end with 'return'"), std::string::npos) << d->message;
  d = verify(*m->functions[1]);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.str(), "r.tir:4:1");
}

// Builds @f(%a: f32) { %0 = add %a, %a; %1 = neg %0; return } for the hand-broken cases below.
std::unique_ptr<Module> small() {
  auto m = std::make_unique<Module>();
  Function& f = m->addFunction("f");
  Value* a = f.body.addArg(Type::scalar(Scalar::F32), "a");
  Builder b(f.body);
  Value* s = b.create1(Opcode::Add, {a, a}, a->type, {}, SourceLoc{nullptr, 0, 0});
  b.create1(Opcode::Neg, {s}, a->type);
  b.create(Opcode::Return, {}, {});
  return m;
}

TEST(IrVerifier, UseBeforeDefinition) {
  auto m = small();
  Function& f = *m->functions[0];
  std::swap(f.body.ops[0], f.body.ops[1]);  // neg now uses %0 before the add defines it
  auto d = verify(f);
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("'neg' operand #0 is not defined before this use"), std::string::npos) << d->message;
}

TEST(IrVerifier, ValueOfAnotherFunction) {
  auto m = small();
  auto other = small();
  m->functions[0]->body.ops[1]->operands[0] = other->functions[0]->body.ops[0]->result();
  auto d = verify(*m->functions[0]);
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("not defined before this use"), std::string::npos) << d->message;
}

TEST(IrVerifier, RegionValuesDoNotEscape) {
  auto m = testing::parseString(
      "func @f(%n: i32) {\n  for %n, %n, %n {\n  ^(%i: i32):\n    %0 = add %i, %i : i32\n    yield\n  }\n"
      "  %1 = add %n, %n : i32\n  return\n}\n");
  Function& f = *m->functions[0];
  Op& loop = *f.body.ops[0];
  Op& after = *f.body.ops[1];
  after.operands[0] = loop.region(0).ops[0]->result();  // a value of the closed region
  auto d = verify(f);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.line, 7);
  after.operands[0] = loop.region(0).arg(0);  // the induction variable outside its region
  d = verify(f);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.line, 7);
}

TEST(IrVerifier, ResultUsedInsideItsOwnRegion) {
  auto m = testing::parseString(
      "func @f(%n: i32, %x: f32) {\n  %0 = for %n, %n, %n, %x : f32 {\n  ^(%i: i32, %a: f32):\n"
      "    %1 = add %a, %a : f32\n    yield %1\n  }\n  return\n}\n");
  Function& f = *m->functions[0];
  Op& loop = *f.body.ops[0];
  loop.region(0).ops[0]->operands[0] = loop.result();
  auto d = verify(f);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.line, 4);
}

TEST(IrVerifier, StaleLinksAndMissingPieces) {
  {
    auto m = small();
    auto op = std::make_unique<Op>(Opcode::Neg, SourceLoc{});
    op->operands.push_back(m->functions[0]->body.arg(0));
    op->addResult(Type::scalar(Scalar::F32));
    m->functions[0]->body.ops.insert(m->functions[0]->body.ops.begin(), std::move(op));  // parent not set
    auto d = verify(*m->functions[0]);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("stale parent link"), std::string::npos) << d->message;
  }
  {
    auto m = small();
    m->functions[0]->body.ops[1]->operands[0] = nullptr;
    auto d = verify(*m->functions[0]);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("operand #0 is null"), std::string::npos) << d->message;
  }
  {
    auto m = small();
    Function& f = *m->functions[0];
    auto op = std::make_unique<Op>(Opcode::If, SourceLoc{});
    op->operands.push_back(f.body.arg(0));
    f.body.insert(0, std::move(op));  // no regions
    auto d = verify(f);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("'if' has 2 region(s), got 0"), std::string::npos) << d->message;
  }
  {
    auto m = small();
    Function& f = *m->functions[0];
    std::swap(f.body.ops[0]->results[0], f.body.ops[1]->results[0]);  // results owned by the wrong op
    auto d = verify(f);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("stale links"), std::string::npos) << d->message;
  }
  {
    auto m = small();
    m->functions[0]->body.ops[0]->results[0]->type = Type::tensor({0}, Scalar::F32);
    auto d = verify(*m->functions[0]);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("dimensions must be positive"), std::string::npos) << d->message;
  }
}

TEST(IrVerifier, VerifiedAfterClone) {
  auto m = testing::buildEverything();
  auto c = clone(*m->functions[0]);
  EXPECT_EQ(verify(*c), std::nullopt);
  EXPECT_EQ(print(*c), print(*m->functions[0]));
}

}  // namespace
}  // namespace kiln::ir
