// Linking a kernel's module with other modules' @jit functions and constants (src/driver/link.h), as
// the Python binding hands them over: the values the kernel computes on the interpreter, the names
// linked functions read in their own module, and where errors point.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/link.h"
#include "ir/scalar_eval.h"
#include "kiln/kiln.h"

namespace {

using kiln::ModuleImports;
using Kind = ModuleImports::Name::Kind;

constexpr const char* kMain = R"(import triton
import triton.language as tl
import helpers
from helpers import add, BLOCK

@triton.jit
def kernel(out_ptr):
    offs = tl.arange(0, BLOCK)
    x = offs.to(tl.float32)
    y = add(x, helpers.SCALE)
    if helpers.FLAG:
        y = y + 1000.0
    if helpers.MODE == "neg":
        y = -y
    if helpers.NOTHING is None:
        y = y + 0.5
    tl.store(out_ptr + offs, y.to(helpers.DT).to(tl.float32))

@triton.jit
def shadow(out_ptr):
    add = 3.0
    tl.store(out_ptr, add)

@triton.jit
def uses_host(out_ptr):
    tl.store(out_ptr, helpers.host(1.0))

@triton.jit
def uses_plain(out_ptr):
    tl.store(out_ptr, helpers.calls_plain(1.0))

@triton.jit
def uses_broken(out_ptr):
    tl.store(out_ptr, helpers.broken(1.0))
)";

constexpr const char* kHelpers = R"(import triton
import triton.language as lang

FACTOR = 2.0

def plain(x):
    return x

@triton.jit
def add(x, y):
    return _twice(x) + y

@triton.jit
def _twice(x, N: lang.constexpr = 2):
    return x * FACTOR * (N - 1)

@triton.jit
def calls_plain(x):
    return plain(x)

@triton.jit
def broken(x):
    return lang.lod(x)
)";

ModuleImports::Name entry(std::string name, Kind kind) {
  ModuleImports::Name n;
  n.file = "main.py";
  n.name = std::move(name);
  n.kind = kind;
  return n;
}

ModuleImports imports() {
  ModuleImports m;
  m.modules.push_back({"helpers", kiln::Source::fromString(kHelpers, "helpers.py")});
  ModuleImports::Name add = entry("add", Kind::Function);
  add.text = "add";
  add.definedIn = "helpers.py";
  m.names.push_back(add);
  for (const char* name : {"helpers.broken", "helpers.calls_plain"}) {
    ModuleImports::Name f = entry(name, Kind::Function);
    f.text = std::string(name).substr(8);
    f.definedIn = "helpers.py";
    m.names.push_back(f);
  }
  ModuleImports::Name block = entry("BLOCK", Kind::Int);
  block.i = 8;
  m.names.push_back(block);
  ModuleImports::Name scale = entry("helpers.SCALE", Kind::Float);
  scale.f = -0.25;
  m.names.push_back(scale);
  ModuleImports::Name flag = entry("helpers.FLAG", Kind::Bool);
  flag.i = 1;
  m.names.push_back(flag);
  ModuleImports::Name mode = entry("helpers.MODE", Kind::String);
  mode.text = "neg";
  m.names.push_back(mode);
  m.names.push_back(entry("helpers.NOTHING", Kind::None));
  ModuleImports::Name dt = entry("helpers.DT", Kind::Alias);
  dt.text = "triton.language.float16";
  m.names.push_back(dt);
  ModuleImports::Name host = entry("helpers.host", Kind::Unsupported);
  host.text = "'helpers.host' is a Python function, not a @jit function";
  m.names.push_back(host);
  return m;
}

kiln::Result<kiln::Kernel> compile(const std::string& kernel, const std::string& signature = "*fp32") {
  return kiln::compileLinked(kiln::Source::fromString(kMain, "main.py"), imports(), kernel, signature, {});
}

TEST(Link, ImportedFunctionsAndConstants) {
  kiln::Result<kiln::Kernel> k = compile("kernel");
  ASSERT_TRUE(k.ok()) << k.error().text;
  std::vector<float> out(8, -1.0f);
  std::vector<kiln::Arg> args = {kiln::Arg::buffer(out)};
  kiln::Status s = kiln::interpret(k.value(), kiln::Grid{}, args);
  ASSERT_TRUE(s.ok()) << s.error->text;
  for (int i = 0; i < 8; ++i) {
    // add(x, SCALE) = 2x * FACTOR... with N = 2: x * 2.0 * 1 - 0.25; then + 1000, negated, + 0.5, as f16.
    double y = -(i * 2.0 - 0.25 + 1000.0) + 0.5;
    EXPECT_EQ(out[size_t(i)], float(kiln::ir::roundToF16(y))) << i;
  }
}

TEST(Link, ALocalHidesAnImportedName) {
  kiln::Result<kiln::Kernel> k = compile("shadow");
  ASSERT_TRUE(k.ok()) << k.error().text;
  std::vector<float> out(1);
  std::vector<kiln::Arg> args = {kiln::Arg::buffer(out)};
  ASSERT_TRUE(kiln::interpret(k.value(), kiln::Grid{}, args).ok());
  EXPECT_EQ(out[0], 3.0f);
}

TEST(Link, UnsupportedNamesAreErrorsAtTheirUse) {
  kiln::Result<kiln::Kernel> k = compile("uses_host");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().file, "main.py");
  EXPECT_EQ(k.error().line, 26);
  EXPECT_EQ(k.error().col, 23);
  EXPECT_EQ(k.error().message, "'helpers.host' is a Python function, not a @jit function");
  // Only what the kernel reaches is linked: the other kernels compile although uses_host cannot.
  EXPECT_TRUE(compile("shadow").ok());
}

TEST(Link, LinkedFunctionsReadTheirOwnModule) {
  kiln::Result<kiln::Kernel> k = compile("uses_plain");
  ASSERT_FALSE(k.ok());
  // `plain` in helpers.py is helpers' own plain function, whatever main.py defines.
  EXPECT_EQ(k.error().file, "helpers.py") << k.error().text;
  EXPECT_EQ(k.error().line, 19);
  EXPECT_EQ(k.error().message,
            "'helpers:plain' is not a @jit function (decorate it with @triton.jit to call it from a kernel)");
  EXPECT_NE(k.error().text.find("helpers.py:6:1: note: 'helpers:plain' is defined here"), std::string::npos)
      << k.error().text;
  EXPECT_NE(k.error().text.find("main.py:30:23: note: in 'helpers.calls_plain' called from here"), std::string::npos)
      << k.error().text;
}

TEST(Link, ErrorsInsideALinkedFunctionPointIntoItsFile) {
  kiln::Result<kiln::Kernel> k = compile("uses_broken");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().file, "helpers.py");
  EXPECT_EQ(k.error().line, 23);
  EXPECT_NE(k.error().text.find("return lang.lod(x)"), std::string::npos) << k.error().text;
  EXPECT_NE(k.error().text.find("in 'helpers.broken' called from here"), std::string::npos) << k.error().text;
}

}  // namespace
