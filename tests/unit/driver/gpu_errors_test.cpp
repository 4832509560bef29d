// The GPU path's environment failures as ordinary errors, not internal ones: Gpu::open without a
// driver or GPU, and assembleCubin with a ptxas that fails (these used to come back as "internal
// compiler error: unexpected exception" because CudaError was caught as a std::exception).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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

TEST(GpuErrors, OpenWithoutDriverOrDeviceIsAUserError) {
  kiln::Result<kiln::Gpu> gpu = kiln::Gpu::open();
  if (gpu.ok()) GTEST_SKIP() << "this machine has a GPU: " << gpu->name();
  const kiln::Error& e = gpu.error();
  EXPECT_FALSE(e.internal) << e.text;
  EXPECT_EQ(e.text.find("internal"), std::string::npos) << e.text;
  EXPECT_NE(e.message.find("CUDA"), std::string::npos) << e.text;
  // One line: the rendering is "error: <message>" and a newline at most.
  std::string line = e.text;
  while (!line.empty() && line.back() == '\n') line.pop_back();
  EXPECT_EQ(line.find('\n'), std::string::npos) << e.text;
  EXPECT_EQ(line, "error: " + e.message);
}

TEST(GpuErrors, OpenBadOrdinalIsAUserError) {
  kiln::Result<kiln::Gpu> gpu = kiln::Gpu::open(1000);
  ASSERT_FALSE(gpu.ok());
  EXPECT_FALSE(gpu.error().internal) << gpu.error().text;
}

// A ptxas that answers --version but exits 255 on the PTX, with a message on stderr.
TEST(GpuErrors, FailingPtxasNamesTheToolAndItsMessage) {
  std::string dir = (std::filesystem::temp_directory_path() / "kiln-gpu-errors-XXXXXX").string();
  ASSERT_TRUE(mkdtemp(dir.data()));
  const std::string tool = dir + "/ptxas";
  {
    std::ofstream out(tool);
    out << "#!/bin/sh\n"
           "if [ \"$1\" = \"--version\" ]; then echo 'ptxas: NVIDIA (R) Ptx optimizing assembler'; exit 0; fi\n"
           "echo \"ptxas fatal   : Unresolved extern function 'oops'\" >&2\n"
           "exit 255\n";
  }
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);
  const char* old = std::getenv("KILN_PTXAS");
  const std::string saved = old ? old : "";
  ::setenv("KILN_PTXAS", tool.c_str(), 1);

  kiln::CompileOptions options;
  options.arch = "sm_90a";
  kiln::Result<kiln::Kernel> kernel =
      kiln::compile(kiln::Source::fromString(kKernel, "kernel.py"), "k", "*fp32, i32, 16", options);
  ASSERT_TRUE(kernel.ok()) << kernel.error().text;
  kiln::Result<std::vector<uint8_t>> cubin = kiln::assembleCubin(kernel.value(), "sm_90a");

  if (old) ::setenv("KILN_PTXAS", saved.c_str(), 1);
  else ::unsetenv("KILN_PTXAS");
  std::filesystem::remove_all(dir);

  ASSERT_FALSE(cubin.ok());
  const kiln::Error& e = cubin.error();
  EXPECT_FALSE(e.internal) << e.text;
  EXPECT_EQ(e.text.find("internal"), std::string::npos) << e.text;
  EXPECT_NE(e.message.find("ptxas: exit status 255"), std::string::npos) << e.text;
  EXPECT_NE(e.message.find("Unresolved extern function 'oops'"), std::string::npos) << e.text;
}

}  // namespace
