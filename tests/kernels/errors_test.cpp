// Failures must be Errors, never crashes: out-of-bounds loads and stores name the kernel and the
// source line; a failed device assert likewise; wrong argument counts or kinds, an unknown
// kernel and a malformed signature are reported as errors.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

// Line numbers below refer to this text (line 1 is the import).
constexpr const char* kUnmasked = R"(import triton.language as tl
import triton

@triton.jit
def copy_unmasked(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x)

@triton.jit
def checked_sqrt(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(x >= 0, "negative input")
    tl.store(y_ptr + offs, tl.sqrt(x), mask=offs < n)
)";

std::optional<kiln::Kernel> compileString(std::string_view kernel, std::string_view sig) {
  auto k = kiln::compile(kiln::Source::fromString(kUnmasked, "unmasked.py"), kernel, sig);
  if (!k) {
    ADD_FAILURE() << k.error().text;
    return std::nullopt;
  }
  return k.value();
}

void expectNamesKernelAndLine(const kiln::Status& s, const std::string& kernel, int line, const std::string& code) {
  ASSERT_FALSE(s.ok()) << "expected an error";
  const kiln::Error& e = *s.error;
  EXPECT_FALSE(e.internal) << e.text;
  EXPECT_EQ(e.line, line) << e.text;
  EXPECT_NE(e.text.find(kernel), std::string::npos) << "the error should name the kernel:\n" << e.text;
  EXPECT_NE(e.text.find("unmasked.py:" + std::to_string(line) + ":"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find(code), std::string::npos) << "the error should show the source line:\n" << e.text;
}

TEST(Errors, OutOfBoundsLoad) {
  auto k = compileString("copy_unmasked", "*fp32, *fp32, 64");
  ASSERT_TRUE(k);
  std::vector<float> x(100, 1.0f), y(128);
  const kiln::Status s = kiln::interpret(*k, {2}, std::vector<Arg>{Arg::buffer(x), Arg::buffer(y)});
  expectNamesKernelAndLine(s, "copy_unmasked", 7, "x = tl.load(x_ptr + offs)");
}

TEST(Errors, OutOfBoundsStoreLeavesMemoryPastTheBufferAlone) {
  auto k = compileString("copy_unmasked", "*fp32, *fp32, 64");
  ASSERT_TRUE(k);
  // y has room for 128 floats, but the kernel is only given the first 100 of them.
  std::vector<float> x(128, 1.0f), y(128, 7.0f);
  const kiln::Status s =
      kiln::interpret(*k, {2}, std::vector<Arg>{Arg::buffer(x), Arg::buffer(y.data(), 100 * sizeof(float))});
  expectNamesKernelAndLine(s, "copy_unmasked", 8, "tl.store(y_ptr + offs, x)");
  for (int i = 100; i < 128; ++i) EXPECT_EQ(y[i], 7.0f) << "element " << i << " past the buffer was written";
}

TEST(Errors, InBoundsRunSucceeds) {
  // The same kernel on buffers that are large enough: the failures above are about bounds.
  auto k = compileString("copy_unmasked", "*fp32, *fp32, 64");
  ASSERT_TRUE(k);
  std::vector<float> x(128, 3.0f), y(128);
  poison(y);
  ASSERT_TRUE(run(*k, {2}, {Arg::buffer(x), Arg::buffer(y)}));
  EXPECT_TRUE(allEqual(y, x));
}

TEST(Errors, DeviceAssert) {
  auto k = compileString("checked_sqrt", "*fp32, *fp32, i32, 16");
  ASSERT_TRUE(k);
  std::vector<float> x(20, 4.0f), y(20);
  ASSERT_TRUE(run(*k, {2}, {Arg::buffer(x), Arg::buffer(y), Arg::integer(20)}));
  EXPECT_EQ(y[19], 2.0f);
  x[17] = -1.0f;
  const kiln::Status s = kiln::interpret(*k, {2}, std::vector<Arg>{Arg::buffer(x), Arg::buffer(y), Arg::integer(20)});
  expectNamesKernelAndLine(s, "checked_sqrt", 14, "tl.device_assert(x >= 0");
  if (!s.ok()) {
    EXPECT_NE(s.error->text.find("negative input"), std::string::npos) << s.error->text;
  }
}

TEST(Errors, WrongArgumentCount) {
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 64");
  ASSERT_TRUE(k);
  std::vector<float> x(64), y(64), out(64);
  const std::vector<std::vector<Arg>> wrong = {
      {},
      {Arg::buffer(x), Arg::buffer(y), Arg::buffer(out)},
      {Arg::buffer(x), Arg::buffer(y), Arg::buffer(out), Arg::integer(64), Arg::integer(1)},
  };
  for (const auto& args : wrong) {
    SCOPED_TRACE(std::to_string(args.size()) + " arguments for 4 parameters");
    const kiln::Status s = kiln::interpret(*k, {1}, args);
    ASSERT_FALSE(s.ok());
    EXPECT_FALSE(s.error->internal) << s.error->text;
    EXPECT_NE(s.error->text.find("argument"), std::string::npos) << s.error->text;
  }
}

TEST(Errors, WrongArgumentKind) {
  auto k = compileExample("vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 64");
  ASSERT_TRUE(k);
  std::vector<float> x(64), y(64), out(64);
  // A scalar where a pointer is expected, and a buffer where a scalar is expected.
  for (const auto& args : {std::vector<Arg>{Arg::integer(0), Arg::buffer(y), Arg::buffer(out), Arg::integer(64)},
                           std::vector<Arg>{Arg::buffer(x), Arg::buffer(y), Arg::buffer(out), Arg::buffer(x)}}) {
    const kiln::Status s = kiln::interpret(*k, {1}, args);
    ASSERT_FALSE(s.ok());
    EXPECT_FALSE(s.error->internal) << s.error->text;
  }
}

TEST(Errors, CompileErrors) {
  auto src = kiln::Source::fromFile(examplePath("vector_add.py"));
  ASSERT_TRUE(src) << src.error().text;
  auto unknown = kiln::compile(src.value(), "no_such_kernel", "*fp32");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().text.find("no_such_kernel"), std::string::npos) << unknown.error().text;
  EXPECT_FALSE(unknown.error().internal);
  // Too few and too many signature entries for the five parameters; an unknown dtype.
  for (const char* sig : {"*fp32, *fp32", "*fp32, *fp32, *fp32, i32, 1024, 7", "*fp32, *nope, *fp32, i32, 1024"}) {
    SCOPED_TRACE(sig);
    auto bad = kiln::compile(src.value(), "add_kernel", sig);
    ASSERT_FALSE(bad.ok());
    EXPECT_FALSE(bad.error().internal) << bad.error().text;
  }
  auto missing = kiln::Source::fromFile(examplePath("does_not_exist.py"));
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace kt
