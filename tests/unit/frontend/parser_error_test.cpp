// Errors: every construct outside the kernel subset, syntax errors in Python's words, and the
// nesting limits, each with its exact line:col and message.
#include "frontend_test_util.h"

namespace kiln::frontend {
namespace {

using test::Err;
using test::kernel;
using test::parseError;
using test::parseExpr;

// The error of a kernel whose body is `body`; kernel lines start at line 4.
Err kernelError(const std::string& body) { return parseError(kernel(body)); }

TEST(ParserErrors, UnsupportedExpressions) {
  EXPECT_EQ(kernelError("    f = lambda x: x\n"), (Err{4, 9, "lambda expressions are not supported in kernels"}));
  EXPECT_EQ(parseExpr("[i + 1 for i in x]"), "(listcomp (+ i 1) i x)");
  EXPECT_EQ(parseExpr("[a * b for a, b in pairs]"), "(listcomp (* a b) (tuple a b) pairs)");
  EXPECT_EQ(kernelError("    y = [i for i in x if i]\n"),
            (Err{4, 23, "a list comprehension in a kernel cannot have an 'if' clause"}));
  EXPECT_EQ(kernelError("    y = [i for i in x for j in x]\n"),
            (Err{4, 23, "a list comprehension in a kernel can have only one 'for'"}));
  EXPECT_EQ(kernelError("    y = [i for 1 in x]\n"), (Err{4, 16, "cannot assign to literal"}));
  EXPECT_EQ(kernelError("    y = {i: i for i in x}\n"), (Err{4, 9, "dict comprehensions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = {i for i in x}\n"), (Err{4, 9, "set comprehensions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = (i for i in x)\n"), (Err{4, 9, "generator expressions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = sum(i for i in x)\n"), (Err{4, 13, "generator expressions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = {1: 2}\n"), (Err{4, 9, "dict literals are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = {}\n"), (Err{4, 9, "dict literals are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = {1, 2}\n"), (Err{4, 9, "set literals are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = *a, b\n"), (Err{4, 9, "starred expressions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    a, *b = x\n"), (Err{4, 8, "starred expressions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    f(a=1, *args)\n"), (Err{4, 12, "iterable argument unpacking follows keyword argument"}));
  EXPECT_EQ(kernelError("    f(**kw)\n"), (Err{4, 7, "'**' argument unpacking is not supported in kernels"}));
  EXPECT_EQ(kernelError("    if (n := 10) > 5: pass\n"),
            (Err{4, 11, "assignment expressions (':=') are not supported in kernels"}));
  EXPECT_EQ(kernelError("    s = f\"{x}\"\n"), (Err{4, 9, "f-strings are not supported in kernels"}));
  EXPECT_EQ(kernelError("    s = 'a' f'{x}'\n"), (Err{4, 13, "f-strings are not supported in kernels"}));
  EXPECT_EQ(kernelError("    s = b'abc'\n"), (Err{4, 9, "bytes literals are not supported in kernels"}));
  EXPECT_EQ(kernelError("    s = 'a' b'c'\n"), (Err{4, 13, "cannot mix bytes and nonbytes literals"}));
  EXPECT_EQ(kernelError("    z = 2 + 1j\n"), (Err{4, 13, "complex literals are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = x[...]\n"), (Err{4, 11, "Ellipsis ('...') is not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = 18446744073709551616\n"),
            (Err{4, 9, "integer literal is too large (it does not fit in 64 bits)"}));
  EXPECT_EQ(kernelError("    y = yield x\n"), (Err{4, 9, "'yield' is not supported in kernels"}));
  EXPECT_EQ(kernelError("    yield x\n"), (Err{4, 5, "'yield' is not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = await x\n"), (Err{4, 9, "'await' is not supported in kernels"}));
}

TEST(ParserErrors, UnsupportedStatements) {
  EXPECT_EQ(kernelError("    with a as b:\n        pass\n"), (Err{4, 5, "'with' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    try:\n        pass\n    except E:\n        pass\n"),
            (Err{4, 5, "'try' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    raise ValueError('x')\n"), (Err{4, 5, "'raise' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    class A:\n        pass\n"), (Err{4, 5, "class definitions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    x = 1\n    def g():\n        pass\n"),
            (Err{5, 5, "nested function definitions are not supported in kernels"}));
  EXPECT_EQ(kernelError("    global g\n"), (Err{4, 5, "'global' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    nonlocal g\n"), (Err{4, 5, "'nonlocal' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    del x\n"), (Err{4, 5, "'del' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    import math\n"), (Err{4, 5, "'import' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    from math import sin\n"), (Err{4, 5, "'import' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    async for x in y:\n        pass\n"), (Err{4, 5, "'async' is not supported in kernels"}));
  EXPECT_EQ(kernelError("    match x:\n        case 1:\n            pass\n"),
            (Err{4, 5, "'match' statements are not supported in kernels"}));
  EXPECT_EQ(kernelError("    @dec\n    def g():\n        pass\n"),
            (Err{4, 5, "decorators are not supported inside kernels"}));
  EXPECT_EQ(parseError("import triton\n@triton.jit\nasync def k():\n    pass\n"),
            (Err{3, 1, "'async' functions are not supported in kernels"}));
  // `match` is only a keyword in a match statement.
  EXPECT_EQ(kernelError("    match = 1\n    match(x)\n    match.y = 2\n"), (Err{0, 0, "no error"}));
}

TEST(ParserErrors, UnsupportedParameters) {
  EXPECT_EQ(parseError("@jit\ndef k(a, *args): pass\n"),
            (Err{2, 10, "variadic parameters (*args, **kwargs) are not supported in kernels"}));
  EXPECT_EQ(parseError("@jit\ndef k(a, **kw): pass\n"),
            (Err{2, 10, "variadic parameters (*args, **kwargs) are not supported in kernels"}));
  EXPECT_EQ(parseError("@jit\ndef k(a, *, b): pass\n"),
            (Err{2, 10, "keyword-only parameters ('*') are not supported in kernels"}));
  EXPECT_EQ(parseError("@jit\ndef k(a, /, b): pass\n"),
            (Err{2, 10, "positional-only parameters ('/') are not supported in kernels"}));
  EXPECT_EQ(parseError("@jit\ndef k(a, a): pass\n"), (Err{2, 10, "duplicate argument 'a' in function definition"}));
  EXPECT_EQ(parseError("@jit\ndef k(a=1, b): pass\n"),
            (Err{2, 12, "parameter without a default follows parameter with a default"}));
}

TEST(ParserErrors, SyntaxErrors) {
  EXPECT_EQ(kernelError("    if x\n        pass\n"), (Err{4, 9, "expected ':'"}));
  EXPECT_EQ(kernelError("    if x  # comment\n        pass\n"), (Err{4, 9, "expected ':'"}));
  EXPECT_EQ(kernelError("    for i in range(3)\n        pass\n"), (Err{4, 22, "expected ':'"}));
  EXPECT_EQ(kernelError("    while True pass\n"), (Err{4, 16, "expected ':'"}));
  EXPECT_EQ(kernelError("    for i range(3): pass\n"), (Err{4, 11, "expected 'in'"}));
  EXPECT_EQ(parseError("@jit\ndef k:\n    pass\n"), (Err{2, 6, "expected '('"}));
  EXPECT_EQ(parseError("@jit\ndef k()\n    pass\n"), (Err{2, 8, "expected ':'"}));
  EXPECT_EQ(kernelError("    x = 1 +\n"), (Err{4, 12, "invalid syntax"}));
  EXPECT_EQ(kernelError("    x = 1 2\n"), (Err{4, 11, "invalid syntax"}));
  EXPECT_EQ(kernelError("    x = = 1\n"), (Err{4, 9, "invalid syntax"}));
  EXPECT_EQ(kernelError("    f(a b)\n"), (Err{4, 9, "invalid syntax. Perhaps you forgot a comma?"}));
  EXPECT_EQ(kernelError("    f(a=1, b)\n"), (Err{4, 12, "positional argument follows keyword argument"}));
  EXPECT_EQ(kernelError("    f(a=1, a=2)\n"), (Err{4, 12, "keyword argument repeated: a"}));
  EXPECT_EQ(kernelError("    x = a if b\n"), (Err{4, 15, "expected 'else' after 'if' expression"}));
  EXPECT_EQ(kernelError("    else:\n        pass\n"), (Err{4, 5, "invalid syntax"}));
  EXPECT_EQ(kernelError("    x = if\n"), (Err{4, 9, "invalid syntax"}));
  EXPECT_EQ(kernelError("    x.1 = 2\n"), (Err{4, 6, "invalid syntax"}));
  EXPECT_EQ(kernelError("    f() = 1\n"), (Err{4, 5, "cannot assign to function call"}));
  EXPECT_EQ(kernelError("    a + b = 1\n"), (Err{4, 5, "cannot assign to expression"}));
  EXPECT_EQ(kernelError("    x = 1 = y\n"), (Err{4, 9, "cannot assign to literal"}));
  EXPECT_EQ(kernelError("    None = 1\n"), (Err{4, 5, "cannot assign to None"}));
  EXPECT_EQ(kernelError("    for f() in x: pass\n"), (Err{4, 9, "cannot assign to function call"}));
  EXPECT_EQ(kernelError("    a, b += 1\n"), (Err{4, 5, "'tuple' is an illegal expression for augmented assignment"}));
  EXPECT_EQ(kernelError("    a, b: int = 1\n"), (Err{4, 5, "only single target (not tuple) can be annotated"}));
}

TEST(ParserErrors, IndentationErrors) {
  EXPECT_EQ(kernelError("    x = 1\n        y = 2\n"), (Err{5, 9, "unexpected indent"}));
  EXPECT_EQ(parseError("  x = 1\n"), (Err{1, 3, "unexpected indent"}));
  EXPECT_EQ(kernelError("    if x:\n    y = 2\n"), (Err{5, 5, "expected an indented block after 'if' statement on line 4"}));
  EXPECT_EQ(kernelError("    if x:\n        pass\n    else:\n    y = 2\n"),
            (Err{7, 5, "expected an indented block after 'else' statement on line 6"}));
  EXPECT_EQ(parseError("@jit\ndef k():\nx = 1\n"), (Err{3, 1, "expected an indented block after function definition on line 2"}));
  EXPECT_EQ(kernelError("    if x:\n        a = 1\n      b = 2\n"),
            (Err{6, 7, "unindent does not match any outer indentation level"}));
}

TEST(ParserErrors, TokenizerErrorsAnywhere) {
  // Tokenizer errors count in host code too; grammar errors in host code do not.
  EXPECT_EQ(parseError("if __name__ == '__main__':\n    print('oops)\n"), (Err{2, 11, "unterminated string literal"}));
  EXPECT_EQ(parseError("class A:\n    x = (1,\n"), (Err{2, 9, "'(' was never closed"}));
  EXPECT_EQ(parseError("def host():\n    return x]\n"), (Err{2, 13, "unmatched ']'"}));
  EXPECT_EQ(parseError("def host():\n        a = 1\n    b = 2\n"),
            (Err{3, 5, "unindent does not match any outer indentation level"}));
  EXPECT_EQ(parseError("def host():\n    return 1 +\nclass :\n  x y z\nd = {1: }\n"), (Err{0, 0, "no error"}));
  EXPECT_EQ(parseError("x = '''\n"), (Err{1, 5, "unterminated triple-quoted string literal"}));
}

TEST(ParserErrors, ImportErrors) {
  EXPECT_EQ(parseError("import\n"), (Err{1, 7, "invalid syntax"}));
  EXPECT_EQ(parseError("from x import\n"), (Err{1, 14, "invalid syntax"}));
  EXPECT_EQ(parseError("import a.b as\n"), (Err{1, 14, "invalid syntax"}));
}

TEST(ParserErrors, RenderedWithFileLineAndCaret) {
  try {
    test::parse(kernel("    y = lambda: 0\n"));
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diag().render(),
              "t.py:4:9: error: lambda expressions are not supported in kernels\n"
              "      y = lambda: 0\n"
              "          ^\n");
  }
}

// Builds `prefix + piece * n + core + suffix * n` as one kernel statement.
std::string nested(const std::string& open, const std::string& core, const std::string& close, int n) {
  std::string s;
  s.reserve((open.size() + close.size()) * size_t(n) + core.size());
  for (int i = 0; i < n; ++i) s += open;
  s += core;
  for (int i = 0; i < n; ++i) s += close;
  return s;
}

TEST(ParserErrors, DeepNestingIsAnErrorNotACrash) {
  const std::string tooDeep = "expression nested too deeply";
  // 100 levels are fine, the 101st is at the limit; `    y = ` puts the first '(' at column 9.
  EXPECT_EQ(kernelError("    y = " + nested("(", "x", ")", 100) + "\n"), (Err{0, 0, "no error"}));
  EXPECT_EQ(kernelError("    y = " + nested("(", "x", ")", 101) + "\n"), (Err{4, 109, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("(", "x", ")", 100000) + "\n"), (Err{4, 109, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("-", "x", "", 100000) + "\n"), (Err{4, 109, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("not ", "x", "", 100000) + "\n"), (Err{4, 409, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("~+", "x", "", 100000) + "\n"), (Err{4, 109, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("f(", "", ")", 100000) + "\n"), (Err{4, 210, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("x[", "0", "]", 100000) + "\n"), (Err{4, 210, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("[", "", "]", 100000) + "\n"), (Err{4, 109, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("2**", "2", "", 100000) + "\n"), (Err{4, 310, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("a if b else ", "c", "", 100000) + "\n"), (Err{4, 1216, tooDeep}));
  EXPECT_EQ(kernelError("    y = " + nested("{", "", "}", 100000) + "\n"),
            (Err{4, 9, "set literals are not supported in kernels"}));
  EXPECT_EQ(kernelError("    y = " + nested("(", "lambda: 0", ")", 100000) + "\n"), (Err{4, 109, tooDeep}));
}

TEST(ParserErrors, DeepTreesAreTooComplex) {
  const std::string tooComplex = "expression too complex";
  auto chain = [](const std::string& first, const std::string& op, int n) {
    std::string s = first;
    for (int i = 0; i < n; ++i) s += op;
    return s;
  };
  EXPECT_EQ(kernelError("    y = " + chain("a", " + a", 999) + "\n"), (Err{0, 0, "no error"}));
  EXPECT_EQ(kernelError("    y = " + chain("a", " + a", 1000) + "\n"), (Err{4, 9, tooComplex}));
  EXPECT_EQ(kernelError("    y = " + chain("a", "+a", 100000) + "\n"), (Err{4, 9, tooComplex}));
  EXPECT_EQ(kernelError("    y = " + chain("a", "*a", 100000) + "\n"), (Err{4, 9, tooComplex}));
  EXPECT_EQ(kernelError("    y = " + chain("x", ".a", 100000) + "\n"), (Err{4, 9, tooComplex}));
  EXPECT_EQ(kernelError("    y = " + chain("f", "()", 100000) + "\n"), (Err{4, 9, tooComplex}));
  EXPECT_EQ(kernelError("    y = " + chain("x", "[0]", 100000) + "\n"), (Err{4, 9, tooComplex}));
  EXPECT_EQ(kernelError("    y = z + (" + chain("a", "+a", 100000) + ")\n"), (Err{4, 14, tooComplex}));
  // 99 levels of parentheses around 20-term sums nest the tree past 1000 without any long chain.
  std::string expr = "a";
  for (int i = 0; i < 99; ++i) expr = "(" + expr + chain("", "+a", 19) + ")";
  EXPECT_EQ(kernelError("    y = " + expr + "\n").message, tooComplex);
  // Flat but wide shapes are fine.
  EXPECT_EQ(kernelError("    y = " + chain("a", " and a", 100000) + "\n"), (Err{0, 0, "no error"}));
  EXPECT_EQ(kernelError("    y = " + chain("a", " < a", 100000) + "\n"), (Err{0, 0, "no error"}));
  EXPECT_EQ(kernelError("    y = " + chain("a", ", a", 100000) + "\n"), (Err{0, 0, "no error"}));
}

TEST(ParserErrors, DeepBlocksAreAnErrorNotACrash) {
  std::string body;
  for (int i = 1; i <= 3000; ++i) body += std::string(size_t(i), ' ') + "if x:\n";
  body += std::string(3001, ' ') + "pass\n";
  // The function body is block 1; the `if` opening block 101 is on line 103 (column 101).
  EXPECT_EQ(kernelError(body), (Err{103, 101, "too many nested blocks"}));
  std::string elifs = "    if x: pass\n";
  for (int i = 0; i < 100000; ++i) elifs += "    elif x: pass\n";
  EXPECT_EQ(kernelError(elifs), (Err{1004, 5, "too many 'elif' branches"}));
  std::string whiles;
  for (int i = 1; i <= 200; ++i) whiles += std::string(size_t(i), '\t') + "while x:\n";
  whiles += std::string(201, '\t') + "pass\n";
  EXPECT_EQ(parseError("@jit\ndef k():\n" + whiles).message, "too many nested blocks");
}

TEST(ParserErrors, HostLevelDepthIsNotAnError) {
  auto m = test::parse("X = " + nested("(", "1", ")", 100000) + "\nY = " + nested("-", "1", "", 100000) + "\n");
  ASSERT_EQ(m->globals.size(), 2u);
  EXPECT_EQ(m->globals[0].skipReason, "expression nested too deeply");
  EXPECT_EQ(m->globals[1].skipReason, "expression nested too deeply");
  std::string deepHost = "if True:\n";
  for (int i = 1; i <= 5000; ++i) deepHost += std::string(size_t(i), ' ') + "if x:\n";
  deepHost += std::string(5001, ' ') + "pass\n@jit\ndef k(): pass\n";
  EXPECT_EQ(test::parse(deepHost)->functions.size(), 1u);
}

}  // namespace
}  // namespace kiln::frontend
