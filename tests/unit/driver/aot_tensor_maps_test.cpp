// kiln aot refuses a kernel whose GPU code takes TMA tensor maps (its launchers do not encode them), with
// an error at the kernel's definition; a kernel without maps passes, as does its real AOT compile.
#include <gtest/gtest.h>

#include "driver/aot_tensor_maps.h"
#include "kiln/aot.h"

namespace kiln::aot {
namespace {

constexpr const char* kKernel = R"(import triton
import triton.language as tl

@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
)";

TEST(AotTensorMaps, RefusedAtTheKernelsDefinition) {
  Result<Kernel> kernel = compile(Source::fromString(kKernel, "copy.py"), "copy", "*fp16:16, *fp16:16, i32, 64");
  ASSERT_TRUE(kernel.ok()) << kernel.error().text;
  GpuCode code;
  code.arch = "sm_90a";
  EXPECT_EQ(refuseTensorMaps(kernel.value(), code), std::nullopt);
  TensorMapSpec spec;
  spec.base = {0, 0};
  spec.shape = {{2, 0}};
  spec.strides = {{-1, 1}};
  spec.box = {64};
  code.tensorMaps = {spec, spec};
  std::optional<Error> e = refuseTensorMaps(kernel.value(), code);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message, "kernel 'copy' accesses global memory through 2 TMA tensor maps on sm_90a, which kiln's AOT "
                        "launchers do not encode; compile it for sm_80, or launch it through the JIT");
  EXPECT_EQ(e->file, "copy.py");
  EXPECT_EQ(e->line, 5);
  EXPECT_FALSE(e->internal);
  EXPECT_NE(e->text.find("copy.py:5:"), std::string::npos) << e->text;
}

TEST(AotTensorMaps, KernelsWithoutMapsCompile) {
  Options o;
  o.kernel = "copy";
  o.signature = "*fp16:16, *fp16:16, i32, 64";
  o.arch = "sm_90a";
  Result<std::vector<File>> files = compileVariant(Source::fromString(kKernel, "copy.py"), o);
  ASSERT_TRUE(files.ok()) << files.error().text;
  EXPECT_EQ(files.value().size(), 2u);
}

}  // namespace
}  // namespace kiln::aot
