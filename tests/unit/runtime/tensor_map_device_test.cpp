// cuTensorMapEncodeTiled through kiln's dlopen'd driver, on a GPU with TMA (compute capability 9.0 and
// later; skipped elsewhere): a map over device memory encodes, and one the driver refuses (a row stride
// that is not a multiple of 16 bytes, which kiln's launcher would have refused first) fails with a message
// naming the kernel, the call and the values.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/tensor_map.h"

namespace kiln::runtime {
namespace {

std::shared_ptr<CudaDriver> tmaDriver(std::string& whyNot) {
  std::shared_ptr<CudaDriver> driver = CudaDriver::tryOpen(&whyNot);
  if (driver && driver->device(0).computeMajor < 9) {
    whyNot = "device 0 (" + driver->device(0).name + ") has no TMA";
    return nullptr;
  }
  return driver;
}

TensorMapValues matrixOver(cu::DevicePtr address) {
  TensorMapValues v;
  v.dataType = cu::kTensorMapDataTypeFloat16;
  v.rank = 2;
  v.address = address;
  v.dims[0] = 100;  // 100 x 100 halves, rows of 112 elements
  v.dims[1] = 100;
  v.strides[0] = 224;
  v.box[0] = 64;
  v.box[1] = 64;
  v.swizzle = cu::kTensorMapSwizzle128B;
  return v;
}

TEST(DeviceTensorMap, EncodesAndReportsRefusals) {
  std::string whyNot;
  std::shared_ptr<CudaDriver> driver = tmaDriver(whyNot);
  if (!driver) GTEST_SKIP() << whyNot;
  ASSERT_NE(driver->api().tensorMapEncodeTiled, nullptr);
  DeviceBuffer buffer(driver, 0, 224 * 100);
  cu::TensorMap map = encodeTensorMap(*driver, 0, matrixOver(buffer.ptr()), "k");
  cu::TensorMap zero{};
  EXPECT_NE(std::memcmp(&map, &zero, sizeof map), 0) << "the driver wrote nothing";

  TensorMapValues bad = matrixOver(buffer.ptr());
  bad.strides[0] = 200;
  try {
    encodeTensorMap(*driver, 0, bad, "k");
    FAIL() << "a 200-byte row stride was encoded";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.kind(), CudaError::Kind::CallFailed);
    EXPECT_EQ(e.call(), "cuTensorMapEncodeTiled");
    EXPECT_EQ(e.codeName(), "CUDA_ERROR_INVALID_VALUE");
    const std::string expected = "kernel 'k': cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (";
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    EXPECT_NE(std::string(e.what()).find(") for FLOAT16 at 0x"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("byte strides [200]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::runtime
