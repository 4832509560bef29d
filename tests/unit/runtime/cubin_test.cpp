// PTX -> cubin through nvJitLink (no GPU needed): ELF output for sm_80 and sm_90a, clear errors with
// the assembler's log, resource usage from the verbose log, target names. The ptxas backend, Auto's
// first choice, is tested in ptxas_test.cpp.
#include "runtime/cubin.h"

#include <gtest/gtest.h>

#include <string>

#include "test_ptx.h"
#include "expect_error.h"

namespace kiln::runtime {
namespace {

using testing::vectorAddPtx;
using testing::vectorAddPtxWithSyntaxError;

// The nvJitLink backend asked for by name (Auto would take ptxas first).
CubinOptions jitLink() {
  CubinOptions options;
  options.backend = CubinOptions::Backend::NvJitLink;
  return options;
}

bool isElf(const Bytes& image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F';
}

class NvJitLink : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!nvJitLinkAvailable(&why)) GTEST_SKIP() << "no nvJitLink: " << why;
  }
};

// Runs f, which must throw CudaError, and returns it.
using testing::thrown;

TEST_F(NvJitLink, VectorAddForSm80AndSm90a) {
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    Cubin cubin = compileToCubin(vectorAddPtx(arch), arch, jitLink());
    EXPECT_TRUE(isElf(cubin.image)) << arch;
    EXPECT_GT(cubin.image.size(), 256u) << arch;
    EXPECT_EQ(cubin.backend, "nvJitLink");
    EXPECT_EQ(cubin.arch, arch);
    ASSERT_EQ(cubin.resources.size(), 1u) << cubin.infoLog;
    const KernelResources& k = cubin.resources[0];
    EXPECT_EQ(k.kernel, "vector_add");
    EXPECT_GT(k.registers, 4) << cubin.infoLog;
    EXPECT_LT(k.registers, 64) << cubin.infoLog;
    EXPECT_EQ(k.spillStoreBytes, 0);
    EXPECT_EQ(k.spillLoadBytes, 0);
    EXPECT_EQ(k.stackFrameBytes, 0);
    EXPECT_EQ(k.barriers, 0);
  }
}

TEST_F(NvJitLink, GenericPtxForHopper) {
  // kiln's generic path: .target sm_80 PTX assembled for the device's arch.
  Cubin cubin = compileToCubin(vectorAddPtx("sm_80"), "sm_90a", jitLink());
  EXPECT_TRUE(isElf(cubin.image));
  Cubin shared = compileToCubin(testing::sharedReversePtx("sm_80"), "sm_90a", jitLink());
  ASSERT_EQ(shared.resources.size(), 1u);
  EXPECT_EQ(shared.resources[0].kernel, "shared_reverse");
  EXPECT_EQ(shared.resources[0].barriers, 1);
}

TEST_F(NvJitLink, SameInputSameCubin) {
  EXPECT_EQ(compileToCubin(vectorAddPtx(), "sm_90a", jitLink()).image,
            compileToCubin(vectorAddPtx(), "sm_90a", jitLink()).image);
}

TEST_F(NvJitLink, OptionsAreAccepted) {
  CubinOptions options = jitLink();
  options.maxRegisters = 32;
  options.lineInfo = true;
  options.optLevel = 1;
  options.extraNvJitLinkOptions = {"-Xptxas=-warn-spills"};
  EXPECT_TRUE(isElf(compileToCubin(vectorAddPtx(), "sm_80", options).image));
}

TEST_F(NvJitLink, SyntaxErrorGivesTheLog) {
  const std::string ptx = vectorAddPtxWithSyntaxError("sm_90a");
  CubinOptions options = jitLink();
  options.kernelName = "vector_add";
  CudaError e = thrown([&] { compileToCubin(ptx, "sm_90a", options); });
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_EQ(e.call(), "nvJitLinkAddData");
  EXPECT_EQ(e.codeName(), "NVJITLINK_ERROR_PTX_COMPILE");
  EXPECT_EQ(e.kernel(), "vector_add");
  EXPECT_NE(e.log().find("syntax error"), std::string::npos) << e.log();
  const std::string what = e.what();
  EXPECT_EQ(what.rfind("kernel 'vector_add': PTX -> cubin for sm_90a failed: nvJitLinkAddData: "
                       "NVJITLINK_ERROR_PTX_COMPILE\n",
                       0),
            0u)
      << what;
  EXPECT_NE(what.find("Parsing error near"), std::string::npos) << what;  // ptxas' own words
}

TEST_F(NvJitLink, TargetHigherThanArchIsRejected) {
  CudaError e = thrown([&] { compileToCubin(vectorAddPtx("sm_90a"), "sm_80", jitLink()); });
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_NE(e.log().find("SM version"), std::string::npos) << e.log();
}

TEST_F(NvJitLink, ArchUnknownToNvJitLink) {
  CudaError e = thrown([&] { compileToCubin(vectorAddPtx(), "sm_99", jitLink()); });
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_EQ(e.call(), "nvJitLinkCreate");
  EXPECT_NE(std::string(e.what()).find("-arch=sm_99"), std::string::npos) << e.what();
}

TEST(Cubin, MalformedArchIsRejectedBeforeAnyAssembler) {
  for (const std::string arch : {"", "sm_", "sm_9x", "compute_90", "90", "sm_90b"}) {
    CudaError e = thrown([&] { compileToCubin(vectorAddPtx(), arch); });
    EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed) << arch;
    EXPECT_NE(std::string(e.what()).find("unknown target architecture '" + arch + "'"), std::string::npos)
        << e.what();
  }
}

TEST(Cubin, DriverBackendNeedsADriver) {
  CubinOptions options;
  options.backend = CubinOptions::Backend::Driver;
  CudaError e = thrown([&] { compileToCubin(vectorAddPtx(), "sm_80", options, nullptr); });
  EXPECT_EQ(e.kind(), CudaError::Kind::NoDriver);
}

TEST(Cubin, JitTargets) {
  EXPECT_EQ(jitTargetFor("sm_80"), 80);
  EXPECT_EQ(jitTargetFor("sm_86"), 86);
  EXPECT_EQ(jitTargetFor("sm_90"), 90);
  EXPECT_EQ(jitTargetFor("sm_90a"), 0x10000 + 90);
  EXPECT_EQ(jitTargetFor("sm_100a"), 0x10000 + 100);
  EXPECT_EQ(jitTargetFor("sm_"), -1);
  EXPECT_EQ(jitTargetFor("sm_a"), -1);
  EXPECT_EQ(jitTargetFor("sm_8x"), -1);
  EXPECT_EQ(jitTargetFor("SM_80"), -1);
}

TEST(Cubin, ParsesResourceUsage) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for helper\n"
      "ptxas         .     24 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'matmul' for 'sm_90a'\n"
      "ptxas info    : Function properties for matmul\n"
      "ptxas         .     40 bytes stack frame, 36 bytes spill stores, 28 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 2 barriers, 32768 bytes smem, 400 bytes cmem[0]\n"
      "ptxas info    : Compile time = 15.547 ms\n"
      "ptxas info    : Compiling entry function 'tiny' for 'sm_90a'\n"
      "ptxas info    : Function properties for tiny\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers\n"
      "info    : Function properties for 'tiny':\n"
      "info    : used 8 registers, used 0 barriers, 0 stack, 0 bytes smem, 556 bytes cmem[0], 0 bytes lmem\n";
  std::vector<KernelResources> r = parseResourceUsage(log);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kernel, "matmul");
  EXPECT_EQ(r[0].registers, 255);
  EXPECT_EQ(r[0].barriers, 2);
  EXPECT_EQ(r[0].stackFrameBytes, 40);
  EXPECT_EQ(r[0].spillStoreBytes, 36);
  EXPECT_EQ(r[0].spillLoadBytes, 28);
  EXPECT_EQ(r[0].sharedBytes, 32768);
  EXPECT_EQ(r[1].kernel, "tiny");
  EXPECT_EQ(r[1].registers, 8);
  EXPECT_EQ(r[1].sharedBytes, 0);
  EXPECT_EQ(r[1].spillStoreBytes, 0);
  EXPECT_TRUE(parseResourceUsage("").empty());
  EXPECT_TRUE(parseResourceUsage("ptxas info    : Used 12 registers\n").empty());  // no kernel named
}

}  // namespace
}  // namespace kiln::runtime
