// CudaDriver where there is no usable driver (missing library, a library that is not a driver, the
// toolkit's stub), the error message format, and target names; none of this needs a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "runtime/cuda_driver.h"
#include "expect_error.h"

namespace kiln::runtime {
namespace {

using testing::thrown;

TEST(CudaError, MessageNamesKernelCallAndCode) {
  CudaError e = CudaError::callFailed("cuLaunchKernelEx", 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument",
                                      "vector_add");
  EXPECT_STREQ(e.what(),
               "kernel 'vector_add': cuLaunchKernelEx failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_EQ(e.kind(), CudaError::Kind::CallFailed);
  EXPECT_EQ(e.call(), "cuLaunchKernelEx");
  EXPECT_EQ(e.code(), 1);
  EXPECT_EQ(e.codeName(), "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(e.kernel(), "vector_add");

  CudaError noKernel = CudaError::callFailed("cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
  EXPECT_STREQ(noKernel.what(), "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");

  CudaError withLog = CudaError::callFailed("cuModuleLoadDataEx", 218, "CUDA_ERROR_INVALID_PTX",
                                            "a PTX JIT compilation failed", "k", "ptxas fatal: bad\n\n");
  EXPECT_STREQ(
      withLog.what(),
      "kernel 'k': cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\n"
      "ptxas fatal: bad");
  EXPECT_EQ(withLog.log(), "ptxas fatal: bad\n\n");
}

TEST(CudaDriver, MissingLibraryIsAClearError) {
  CudaError e = thrown([] { CudaDriver::open("/nonexistent/dir/libcuda.so.1"); });
  EXPECT_EQ(e.kind(), CudaError::Kind::NoDriver);
  const std::string what = e.what();
  EXPECT_EQ(what.rfind("no CUDA driver: /nonexistent/dir/libcuda.so.1 could not be loaded (", 0), 0u) << what;
  EXPECT_EQ(what.back(), ')');

  std::string why = "unchanged";
  EXPECT_EQ(CudaDriver::tryOpen(&why, "/nonexistent/dir/libcuda.so.1"), nullptr);
  EXPECT_EQ(why, what);
}

TEST(CudaDriver, LibraryThatIsNotADriver) {
  CudaError e = thrown([] { CudaDriver::open("libm.so.6"); });
  EXPECT_EQ(e.kind(), CudaError::Kind::NoDriver);
  const std::string what = e.what();
  EXPECT_NE(what.find("no usable CUDA driver: libm.so.6 lacks "), std::string::npos) << what;
  EXPECT_NE(what.find("cuLaunchKernel, "), std::string::npos) << what;  // the classic launch, then the Ex one
  EXPECT_NE(what.find("cuLaunchKernelEx"), std::string::npos) << what;
  EXPECT_NE(what.find("cuMemAlloc_v2"), std::string::npos) << what;
}

// The toolkit's stub libcuda exports every entry point but cuInit fails. It is loaded in a child
// process: its soname is libcuda.so.1, so in this process it could shadow a real driver.
TEST(CudaDriver, ToolkitStubIsNotADriver) {
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (access(stub, R_OK) != 0) GTEST_SKIP() << "no " << stub;
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        try {
          CudaDriver::open(stub);
        } catch (const CudaError& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(e.kind() == CudaError::Kind::NoDriver ? 0 : 2);
        }
        std::_Exit(3);
      },
      ::testing::ExitedWithCode(0),
      "no CUDA driver: /usr/local/cuda/lib64/stubs/libcuda.so is the CUDA toolkit's stub library, not a "
      "driver "
      "\\(cuInit: CUDA_ERROR_STUB_LIBRARY\\)");
}

// On this machine: either a working driver with devices, or a clear reason; never a crash.
TEST(CudaDriver, DefaultLibraryOpensOrSaysWhy) {
  std::string why;
  std::shared_ptr<CudaDriver> driver = CudaDriver::tryOpen(&why);
  if (!driver) {
    EXPECT_TRUE(why.rfind("no CUDA driver", 0) == 0 || why.rfind("no usable CUDA driver", 0) == 0 ||
                why.rfind("no CUDA device found", 0) == 0)
        << why;
    CudaError e = thrown([] { CudaDriver::open(); });
    EXPECT_TRUE(e.kind() == CudaError::Kind::NoDriver || e.kind() == CudaError::Kind::NoDevice);
    return;
  }
  EXPECT_GT(driver->deviceCount(), 0);
  EXPECT_GE(driver->driverVersion(), 12000);
  CudaError e = thrown([&] { driver->device(driver->deviceCount()); });
  EXPECT_EQ(e.kind(), CudaError::Kind::NoDevice);
}

TEST(DeviceInfo, ArchNames) {
  DeviceInfo d;
  d.computeMajor = 9, d.computeMinor = 0;
  EXPECT_EQ(d.arch(), "sm_90a");
  d.computeMajor = 8, d.computeMinor = 0;
  EXPECT_EQ(d.arch(), "sm_80");
  d.computeMajor = 8, d.computeMinor = 6;
  EXPECT_EQ(d.arch(), "sm_86");
  d.computeMajor = 10, d.computeMinor = 0;
  EXPECT_EQ(d.arch(), "sm_100");
}

}  // namespace
}  // namespace kiln::runtime
