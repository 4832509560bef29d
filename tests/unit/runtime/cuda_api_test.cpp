// Checks runtime/cuda_api.h against the CUDA toolkit's own cuda.h and nvJitLink.h at compile time:
// constants, struct layouts, handle types, which versioned symbol each entry point must be, and the
// shape (return and parameter sizes, pointer or not) of every signature. Skipped without a toolkit.
#include "runtime/cuda_api.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

#if __has_include("/usr/local/cuda/include/cuda.h") && __has_include("/usr/local/cuda/include/nvJitLink.h")
#include "/usr/local/cuda/include/cuda.h"
#include "/usr/local/cuda/include/nvJitLink.h"
#define KILN_HAVE_CUDA_HEADERS 1
#endif

namespace kiln::runtime {
namespace {

#ifdef KILN_HAVE_CUDA_HEADERS

// A signature's shape: for the return and each parameter, 2 * size + (1 if a pointer).
template <class F>
struct Shape;
template <class R, class... A>
struct Shape<R (*)(A...)> {
  static constexpr std::array<size_t, sizeof...(A) + 1> value{sizeof(R) * 2 + std::is_pointer_v<R>,
                                                              (sizeof(A) * 2 + std::is_pointer_v<A>)...};
};
template <class F, class G>
constexpr bool sameShape() {
  constexpr auto a = Shape<F>::value;
  constexpr auto b = Shape<G>::value;
  if constexpr (a.size() != b.size()) {
    return false;
  } else {
    return a == b;
  }
}

#define KILN_STR2(x) #x
#define KILN_STR(x) KILN_STR2(x)

// cuda.h's macro for `name` must expand to the symbol kiln looks up, and kiln's signature must have
// the shape of cuda.h's.
#define KILN_CHECK_DRIVER(member, name, symbol, ret, params)                                        \
  static_assert(std::string_view(KILN_STR(name)) == #symbol, #name " is not exported as " #symbol); \
  static_assert(sameShape<decltype(&::symbol), decltype(cu::DriverApi::member)>(), #symbol " signature");
KILN_CUDA_DRIVER_FUNCTIONS(KILN_CHECK_DRIVER)
KILN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(KILN_CHECK_DRIVER)
#undef KILN_CHECK_DRIVER

#define KILN_CHECK_NVJITLINK(member, name, symbol, ret, params) \
  static_assert(sameShape<decltype(&::symbol), decltype(cu::NvJitLinkApi::member)>(), #symbol " signature");
KILN_NVJITLINK_FUNCTIONS(KILN_CHECK_NVJITLINK)
#undef KILN_CHECK_NVJITLINK

// cuLaunchKernel (every kernel launch calls it) takes exactly cuda.h's parameter types, not only types
// of the same shape.
template <class F>
struct Params;
template <class R, class... A>
struct Params<R (*)(A...)> {
  using type = std::tuple<A...>;
};
static_assert(std::is_same_v<Params<decltype(&::cuLaunchKernel)>::type,
                             Params<decltype(cu::DriverApi::launchKernel)>::type>);

// Handle types are cuda.h's own.
static_assert(std::is_same_v<cu::Context, CUcontext>);
static_assert(std::is_same_v<cu::Module, CUmodule>);
static_assert(std::is_same_v<cu::Function, CUfunction>);
static_assert(std::is_same_v<cu::Stream, CUstream>);
static_assert(std::is_same_v<cu::LinkState, CUlinkState>);
static_assert(std::is_same_v<cu::DevicePtr, CUdeviceptr>);
static_assert(std::is_same_v<cu::Device, CUdevice>);
static_assert(sizeof(cu::Result) == sizeof(CUresult));
static_assert(sizeof(cu::NvJitLinkHandle) == sizeof(nvJitLinkHandle));

static_assert(cu::kSuccess == CUDA_SUCCESS);
static_assert(cu::kErrorInvalidValue == CUDA_ERROR_INVALID_VALUE);
static_assert(cu::kErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(cu::kErrorNotInitialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(cu::kErrorStubLibrary == CUDA_ERROR_STUB_LIBRARY);
static_assert(cu::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cu::kErrorInvalidDevice == CUDA_ERROR_INVALID_DEVICE);
static_assert(cu::kErrorInvalidImage == CUDA_ERROR_INVALID_IMAGE);
static_assert(cu::kErrorNoBinaryForGpu == CUDA_ERROR_NO_BINARY_FOR_GPU);
static_assert(cu::kErrorInvalidPtx == CUDA_ERROR_INVALID_PTX);
static_assert(cu::kErrorUnsupportedPtxVersion == CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
static_assert(cu::kErrorNotFound == CUDA_ERROR_NOT_FOUND);
static_assert(cu::kErrorLaunchOutOfResources == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);

static_assert(cu::kDevAttrMaxThreadsPerBlock == CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cu::kDevAttrMaxGridDimX == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
static_assert(cu::kDevAttrMaxGridDimY == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
static_assert(cu::kDevAttrMaxGridDimZ == CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
static_assert(cu::kDevAttrMaxSharedMemoryPerBlock == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(cu::kDevAttrWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(cu::kDevAttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::kDevAttrComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::kDevAttrComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::kDevAttrMaxSharedMemoryPerMultiprocessor ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
static_assert(cu::kDevAttrMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);

static_assert(cu::kFuncAttrMaxThreadsPerBlock == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cu::kFuncAttrSharedSizeBytes == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(cu::kFuncAttrConstSizeBytes == CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
static_assert(cu::kFuncAttrLocalSizeBytes == CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
static_assert(cu::kFuncAttrNumRegs == CU_FUNC_ATTRIBUTE_NUM_REGS);
static_assert(cu::kFuncAttrPtxVersion == CU_FUNC_ATTRIBUTE_PTX_VERSION);
static_assert(cu::kFuncAttrBinaryVersion == CU_FUNC_ATTRIBUTE_BINARY_VERSION);
static_assert(cu::kFuncAttrMaxDynamicSharedSizeBytes == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);

static_assert(cu::kJitMaxRegisters == CU_JIT_MAX_REGISTERS);
static_assert(cu::kJitInfoLogBuffer == CU_JIT_INFO_LOG_BUFFER);
static_assert(cu::kJitInfoLogBufferSizeBytes == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::kJitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(cu::kJitErrorLogBufferSizeBytes == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::kJitOptimizationLevel == CU_JIT_OPTIMIZATION_LEVEL);
static_assert(cu::kJitTarget == CU_JIT_TARGET);
static_assert(cu::kJitLogVerbose == CU_JIT_LOG_VERBOSE);
static_assert(cu::kJitGenerateLineInfo == CU_JIT_GENERATE_LINE_INFO);
static_assert(cu::kJitInputPtx == CU_JIT_INPUT_PTX);
static_assert(cu::kJitAcceleratedTargetBase + 90 == CU_TARGET_COMPUTE_90A);
static_assert(cu::kLaunchAttrClusterDimension == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
static_assert(cu::kLaunchAttrCooperative == CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
static_assert(cu::kLaunchAttrProgrammaticStreamSerialization == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
static_assert(cu::kErrorCooperativeLaunchTooLarge == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
static_assert(cu::kPointerAttrMemoryType == CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
static_assert(cu::kPointerAttrIsManaged == CU_POINTER_ATTRIBUTE_IS_MANAGED);
static_assert(cu::kPointerAttrDeviceOrdinal == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
static_assert(cu::kMemoryTypeDevice == CU_MEMORYTYPE_DEVICE);
static_assert(sizeof(CUpointer_attribute) == sizeof(int));
static_assert(cu::kTensorMapDataTypeUint8 == CU_TENSOR_MAP_DATA_TYPE_UINT8);
static_assert(cu::kTensorMapDataTypeUint16 == CU_TENSOR_MAP_DATA_TYPE_UINT16);
static_assert(cu::kTensorMapDataTypeUint32 == CU_TENSOR_MAP_DATA_TYPE_UINT32);
static_assert(cu::kTensorMapDataTypeInt32 == CU_TENSOR_MAP_DATA_TYPE_INT32);
static_assert(cu::kTensorMapDataTypeUint64 == CU_TENSOR_MAP_DATA_TYPE_UINT64);
static_assert(cu::kTensorMapDataTypeInt64 == CU_TENSOR_MAP_DATA_TYPE_INT64);
static_assert(cu::kTensorMapDataTypeFloat16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
static_assert(cu::kTensorMapDataTypeFloat32 == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
static_assert(cu::kTensorMapDataTypeFloat64 == CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
static_assert(cu::kTensorMapDataTypeBfloat16 == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
static_assert(cu::kTensorMapInterleaveNone == CU_TENSOR_MAP_INTERLEAVE_NONE);
static_assert(cu::kTensorMapSwizzleNone == CU_TENSOR_MAP_SWIZZLE_NONE);
static_assert(cu::kTensorMapSwizzle32B == CU_TENSOR_MAP_SWIZZLE_32B);
static_assert(cu::kTensorMapSwizzle64B == CU_TENSOR_MAP_SWIZZLE_64B);
static_assert(cu::kTensorMapSwizzle128B == CU_TENSOR_MAP_SWIZZLE_128B);
static_assert(cu::kTensorMapL2Promotion128B == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
static_assert(cu::kTensorMapL2Promotion256B == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(cu::kTensorMapFloatOobFillNone == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
static_assert(sizeof(cu::TensorMap) == sizeof(CUtensorMap) && sizeof(cu::TensorMap) == 128);
static_assert(alignof(cu::TensorMap) == alignof(CUtensorMap) && alignof(cu::TensorMap) % 64 == 0);
static_assert(sizeof(CUtensorMapDataType) == sizeof(int) && sizeof(CUtensorMapSwizzle) == sizeof(int));
// cuTensorMapEncodeTiled's array parameters: kiln's std::uint64_t / std::uint32_t are cuda.h's types.
static_assert(std::is_same_v<cuuint64_t, std::uint64_t> && std::is_same_v<cuuint32_t, std::uint32_t>);
static_assert(cu::kGetProcAddressLegacyStream == CU_GET_PROC_ADDRESS_LEGACY_STREAM);

static_assert(cu::kNvJitLinkSuccess == NVJITLINK_SUCCESS);
static_assert(cu::kNvJitLinkInputPtx == NVJITLINK_INPUT_PTX);

// Struct layouts handed to the driver.
static_assert(sizeof(cu::LaunchConfig) == sizeof(CUlaunchConfig));
static_assert(alignof(cu::LaunchConfig) == alignof(CUlaunchConfig));
static_assert(offsetof(cu::LaunchConfig, gridDimX) == offsetof(CUlaunchConfig, gridDimX));
static_assert(offsetof(cu::LaunchConfig, blockDimZ) == offsetof(CUlaunchConfig, blockDimZ));
static_assert(offsetof(cu::LaunchConfig, sharedMemBytes) == offsetof(CUlaunchConfig, sharedMemBytes));
static_assert(offsetof(cu::LaunchConfig, hStream) == offsetof(CUlaunchConfig, hStream));
static_assert(offsetof(cu::LaunchConfig, attrs) == offsetof(CUlaunchConfig, attrs));
static_assert(offsetof(cu::LaunchConfig, numAttrs) == offsetof(CUlaunchConfig, numAttrs));
static_assert(sizeof(cu::LaunchAttribute) == sizeof(CUlaunchAttribute));
static_assert(alignof(cu::LaunchAttribute) == alignof(CUlaunchAttribute));
static_assert(offsetof(cu::LaunchAttribute, value) == offsetof(CUlaunchAttribute, value));
static_assert(sizeof(cu::LaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
static_assert(offsetof(cu::LaunchAttributeValue, clusterDim) == offsetof(CUlaunchAttributeValue, clusterDim));
static_assert(offsetof(cu::LaunchAttributeValue, cooperative) == offsetof(CUlaunchAttributeValue, cooperative));
static_assert(offsetof(cu::LaunchAttributeValue, programmaticStreamSerializationAllowed) ==
              offsetof(CUlaunchAttributeValue, programmaticStreamSerializationAllowed));

TEST(CudaApi, MatchesToolkitHeaders) {
  // Everything is checked by the static_asserts above; reaching here means they held.
  EXPECT_GE(CUDA_VERSION, 12000) << "checked against CUDA " << CUDA_VERSION;
}

#else

TEST(CudaApi, MatchesToolkitHeaders) { GTEST_SKIP() << "no /usr/local/cuda/include/cuda.h to check against"; }

#endif

}  // namespace
}  // namespace kiln::runtime
