// Encoding TMA tensor maps through the driver (tensor_map.h).
#include "runtime/tensor_map.h"

#include <cstdio>

#include "runtime/cuda_driver.h"

namespace kiln::runtime {

namespace {

const char* dataTypeName(int t) {
  switch (t) {
    case cu::kTensorMapDataTypeUint8: return "UINT8";
    case cu::kTensorMapDataTypeUint16: return "UINT16";
    case cu::kTensorMapDataTypeUint32: return "UINT32";
    case cu::kTensorMapDataTypeInt32: return "INT32";
    case cu::kTensorMapDataTypeUint64: return "UINT64";
    case cu::kTensorMapDataTypeInt64: return "INT64";
    case cu::kTensorMapDataTypeFloat16: return "FLOAT16";
    case cu::kTensorMapDataTypeFloat32: return "FLOAT32";
    case cu::kTensorMapDataTypeFloat64: return "FLOAT64";
    case cu::kTensorMapDataTypeBfloat16: return "BFLOAT16";
  }
  return "data type ?";
}

const char* swizzleName(int s) {
  switch (s) {
    case cu::kTensorMapSwizzleNone: return "none";
    case cu::kTensorMapSwizzle32B: return "32B";
    case cu::kTensorMapSwizzle64B: return "64B";
    case cu::kTensorMapSwizzle128B: return "128B";
  }
  return "?";
}

template <class T>
std::string list(const T* values, size_t n) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

std::string describe(const TensorMapValues& v) {
  char address[32];
  std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(v.address));
  const size_t rank = v.rank <= cu::kTensorMapMaxRank ? v.rank : cu::kTensorMapMaxRank;
  return std::string(dataTypeName(v.dataType)) + " at " + address + ", dims " + list(v.dims, rank) +
         ", byte strides " + list(v.strides, rank ? rank - 1 : 0) + ", box " + list(v.box, rank) + ", swizzle " +
         swizzleName(v.swizzle);
}

cu::TensorMap encodeTensorMap(CudaDriver& driver, int device, const TensorMapValues& v, const std::string& kernel) {
  const auto encode = driver.api().tensorMapEncodeTiled;
  if (!encode)
    throw CudaError(CudaError::Kind::NoDriver,
                    "the CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12.0 or newer), which this "
                    "kernel's TMA tensor maps are encoded with",
                    kernel, "cuTensorMapEncodeTiled");
  const std::uint32_t elementStrides[cu::kTensorMapMaxRank] = {1, 1, 1, 1, 1};
  cu::TensorMap map{};
  driver.makeCurrentAssumed(device);
  cu::Result r = encode(&map, v.dataType, v.rank, reinterpret_cast<void*>(static_cast<std::uintptr_t>(v.address)),
                        v.dims, v.strides, v.box, elementStrides, cu::kTensorMapInterleaveNone, v.swizzle,
                        cu::kTensorMapL2Promotion256B, cu::kTensorMapFloatOobFillNone);
  if (r != cu::kSuccess)
    throw CudaError(CudaError::Kind::CallFailed,
                    "cuTensorMapEncodeTiled failed: " + driver.errorName(r) + " (" + driver.errorDescription(r) +
                        ") for " + describe(v),
                    kernel, "cuTensorMapEncodeTiled", r, driver.errorName(r));
  return map;
}

}  // namespace kiln::runtime
