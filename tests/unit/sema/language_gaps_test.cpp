// Structure tests of sema for constructs Triton's own test suite uses: x.item(), .dtype of a
// constexpr number, None/':' subscripts of scalars and slices with None bounds, hasattr(), isinstance(),
// tl.static_range / tl.range keywords, and `if` on a one-element tile; each with its misuse.
#include "ir/text.h"
#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;

// The type text of every `store`'s value operand, in order.
std::vector<std::string> storedTypes(const ir::Block& b) {
  std::vector<std::string> out;
  for (const auto& o : b.ops) {
    if (o->opcode == Opcode::Store) out.push_back(o->operand(1)->type.str());
    for (const auto& r : o->regions)
      for (auto& t : storedTypes(*r)) out.push_back(t);
  }
  return out;
}
std::vector<std::string> storedTypes(const ir::Module& m) { return storedTypes(m.functions.at(0)->body); }

TEST(LanguageGaps, ItemGivesAScalarOfTheDtype) {
  auto m = lowerSource(R"(
@triton.jit
def k(x_ptr, h_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 1)[:, None]).item()
    h = tl.load(h_ptr + tl.arange(0, 1)).item()
    p = (h_ptr + tl.arange(0, 1)).item()
    b = (tl.load(x_ptr + tl.arange(0, 1)) > 0).item()
    s = tl.full((), 3, tl.int8).item()
    tl.static_assert(x.shape == () and h.dtype == tl.float16 and b.dtype == tl.int1)
    tl.static_assert(p.dtype == tl.pointer_type(tl.float16) and s.dtype == tl.int8)
    tl.store(out_ptr, x)
    tl.store(out_ptr + 1, h)
    tl.store(p, h)
    tl.store(out_ptr + 2, b)
    tl.store(out_ptr + 3, s)
)", "k", "*fp32, *fp16, *fp32");
  EXPECT_EQ(storedTypes(*m), (std::vector<std::string>{"f32", "f32", "f16", "f32", "f32"}));
  EXPECT_EQ(countOps(*m, Opcode::Reduce), 4);  // the scalar `s` is its own item
}

TEST(LanguageGaps, ItemOfManyElementsIsALocatedError) {
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16)).item()
)", "k", "*fp32");
  EXPECT_EQ(d.message, "can only unsplat single-element tensors: item() needs one element, got a tensor<16xf32> "
                       "(16 elements)");
  EXPECT_EQ(srcLine(d), 3);
  EXPECT_EQ(d.loc.col, 9);
  d = lowerError(R"(
@triton.jit
def k(x_ptr, N: tl.constexpr):
    v = N.item()
)", "k", "*fp32, 4");
  EXPECT_TRUE(contains(d.message, "the constexpr 4 has no attribute 'item'")) << d.message;
}

TEST(LanguageGaps, DtypeOfAConstexprNumberIsItsLiteralType) {
  auto m = lowerSource(R"(
@triton.jit
def k(out_ptr, N: tl.constexpr):
    a = 5
    tl.static_assert(a.dtype == tl.int32)
    tl.static_assert((2 ** 40).dtype == tl.int64)
    tl.static_assert((1.0).dtype == tl.float32 and (1e50).dtype == tl.float64)
    tl.static_assert(True.dtype == tl.int1 and N.dtype == tl.int32)
    tl.store(out_ptr.to(tl.pointer_type(a.dtype)), a)
)", "k", "*fp32, 8");
  EXPECT_EQ(storedTypes(*m), (std::vector<std::string>{"i32"}));
  Diagnostic d = lowerError(R"(
@triton.jit
def k(out_ptr):
    s = "abc"
    t = s.dtype
)", "k", "*fp32");
  EXPECT_EQ(d.message, "the constexpr 'abc' has no attribute 'dtype'");
  EXPECT_EQ(srcLine(d), 4);
}

TEST(LanguageGaps, NoneAndColonSubscripts) {
  auto m = lowerSource(R"(
@triton.jit
def k(x_ptr, XBLOCK: tl.constexpr):
    data = tl.arange(0, XBLOCK)
    tl.static_assert(data[None, None:].shape == (1, XBLOCK))
    tl.static_assert(data[None, :None].shape == (1, XBLOCK))
    tl.static_assert(data[None, None:None:None, None].shape == (1, XBLOCK, 1))
    tl.static_assert(data[None, ::None, None].shape == (1, XBLOCK, 1))
    tl.static_assert(x_ptr[None, :].shape == (1,))
    tl.static_assert(x_ptr[None, None].shape == (1, 1))
    t = (1, 2, 3)
    tl.static_assert(t[1:] == (2, 3) and t[::-1] == (3, 2, 1) and t[None:2] == (1, 2))
    tl.store(x_ptr[None, :] + data, 1.0)
)", "k", "*fp32, 32");
  EXPECT_EQ(countOps(*m, Opcode::Store), 1);
}

TEST(LanguageGaps, BadSubscriptsAreLocatedErrors) {
  auto err = [](const char* line) {
    return lowerError(std::string("\n@triton.jit\ndef k(x_ptr):\n    y = ") + line + "\n", "k", "*fp32");
  };
  Diagnostic d = err("x_ptr[10:]");
  EXPECT_EQ(d.message, "unsupported tensor index (the slice slice(10, None, None)): tensors take only ':' and None "
                       "(x[:, None])");
  EXPECT_EQ(srcLine(d), 3);
  EXPECT_EQ(d.loc.col, 9);
  EXPECT_EQ(err("x_ptr[:, None]").message,
            "None at index position 1 is past the dimensions of a scalar of type ptr<f32> (too many ':' before it)");
  EXPECT_EQ(err("x_ptr[None, :, :]").message, "too many indices for a scalar of type ptr<f32>: 2 ':' for rank 0 plus "
                                              "1 None");
  EXPECT_TRUE(contains(err("(1, 2)[0:x_ptr]").message, "slice bounds must be constexpr integers")) << "";
}

TEST(LanguageGaps, HasattrIsAConstexprBool) {
  auto m = lowerSource(R"(
@triton.jit
def k(x_ptr, N: tl.constexpr):
    tl.static_assert(hasattr(x_ptr, "dtype") and hasattr(x_ptr, "to") and not hasattr(x_ptr, "nope"))
    tl.static_assert(hasattr(x_ptr.dtype, "element_ty") and not hasattr(tl.float32, "element_ty"))
    tl.static_assert(hasattr(tl, "load") and not hasattr(tl, "lod"))
    tl.static_assert(not hasattr(N, "dtype") and not hasattr(None, "dtype"))
    tl.static_assert(hasattr(tl.zeros((2, 2), tl.float32), "T") and not hasattr(tl.zeros((2,), tl.float32), "T"))
    if (x_ptr is not None) and hasattr(x_ptr, "dtype") and (x_ptr.dtype.element_ty == tl.int32):
        tl.store(x_ptr, 42)
)", "k", "*i32, 3");
  EXPECT_EQ(countOps(*m, Opcode::If), 0);
  EXPECT_EQ(countOps(*m, Opcode::Store), 1);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr):
    h = hasattr(x_ptr, 3)
)", "k", "*fp32");
  EXPECT_EQ(d.message, "hasattr(): attribute name must be string, not 'int'");
  EXPECT_EQ(srcLine(d), 3);
  EXPECT_TRUE(contains(lowerError("@triton.jit\ndef k(x_ptr):\n    h = hasattr(x_ptr)\n", "k", "*fp32").message,
                       "missing required argument 'name'"));
}

TEST(LanguageGaps, IsinstanceIsAConstexprBool) {
  auto m = lowerSource(R"(
@triton.jit
def k(x_ptr, n, N: tl.constexpr):
    tl.static_assert(isinstance(x_ptr, tl.tensor) and isinstance(n, tl.tensor) and not isinstance(N, tl.tensor))
    tl.static_assert(isinstance(x_ptr.dtype, tl.pointer_type) and not isinstance(n.dtype, tl.pointer_type))
    tl.static_assert(isinstance(n.dtype, tl.dtype) and not isinstance(N, tl.dtype))
    tl.static_assert(isinstance(N, int) and isinstance(True, int) and isinstance(1.5, (bool, float)))
    tl.static_assert(not isinstance(N, (float, bool)) and not isinstance(None, int))
    if isinstance(x_ptr.dtype, tl.pointer_type) and x_ptr.dtype.element_ty == tl.int32:
        tl.store(x_ptr, 42)
)", "k", "*i32, i32, 3");
  EXPECT_EQ(countOps(*m, Opcode::If), 0);
  EXPECT_EQ(countOps(*m, Opcode::Store), 1);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr):
    b = isinstance(x_ptr, tl.load)
)", "k", "*fp32");
  EXPECT_EQ(d.message, "isinstance(): kiln knows the classes tl.tensor, tl.dtype, tl.pointer_type, "
                       "tl.tensor_descriptor, int, float, bool and the NamedTuple classes of the kernel's module, not "
                       "the builtin tl.load");
  EXPECT_EQ(srcLine(d), 3);
}

TEST(LanguageGaps, RangeKeywords) {
  auto sum = [](const char* range) {
    auto m = lowerSource(std::string("\n@triton.jit\ndef k(out_ptr, N: tl.constexpr):\n    acc = 0\n"
                                     "    for i in ") + range + ":\n        acc += i\n"
                                     "    tl.store(out_ptr, acc)\n", "k", "*i32, 8");
    const ir::Op* c = findOp(*m, Opcode::Constant);
    return c ? c->intAttr("value") : -1;
  };
  EXPECT_EQ(sum("tl.static_range(0, N, step=2)"), 0 + 2 + 4 + 6);
  EXPECT_EQ(sum("tl.static_range(N, step=3)"), 0 + 3 + 6);
  EXPECT_EQ(sum("tl.static_range(arg1=2, arg2=N)"), 2 + 3 + 4 + 5 + 6 + 7);
  EXPECT_EQ(sum("tl.static_range(1, N, step=None)"), 28);
  auto loop = lowerSource(R"(
@triton.jit
def k(out_ptr, n):
    acc = 0
    for i in tl.range(1, n, step=2, num_stages=3):
        acc += i
    tl.store(out_ptr, acc)
)", "k", "*i32, i32");
  const ir::Op* f = findOp(*loop, Opcode::For);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->intAttr("num_stages"), 3);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(out_ptr):
    for i in tl.static_range(start=0, end=4):
        pass
)", "k", "*i32");
  EXPECT_EQ(d.message, "tl.static_range() got an unexpected keyword argument 'start' (it takes arg1, arg2 and step)");
  EXPECT_EQ(srcLine(d), 3);
  EXPECT_EQ(d.loc.col, 30);
  d = lowerError("@triton.jit\ndef k(out_ptr):\n    for i in tl.static_range(4, arg1=2):\n        pass\n", "k", "*i32");
  EXPECT_EQ(d.message, "tl.static_range() got multiple values for argument 'arg1'");
  d = lowerError("@triton.jit\ndef k(out_ptr):\n    for i in tl.static_range(step=2):\n        pass\n", "k", "*i32");
  EXPECT_EQ(d.message, "tl.static_range() missing required argument 'arg1'");
}

TEST(LanguageGaps, IfTakesAOneElementTile) {
  auto m = lowerSource(R"(
@triton.jit
def k(x_ptr):
    c = tl.load(x_ptr + tl.arange(0, 1)) > 42
    if c:
        tl.store(x_ptr, 42)
)", "k", "*i32");
  EXPECT_EQ(countOps(*m, Opcode::If), 1);
  EXPECT_EQ(countOps(*m, Opcode::Reduce), 1);
  Diagnostic d = lowerError(R"(
@triton.jit
def k(x_ptr):
    c = tl.load(x_ptr + tl.arange(0, 2)) > 42
    if c:
        tl.store(x_ptr, 42)
)", "k", "*i32");
  EXPECT_EQ(d.message, "Boolean value of Tensor with more than one value is ambiguous: the if condition is a "
                       "tensor<2xi1> (use tl.where to select element-wise, or reduce the tensor first)");
  EXPECT_EQ(srcLine(d), 4);
  EXPECT_EQ(d.loc.col, 8);
  // A while loop and a conditional expression still need a scalar, as in Triton.
  d = lowerError(R"(
@triton.jit
def k(x_ptr):
    c = tl.load(x_ptr + tl.arange(0, 1)) > 42
    y = 1 if c else 2
)", "k", "*i32");
  EXPECT_TRUE(contains(d.message, "must be a scalar, got a tensor<1xi1>")) << d.message;
}

}  // namespace
}  // namespace kiln::sema::test
