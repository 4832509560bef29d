// Errors at the API boundary: where they point (file, line, column), how they render (source
// line and caret), and the errors that are not about a kernel line: the signature, an unknown
// kernel name, an unreadable file, a num_warps that cannot be.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "kiln/kiln.h"

namespace {

constexpr const char* kKernel = R"(import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)
)";

kiln::Error compileError(const std::string& source, const std::string& signature,
                         const std::string& kernel = "k") {
  kiln::Result<kiln::Kernel> r =
      kiln::compile(kiln::Source::fromString(source, "kernel.py"), kernel, signature);
  if (r.ok()) {
    ADD_FAILURE() << "expected an error for signature '" << signature << "'";
    return {};
  }
  EXPECT_FALSE(r.error().internal) << r.error().text;
  return r.error();
}

// kKernel compiled for "*fp32, i32, 64" with `options`.
kiln::Result<kiln::Kernel> compileWith(const kiln::CompileOptions& options) {
  return kiln::compile(kiln::Source::fromString(kKernel, "kernel.py"), "k", "*fp32, i32, 64", options);
}

TEST(DriverErrors, KernelErrorCarriesLocationAndCaret) {
  kiln::Error e = compileError(kKernel, "*fp32, i32, 100");
  EXPECT_EQ(e.file, "kernel.py");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.col, 39);
  EXPECT_EQ(e.message, "arange's range must be a power of 2, got 100");
  EXPECT_EQ(e.text,
            "kernel.py:6:39: error: arange's range must be a power of 2, got 100\n"
            "      offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n" +
                std::string(2 + 38, ' ') + "^\n");
}

TEST(DriverErrors, SignatureErrorPointsIntoTheSignature) {
  kiln::Error e = compileError(kKernel, "*fp32, i32,  fp33");
  EXPECT_EQ(e.file, "<signature>");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.col, 14);
  EXPECT_EQ(e.text,
            "<signature>:1:14: error: signature entry 3 ('fp33'): unknown type 'fp33'\n"
            "  *fp32, i32,  fp33\n" +
                std::string(2 + 13, ' ') + "^\n");
  // An empty entry points where it would be.
  e = compileError(kKernel, "*fp32,, 16");
  EXPECT_EQ(e.col, 7) << e.text;
  // The first entry, with leading blanks.
  e = compileError(kKernel, "   *fp32:4, i32, 16");
  EXPECT_EQ(e.col, 4) << e.text;
}

// checkNumWarps is the one check of num_warps: compile reports its text as a user error (the CLI and
// the Python binding report the same text: tests/lit/errors/cli.test, tests/python/test_jit.py).
TEST(DriverErrors, NumWarpsMustBeAPowerOfTwoUpTo32) {
  for (int64_t ok : {1, 2, 4, 8, 16, 32}) EXPECT_EQ(kiln::checkNumWarps(ok), std::nullopt) << ok;
  for (int64_t bad : {int64_t(0), int64_t(-4), int64_t(3), int64_t(12), int64_t(64), int64_t(1) << 33})
    EXPECT_EQ(kiln::checkNumWarps(bad), "num_warps must be a power of two from 1 to 32, got " + std::to_string(bad));
  kiln::CompileOptions options;
  options.num_warps = 3;
  kiln::Result<kiln::Kernel> r = compileWith(options);
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.error().internal);
  EXPECT_EQ(r.error().message, "num_warps must be a power of two from 1 to 32, got 3");
}

// maxnreg: ptxas raises a limit under 24 to 24 and ignores one over 255, so both are refused; a valid one
// is the entry's .maxnreg.
TEST(DriverErrors, MaxNRegIsZeroOrFrom24To255) {
  for (int64_t ok : {0, 24, 32, 128, 255}) EXPECT_EQ(kiln::checkMaxNReg(ok), std::nullopt) << ok;
  for (int64_t bad : {int64_t(-1), int64_t(8), int64_t(23), int64_t(256), int64_t(1) << 33})
    EXPECT_EQ(kiln::checkMaxNReg(bad),
              "maxnreg must be 0 (no limit) or from 24 to 255 registers per thread, got " + std::to_string(bad));
  kiln::CompileOptions options;
  options.maxnreg = 16;
  kiln::Result<kiln::Kernel> r = compileWith(options);
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.error().internal);
  options.maxnreg = 40;
  options.arch = "sm_90a";
  r = compileWith(options);
  ASSERT_TRUE(r.ok()) << r.error().text;
  const std::string ptx = r.value().stage("ptx");
  EXPECT_NE(ptx.find(".maxnreg 40\n"), std::string::npos) << ptx;
}

TEST(DriverErrors, UnknownKernelNamesTheFileAndItsKernels) {
  kiln::Error e = compileError(kKernel, "i32", "kk");
  EXPECT_EQ(e.file, "kernel.py");
  EXPECT_EQ(e.line, 0);
  EXPECT_EQ(e.text, "kernel.py: error: no @jit function named 'kk' in kernel.py (its @jit functions: k)\n");
}

TEST(DriverErrors, NulByteInSourceLineIsKept) {
  std::string src = kKernel;
  src.replace(src.find("offs = "), 0, std::string("x = 1\0", 6) + "\n    ");
  kiln::Error e = compileError(src, "*fp32, i32, 16");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.col, 10);
  EXPECT_EQ(e.message, "source code cannot contain null bytes");
  // The rendered text holds the whole source line, NUL included, and the caret line after it.
  EXPECT_EQ(e.text, "kernel.py:6:10: error: source code cannot contain null bytes\n      x = 1" +
                        std::string(1, '\0') + "\n" + std::string(2 + 9, ' ') + "^\n");
}

TEST(DriverErrors, UnreadableFiles) {
  kiln::Result<kiln::Source> missing = kiln::Source::fromFile("/nonexistent/kernel.py");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "cannot read '/nonexistent/kernel.py': No such file or directory");
  EXPECT_FALSE(missing.error().internal);

  const std::string dir = ::testing::TempDir();
  kiln::Result<kiln::Source> directory = kiln::Source::fromFile(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message, "cannot read '" + dir + "': it is a directory");

  kiln::Result<kiln::Source> example =
      kiln::Source::fromFile(std::string(KILN_SOURCE_DIR) + "/examples/vector_add.py");
  ASSERT_TRUE(example.ok()) << example.error().text;
  EXPECT_NE(example.value().text.find("def add_kernel"), std::string::npos);
}

TEST(DriverErrors, NonAsciiOutsideStrings) {
  auto withLine = [](const std::string& line) {
    return std::string("import triton\nimport triton.language as tl\n@triton.jit\ndef k(n):\n") + line + "\n";
  };
  kiln::Error e = compileError(withLine("    x = n \xe2\x80\x93 1"), "i32");  // en dash
  EXPECT_EQ(e.message, "invalid character '\xe2\x80\x93' (U+2013)");
  EXPECT_EQ(e.col, 11);
  e = compileError(withLine("    x = n\xc2\xa0+ 1"), "i32");  // non-breaking space
  EXPECT_EQ(e.message, "invalid non-printable character U+00A0");
  EXPECT_EQ(e.col, 10);
  e = compileError(withLine("    x = n + \xe9"), "i32");  // Latin-1, not UTF-8
  EXPECT_EQ(e.message, "invalid UTF-8 in the source (byte 0xE9)");
  e = compileError(withLine("    x = n + \xc0\x80"), "i32");  // overlong encoding of NUL
  EXPECT_EQ(e.message, "invalid UTF-8 in the source (byte 0xC0)");
  // Letters are names, as in Python; strings and comments take any UTF-8.
  kiln::Result<kiln::Kernel> ok = kiln::compile(
      kiln::Source::fromString(withLine("    \xc3\xa9t\xc3\xa9 = n + 1  # \xe2\x80\x9cquoted\xe2\x80\x9d\n"
                                        "    tl.static_assert(True, \"\xe2\x80\x94 ok \xe2\x80\x94\")"),
                               "kernel.py"),
      "k", "i32");
  EXPECT_TRUE(ok.ok()) << ok.error().text;
}

}  // namespace
