// A kernel's definition cut out of a larger text (SourceFile::block), as the Python package hands
// nested and exec()'d kernels over: indented or not, its lines keep their numbers and columns.
#include "frontend_test_util.h"

namespace kiln::frontend {
namespace {

std::unique_ptr<ast::Module> parseBlock(const std::string& text) {
  return parseModule(makeSource("outer.py", text, /*block=*/true));
}

TEST(ParserBlock, AnIndentedDefIsTheKernelAtItsPlace) {
  auto m = parseBlock("\n\n\n    def k(x, B: tl.constexpr):\n        if x:\n            y = 1\n        return x\n");
  const ast::FunctionDef& fn = test::onlyKernel(*m);
  EXPECT_EQ(fn.name, "k");
  EXPECT_EQ(fn.loc.line, 4);
  EXPECT_EQ(fn.body.size(), 2u);
  EXPECT_EQ(fn.body[0]->loc.line, 5);
  EXPECT_EQ(fn.body[0]->loc.col, 9);
}

TEST(ParserBlock, ATopLevelDefNeedsNoDecorator) {
  auto m = parseBlock("\n\ndef k(x):\n    return x\n");
  EXPECT_EQ(test::onlyKernel(*m).loc.line, 3);
}

TEST(ParserBlock, ErrorsKeepTheLargerTextsPositions) {
  try {
    parseBlock("\n        def k(x):\n            y = (1 +\n");
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diag().loc.line, 3);
  }
  // Without the block flag the same text is an indented top level, as Python says.
  EXPECT_EQ(test::parseError("    def k(x):\n        return x\n"), (test::Err{1, 5, "unexpected indent"}));
}

}  // namespace
}  // namespace kiln::frontend
