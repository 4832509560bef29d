// The top level: imports, module constants, jit detection among decorators, and skipping host
// code of every kind without failing on it.
#include "frontend_test_util.h"

namespace kiln::frontend {
namespace {

using test::sexpr;

const ast::GlobalAssign* global(const ast::Module& m, const std::string& name) {
  const ast::GlobalAssign* found = nullptr;
  for (const ast::GlobalAssign& g : m.globals)
    if (g.name == name) found = &g;  // a later one wins
  return found;
}

TEST(ParserModule, Imports) {
  auto m = test::parse(
      "import torch\n"
      "import triton.language\n"
      "import numpy as np, os.path as osp\n"
      "from triton import language as tl, jit\n"
      "from triton.language import (program_id,\n"
      "    arange as ar,)\n"
      "from . import helpers\n"
      "from ..pkg.mod import thing\n"
      "from math import *\n"
      "import a; import b\n");
  std::map<std::string, std::string> want = {
      {"torch", "torch"},     {"triton", "triton"},           {"np", "numpy"},
      {"osp", "os.path"},     {"tl", "triton.language"},      {"jit", "triton.jit"},
      {"program_id", "triton.language.program_id"},           {"ar", "triton.language.arange"},
      {"helpers", ".helpers"}, {"thing", "..pkg.mod.thing"},  {"a", "a"},
      {"b", "b"}};
  EXPECT_EQ(m->aliases, want);
  EXPECT_TRUE(m->functions.empty());
  EXPECT_TRUE(m->globals.empty());
}

TEST(ParserModule, JitDecoratorForms) {
  auto m = test::parse(
      "import triton\n"
      "from triton import jit\n"
      "import kiln\n"
      "@triton.jit\n"
      "def a(x): pass\n"
      "@jit\n"
      "def b(x): pass\n"
      "@kiln.jit()\n"
      "def c(x): pass\n"
      "@triton.jit(do_not_specialize=[\"n\"], debug=True)\n"
      "def d(x, n): pass\n"
      "@triton.jit(repr=lambda meta: 'x')\n"  // host-only arguments: the name is kept
      "def e(x): pass\n"
      "@functools.cache\n"
      "def host(x): return {x: 1}\n"
      "@jit.something\n"
      "def host2(x): return {x: 1}\n"
      "def plain(x): return [i for i in x]\n");
  ASSERT_EQ(m->functions.size(), 5u);
  EXPECT_EQ(sexpr(m->functions[0]->decorators[0].get()), "triton.jit");
  EXPECT_EQ(sexpr(m->functions[1]->decorators[0].get()), "jit");
  EXPECT_EQ(sexpr(m->functions[2]->decorators[0].get()), "(call kiln.jit)");
  EXPECT_EQ(sexpr(m->functions[3]->decorators[0].get()), "(call triton.jit do_not_specialize=(list 'n') debug=True)");
  EXPECT_EQ(sexpr(m->functions[4]->decorators[0].get()), "triton.jit");
  EXPECT_EQ(m->functions[4]->name, "e");
  EXPECT_EQ(m->findFunction("d"), m->functions[3].get());
  EXPECT_EQ(m->findFunction("host"), nullptr);
  EXPECT_EQ(m->findFunction("plain"), nullptr);
  // Host functions are remembered by name and `def` position, so a kernel calling one is told why it cannot.
  ASSERT_EQ(m->plainFunctions.size(), 3u);
  EXPECT_EQ(m->plainFunctions[0].name, "host");
  EXPECT_EQ(m->plainFunctions[1].name, "host2");
  EXPECT_EQ(m->plainFunctions[2].name, "plain");
  EXPECT_EQ(m->plainFunctions[2].loc.line, 18);
  EXPECT_EQ(m->plainFunctions[2].loc.col, 1);
}

TEST(ParserModule, StackedHostDecoratorsInAnyOrder) {
  auto m = test::parse(
      "import triton\n"
      "@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4),\n"
      "                          triton.Config({'BLOCK': 256}, num_warps=8)], key=['n'])\n"
      "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})\n"
      "@triton.jit\n"
      "def k1(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n"
      "    pass\n"
      "@triton.jit\n"
      "@triton.heuristics(values={'X': lambda a: {1: 2}})\n"
      "def k2(x):\n"
      "    pass\n");
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->functions[0]->name, "k1");
  EXPECT_EQ(m->functions[0]->decorators.size(), 1u);  // only the jit decorator is kept
  EXPECT_EQ(m->functions[0]->params.size(), 4u);
  EXPECT_EQ(m->functions[1]->name, "k2");
  EXPECT_EQ(m->functions[1]->decorators.size(), 1u);
  EXPECT_EQ(m->functions[1]->loc.line, 10);
}

TEST(ParserModule, Globals) {
  auto m = test::parse(
      "BLOCK = tl.constexpr(128)\n"
      "N = 4\n"
      "NAME = \"x\"\n"
      "SHAPE = (1, 2)\n"
      "X: tl.constexpr = 3\n"
      "Y: int\n"
      "A = B = 7\n"
      "x = torch.randn(10, device='cuda')\n"
      "d = {1: 2}\n"
      "f = lambda x=1: x\n"
      "c = [i for i in range(3)]\n"
      "z = 1j\n"
      "s = f'{N}'\n"
      "p, (q, *r) = 1, (2, 3)\n"
      "obj.attr = 5\n"
      "N += 1\n"
      "M = 1; K = 2\n"
      "BIG = 123456789012345678901234567890\n");
  auto value = [&](const char* name) {
    const ast::GlobalAssign* g = global(*m, name);
    return g ? (g->value ? sexpr(g->value.get()) : "skip: " + g->skipReason) : "<none>";
  };
  EXPECT_EQ(value("BLOCK"), "(call tl.constexpr 128)");
  EXPECT_EQ(global(*m, "BLOCK")->loc.line, 1);
  EXPECT_EQ(value("NAME"), "'x'");
  EXPECT_EQ(value("SHAPE"), "(tuple 1 2)");
  EXPECT_EQ(value("X"), "3");
  EXPECT_EQ(sexpr(global(*m, "X")->annotation.get()), "tl.constexpr");
  EXPECT_EQ(value("Y"), "<none>");
  EXPECT_EQ(value("A"), "7");
  EXPECT_EQ(value("B"), "7");
  EXPECT_EQ(value("x"), "(call torch.randn 10 device='cuda')");
  EXPECT_EQ(value("d"), "skip: dict literals are not supported in kernels");
  EXPECT_EQ(value("f"), "skip: lambda expressions are not supported in kernels");
  EXPECT_EQ(value("c"), "(listcomp i i (call range 3))");
  EXPECT_EQ(value("z"), "skip: complex literals are not supported in kernels");
  EXPECT_EQ(value("s"), "skip: f-strings are not supported in kernels");
  EXPECT_EQ(value("p"), "skip: assigned by unpacking at module level");
  EXPECT_EQ(value("r"), "skip: assigned by unpacking at module level");
  EXPECT_EQ(value("attr"), "<none>");
  EXPECT_EQ(value("N"), "skip: modified by an augmented assignment at module level");
  EXPECT_EQ(value("M"), "1");
  EXPECT_EQ(value("K"), "2");
  EXPECT_EQ(value("BIG"), "skip: integer literal is too large (it does not fit in 64 bits)");
  // In source order; the earlier N is kept too.
  EXPECT_EQ(m->globals[1].name, "N");
  EXPECT_EQ(sexpr(m->globals[1].value.get()), "4");
}

TEST(ParserModule, HostCodeIsSkippedUnparsed) {
  auto m = test::parse(
      "import triton\n"
      "class Foo(Base, metaclass=Meta):\n"
      "    x = {1: 2}\n"
      "    def method(self, *args, **kw):\n"
      "        return [y async for y in self]\n"
      "def host(a, /, b, *, c):\n"
      "    with open(a) as f, g:\n"
      "        yield from f\n"
      "async def ahost():\n"
      "    await something()\n"
      "if __name__ == '__main__':\n"
      "    print(f\"{1+1=}\", *args, sep='')\n"
      "elif x:\n"
      "    pass\n"
      "else: pass\n"
      "try:\n"
      "    import torch\n"
      "except (ImportError, ValueError) as e:\n"
      "    raise SystemExit(1) from e\n"
      "finally:\n"
      "    del x\n"
      "for i in range(3): print(i); print(i)\n"
      "while False:\n"
      "    break\n"
      "with a: pass\n"
      "match command.split():\n"
      "    case [action, obj]:\n"
      "        pass\n"
      "    case _:\n"
      "        pass\n"
      "print(x := 5, lambda: 0, {**d}, [*l])\n"
      "global gg\n"
      "assert x, 'y'\n"
      "x[0] += 1\n"
      "`$? ! = garbage -> :=\n"
      "@triton.jit\n"
      "def k(x):\n"
      "    return x\n");
  ASSERT_EQ(m->functions.size(), 1u);
  EXPECT_EQ(m->functions[0]->name, "k");
  EXPECT_TRUE(m->globals.empty());
  EXPECT_EQ(m->aliases.size(), 1u);  // imports inside host blocks are not seen
}

TEST(ParserModule, RealisticFile) {
  auto m = test::parse(R"PY(
"""Vector addition with Triton: kernels, autotuning and a benchmark."""
import torch
import triton
import triton.language as tl
from typing import Optional

BLOCK = tl.constexpr(128)
N = 4
NAME = "x"
SHAPE = (1, 2)
CONFIGS = {"small": 64, "large": 1024}
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Runner:
    """Host-side helper."""

    def __init__(self, n: int = 1024) -> None:
        self.n = n
        self.cache = {k: v for k, v in CONFIGS.items()}

    @property
    def size(self):
        return self.n


@triton.jit
def _helper(x, y):
    return x + y * 2


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 128}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 1024}, num_warps=8),
    ],
    key=['n_elements'],
)
@triton.heuristics({'EVEN': lambda args: args['n_elements'] % args['BLOCK_SIZE'] == 0})
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements,
               BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr):
    """Adds two vectors.

    One program per block.
    """
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if EVEN:
        x = tl.load(x_ptr + offsets)
    else:
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = _helper(x, y)
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements)
    return output


if __name__ == "__main__":
    torch.manual_seed(0)
    size = 98432
    x = torch.rand(size, device=DEVICE)
    y = torch.rand(size, device=DEVICE)
    out = add(x, y)
    print(f"max diff: {torch.max(torch.abs(out - (x + y))):.3e} on {DEVICE!s}")
    stats = {"ms": [t for t in range(3)], **{"n": size}}
    print(f'{stats["ms"]}')
)PY");
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->functions[0]->name, "_helper");
  const ast::FunctionDef& k = *m->functions[1];
  EXPECT_EQ(k.name, "add_kernel");
  EXPECT_EQ(k.loc.line, 42);
  EXPECT_EQ(k.params.size(), 6u);
  EXPECT_EQ(k.docstring, "Adds two vectors.\n\n    One program per block.\n    ");
  EXPECT_EQ(k.body.size(), 8u);
  EXPECT_EQ(sexpr(k.decorators.at(0).get()), "triton.jit");

  std::vector<std::string> names;
  for (const ast::GlobalAssign& g : m->globals) names.push_back(g.name + (g.value ? "" : "?"));
  EXPECT_EQ(names, (std::vector<std::string>{"BLOCK", "N", "NAME", "SHAPE", "CONFIGS?", "DEVICE"}));
  EXPECT_EQ(m->aliases.at("tl"), "triton.language");
  EXPECT_EQ(m->aliases.at("Optional"), "typing.Optional");
  EXPECT_EQ(m->aliases.size(), 4u);
}

TEST(ParserModule, CrlfFile) {
  auto m = test::parse("import triton\r\n\r\n@triton.jit\r\ndef k(x,\r\n      y):\r\n    if x:\r\n        y = 'a\\\r\nb'\r\n");
  const ast::FunctionDef& fn = test::onlyKernel(*m);
  ASSERT_EQ(fn.params.size(), 2u);
  EXPECT_EQ(fn.params[1].loc.line, 5);
  EXPECT_EQ(fn.params[1].loc.col, 7);
  const ast::Stmt& assign = *fn.body.at(0)->body.at(0);
  EXPECT_EQ(assign.loc.line, 7);
  EXPECT_EQ(assign.loc.col, 9);
  EXPECT_EQ(assign.value->str, "ab");
}

TEST(ParserModule, EmptyAndCommentOnlyFiles) {
  EXPECT_TRUE(test::parse("")->functions.empty());
  EXPECT_TRUE(test::parse("# just a comment\n\n")->functions.empty());
  EXPECT_TRUE(test::parse("\xEF\xBB\xBFx = 1\n")->globals.size() == 1);
}

TEST(ParserModule, LaterDefinitionWins) {
  auto m = test::parse("@jit\ndef k(a): pass\n@jit\ndef k(a, b): pass\n");
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->findFunction("k")->params.size(), 2u);
}

TEST(ParserModule, ModuleDump) {
  auto m = test::parse("import triton.language as tl\nN = 4\nd = {}\n@tl.jit\ndef k(): pass\n");
  EXPECT_EQ(dump(*m),
            "Alias tl = triton.language\n"
            "Global N @2:1\n"
            "  value: Int 4 @2:5\n"
            "Global d (skipped: dict literals are not supported in kernels) @3:1\n"
            "FunctionDef k @5:1\n"
            "  decorator: Attribute jit @4:2\n"
            "    Name tl @4:2\n"
            "  body:\n"
            "    Pass @5:10\n");
}

}  // namespace
}  // namespace kiln::frontend
