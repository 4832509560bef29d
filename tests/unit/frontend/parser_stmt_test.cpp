// Kernel statements: every statement kind, docstrings, tuple unpacking, elif chains, the def line,
// and the dump of a whole function.
#include "frontend_test_util.h"

namespace kiln::frontend {
namespace {

using test::kernel;
using test::sexpr;

const ast::FunctionDef& parsed(std::unique_ptr<ast::Module>& holder, const std::string& body) {
  holder = test::parse(kernel(body));
  return test::onlyKernel(*holder);
}

TEST(ParserStmt, Assignments) {
  std::unique_ptr<ast::Module> m;
  const ast::FunctionDef& fn = parsed(m,
                                      "    a = 1\n"
                                      "    a, b = f()\n"
                                      "    (c, d) = e, g\n"
                                      "    [p, (q, r)] = s\n"
                                      "    a = b = 0\n"
                                      "    x.y[i] = 2\n"
                                      "    n: tl.constexpr = 4\n"
                                      "    z: int\n");
  ASSERT_EQ(fn.body.size(), 8u);
  const ast::Stmt& s0 = *fn.body[0];
  EXPECT_EQ(s0.kind, ast::StmtKind::Assign);
  EXPECT_EQ(sexpr(s0.targets[0].get()), "a");
  EXPECT_EQ(sexpr(s0.value.get()), "1");
  EXPECT_EQ(sexpr(fn.body[1]->targets[0].get()), "(tuple a b)");
  EXPECT_EQ(sexpr(fn.body[1]->value.get()), "(call f)");
  EXPECT_EQ(sexpr(fn.body[2]->targets[0].get()), "(tuple c d)");
  EXPECT_EQ(fn.body[2]->loc.col, 5);
  EXPECT_EQ(sexpr(fn.body[2]->value.get()), "(tuple e g)");
  EXPECT_EQ(sexpr(fn.body[3]->targets[0].get()), "(list p (tuple q r))");
  const ast::Stmt& chained = *fn.body[4];
  ASSERT_EQ(chained.targets.size(), 2u);
  EXPECT_EQ(sexpr(chained.targets[0].get()), "a");
  EXPECT_EQ(sexpr(chained.targets[1].get()), "b");
  EXPECT_EQ(sexpr(chained.value.get()), "0");
  EXPECT_EQ(sexpr(fn.body[5]->targets[0].get()), "(sub x.y i)");
  const ast::Stmt& ann = *fn.body[6];
  EXPECT_EQ(ann.kind, ast::StmtKind::AnnAssign);
  EXPECT_EQ(sexpr(ann.targets[0].get()), "n");
  EXPECT_EQ(sexpr(ann.annotation.get()), "tl.constexpr");
  EXPECT_EQ(sexpr(ann.value.get()), "4");
  EXPECT_EQ(fn.body[7]->kind, ast::StmtKind::AnnAssign);
  EXPECT_EQ(fn.body[7]->value, nullptr);
}

TEST(ParserStmt, AugmentedAssignmentAllOperators) {
  const char* ops[] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"};
  std::string body;
  for (const char* op : ops) body += std::string("    x ") + op + "= y\n";
  std::unique_ptr<ast::Module> m;
  const ast::FunctionDef& fn = parsed(m, body);
  ASSERT_EQ(fn.body.size(), std::size(ops));
  for (size_t i = 0; i < std::size(ops); ++i) {
    EXPECT_EQ(fn.body[i]->kind, ast::StmtKind::AugAssign);
    EXPECT_STREQ(ast::spelling(fn.body[i]->augOp), ops[i]);
    EXPECT_EQ(sexpr(fn.body[i]->targets[0].get()), "x");
    EXPECT_EQ(sexpr(fn.body[i]->value.get()), "y");
  }
}

TEST(ParserStmt, ControlFlow) {
  std::unique_ptr<ast::Module> m;
  const ast::FunctionDef& fn = parsed(m,
                                      "    if a:\n"
                                      "        pass\n"
                                      "    elif b:\n"
                                      "        x = 1\n"
                                      "    elif c: x = 2; y = 3\n"
                                      "    else:\n"
                                      "        return\n"
                                      "    for i in range(0, n, 2):\n"
                                      "        continue\n"
                                      "    else:\n"
                                      "        break\n"
                                      "    for i, (j, k) in tl.static_range(4): pass\n"
                                      "    while i < n:\n"
                                      "        i += 1\n"
                                      "    else:\n"
                                      "        pass\n");
  ASSERT_EQ(fn.body.size(), 4u);
  const ast::Stmt& ifs = *fn.body[0];
  EXPECT_EQ(ifs.kind, ast::StmtKind::If);
  EXPECT_EQ(sexpr(ifs.value.get()), "a");
  ASSERT_EQ(ifs.body.size(), 1u);
  EXPECT_EQ(ifs.body[0]->kind, ast::StmtKind::Pass);
  ASSERT_EQ(ifs.orelse.size(), 1u);  // elif -> a nested If
  const ast::Stmt& elif1 = *ifs.orelse[0];
  EXPECT_EQ(elif1.kind, ast::StmtKind::If);
  EXPECT_EQ(elif1.loc.line, 6);
  EXPECT_EQ(elif1.loc.col, 5);
  EXPECT_EQ(sexpr(elif1.value.get()), "b");
  ASSERT_EQ(elif1.orelse.size(), 1u);
  const ast::Stmt& elif2 = *elif1.orelse[0];
  EXPECT_EQ(elif2.body.size(), 2u);  // `x = 2; y = 3` on the header's line
  ASSERT_EQ(elif2.orelse.size(), 1u);
  EXPECT_EQ(elif2.orelse[0]->kind, ast::StmtKind::Return);
  EXPECT_EQ(elif2.orelse[0]->value, nullptr);

  const ast::Stmt& loop = *fn.body[1];
  EXPECT_EQ(loop.kind, ast::StmtKind::For);
  EXPECT_EQ(sexpr(loop.targets[0].get()), "i");
  EXPECT_EQ(sexpr(loop.value.get()), "(call range 0 n 2)");
  EXPECT_EQ(loop.body[0]->kind, ast::StmtKind::Continue);
  EXPECT_EQ(loop.orelse[0]->kind, ast::StmtKind::Break);
  EXPECT_EQ(sexpr(fn.body[2]->targets[0].get()), "(tuple i (tuple j k))");
  const ast::Stmt& wl = *fn.body[3];
  EXPECT_EQ(wl.kind, ast::StmtKind::While);
  EXPECT_EQ(sexpr(wl.value.get()), "(cmp i < n)");
  EXPECT_EQ(wl.body[0]->kind, ast::StmtKind::AugAssign);
  EXPECT_EQ(wl.orelse[0]->kind, ast::StmtKind::Pass);
}

TEST(ParserStmt, ReturnAssertExpr) {
  std::unique_ptr<ast::Module> m;
  const ast::FunctionDef& fn = parsed(m,
                                      "    return a, b\n"
                                      "    return (a, b)\n"
                                      "    return x + 1\n"
                                      "    assert x > 0, \"x must be positive\"\n"
                                      "    assert y\n"
                                      "    tl.store(p, v)\n"
                                      "    'not a docstring'\n");
  ASSERT_EQ(fn.body.size(), 7u);
  EXPECT_EQ(sexpr(fn.body[0]->value.get()), "(tuple a b)");
  EXPECT_EQ(sexpr(fn.body[1]->value.get()), "(tuple a b)");
  EXPECT_EQ(sexpr(fn.body[2]->value.get()), "(+ x 1)");
  EXPECT_EQ(fn.body[3]->kind, ast::StmtKind::Assert);
  EXPECT_EQ(sexpr(fn.body[3]->value.get()), "(cmp x > 0)");
  EXPECT_EQ(sexpr(fn.body[3]->msg.get()), "'x must be positive'");
  EXPECT_EQ(fn.body[4]->msg, nullptr);
  EXPECT_EQ(fn.body[5]->kind, ast::StmtKind::ExprStmt);
  EXPECT_EQ(fn.body[6]->kind, ast::StmtKind::ExprStmt);  // only the first statement is a docstring
  EXPECT_TRUE(fn.docstring.empty());
}

TEST(ParserStmt, Docstrings) {
  auto m = test::parse(kernel("    \"\"\"Adds two vectors.\n\n    Long text.\"\"\"\n    x = 1\n"));
  const ast::FunctionDef& fn = test::onlyKernel(*m);
  EXPECT_EQ(fn.docstring, "Adds two vectors.\n\n    Long text.");
  ASSERT_EQ(fn.body.size(), 1u);
  EXPECT_EQ(fn.body[0]->kind, ast::StmtKind::Assign);

  auto only = test::parse(kernel("    'doc'\n"));
  EXPECT_EQ(test::onlyKernel(*only).docstring, "doc");
  EXPECT_TRUE(test::onlyKernel(*only).body.empty());
  auto oneLine = test::parse("import triton\n@triton.jit\ndef k(x): 'doc'; return x\n");
  EXPECT_EQ(test::onlyKernel(*oneLine).docstring, "doc");
  EXPECT_EQ(test::onlyKernel(*oneLine).body.size(), 1u);
}

TEST(ParserStmt, DefLine) {
  auto m = test::parse("import triton\n@triton.jit\ndef k(a, b: int, c=2, D: tl.constexpr = 64,) -> None:\n  pass\n");
  const ast::FunctionDef& fn = test::onlyKernel(*m);
  EXPECT_EQ(fn.name, "k");
  EXPECT_EQ(fn.loc.line, 3);
  EXPECT_EQ(fn.loc.col, 1);
  ASSERT_EQ(fn.params.size(), 4u);
  EXPECT_EQ(fn.params[0].name, "a");
  EXPECT_EQ(fn.params[0].loc.col, 7);
  EXPECT_EQ(fn.params[0].annotation, nullptr);
  EXPECT_EQ(sexpr(fn.params[1].annotation.get()), "int");
  EXPECT_EQ(sexpr(fn.params[2].defaultValue.get()), "2");
  EXPECT_EQ(sexpr(fn.params[3].annotation.get()), "tl.constexpr");
  EXPECT_EQ(sexpr(fn.params[3].defaultValue.get()), "64");
  EXPECT_EQ(sexpr(fn.returns.get()), "None");
  ASSERT_EQ(fn.decorators.size(), 1u);
  EXPECT_EQ(sexpr(fn.decorators[0].get()), "triton.jit");
}

TEST(ParserStmt, DumpOfAFunction) {
  auto m = test::parse(
      "import triton\n"
      "import triton.language as tl\n"
      "@triton.jit\n"
      "def add(x_ptr, n, BLOCK: tl.constexpr):\n"
      "    \"\"\"Doc.\"\"\"\n"
      "    offs = tl.program_id(0) * BLOCK\n"
      "    if offs < n:\n"
      "        offs += 1\n"
      "    else:\n"
      "        return\n"
      "    for i in range(n):\n"
      "        assert i, 'm'\n");
  EXPECT_EQ(dump(test::onlyKernel(*m)),
            "FunctionDef add @4:1\n"
            "  decorator: Attribute jit @3:2\n"
            "    Name triton @3:2\n"
            "  Param x_ptr @4:9\n"
            "  Param n @4:16\n"
            "  Param BLOCK @4:19\n"
            "    annotation: Attribute constexpr @4:26\n"
            "      Name tl @4:26\n"
            "  docstring: \"Doc.\"\n"
            "  body:\n"
            "    Assign @6:5\n"
            "      target: Name offs @6:5\n"
            "      value: BinOp * @6:12\n"
            "        Call @6:12\n"
            "          Attribute program_id @6:12\n"
            "            Name tl @6:12\n"
            "          Int 0 @6:26\n"
            "        Name BLOCK @6:31\n"
            "    If @7:5\n"
            "      test: Compare < @7:8\n"
            "        Name offs @7:8\n"
            "        Name n @7:15\n"
            "      body:\n"
            "        AugAssign += @8:9\n"
            "          target: Name offs @8:9\n"
            "          value: Int 1 @8:17\n"
            "      orelse:\n"
            "        Return @10:9\n"
            "    For @11:5\n"
            "      target: Name i @11:9\n"
            "      iter: Call @11:14\n"
            "        Name range @11:14\n"
            "        Name n @11:20\n"
            "      body:\n"
            "        Assert @12:9\n"
            "          test: Name i @12:16\n"
            "          msg: Str \"m\" @12:19\n");
}

TEST(ParserStmt, CommentsBlankLinesAndContinuations) {
  std::unique_ptr<ast::Module> m;
  const ast::FunctionDef& fn = parsed(m,
                                      "    # leading comment\n"
                                      "\n"
                                      "    x = (1 +\n"
                                      "  2)  # trailing\n"
                                      "        # odd indentation in a comment line is fine\n"
                                      "    y = x \\\n"
                                      "        + 3\n"
                                      "    z = 1; w = 2;\n");
  ASSERT_EQ(fn.body.size(), 4u);
  EXPECT_EQ(sexpr(fn.body[0]->value.get()), "(+ 1 2)");
  EXPECT_EQ(sexpr(fn.body[1]->value.get()), "(+ x 3)");
  EXPECT_EQ(fn.body[3]->loc.col, 12);
}

TEST(ParserStmt, BlocksUpToTheLimit) {
  // The function body and 99 nested ifs: 100 blocks, the most allowed.
  std::string body;
  for (int i = 1; i <= 99; ++i) body += std::string(4 * i, ' ') + "if x:\n";
  body += std::string(400, ' ') + "pass\n";
  auto m = test::parse(kernel(body));
  const ast::Stmt* s = test::onlyKernel(*m).body[0].get();
  int depth = 1;
  while (s->kind == ast::StmtKind::If) s = s->body[0].get(), ++depth;
  EXPECT_EQ(depth, 100);
}

}  // namespace
}  // namespace kiln::frontend
