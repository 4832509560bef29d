// The slice of the CUDA driver API (cuda.h) and nvJitLink (nvJitLink.h) that kiln uses, declared here
// so kiln builds without a CUDA toolkit; both libraries are dlopen'ed, never linked. Every constant,
// struct layout and entry-point signature below is checked against the real headers at compile time
// by tests/unit/runtime/cuda_api_test.cpp wherever /usr/local/cuda/include/cuda.h exists.
#pragma once
#include <cstddef>
#include <cstdint>

// The opaque handle structs carry cuda.h's own names, so a CUstream from cuda.h (or PyTorch) is the
// very same type as kiln::runtime::cu::Stream and converts without a cast.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUlinkState_st;

namespace kiln::runtime::cu {

using Result = int;                    // CUresult (an enum of int size)
using Device = int;                    // CUdevice
using DevicePtr = unsigned long long;  // CUdeviceptr
using Context = CUctx_st*;
using Module = CUmod_st*;
using Function = CUfunc_st*;
using Stream = CUstream_st*;
using LinkState = CUlinkState_st*;

// CUresult values kiln tests for or names itself.
constexpr Result kSuccess = 0;
constexpr Result kErrorInvalidValue = 1;
constexpr Result kErrorOutOfMemory = 2;
constexpr Result kErrorNotInitialized = 3;
constexpr Result kErrorStubLibrary = 34;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorInvalidDevice = 101;
constexpr Result kErrorInvalidImage = 200;
constexpr Result kErrorNoBinaryForGpu = 209;
constexpr Result kErrorInvalidPtx = 218;
constexpr Result kErrorUnsupportedPtxVersion = 222;
constexpr Result kErrorNotFound = 500;
constexpr Result kErrorLaunchOutOfResources = 701;

// CUdevice_attribute
constexpr int kDevAttrMaxThreadsPerBlock = 1;
constexpr int kDevAttrMaxGridDimX = 5;
constexpr int kDevAttrMaxGridDimY = 6;
constexpr int kDevAttrMaxGridDimZ = 7;
constexpr int kDevAttrMaxSharedMemoryPerBlock = 8;
constexpr int kDevAttrWarpSize = 10;
constexpr int kDevAttrMaxRegistersPerBlock = 12;
constexpr int kDevAttrClockRate = 13;
constexpr int kDevAttrMemoryClockRate = 36;
constexpr int kDevAttrGlobalMemoryBusWidth = 37;
constexpr int kDevAttrMultiprocessorCount = 16;
constexpr int kDevAttrComputeCapabilityMajor = 75;
constexpr int kDevAttrComputeCapabilityMinor = 76;
constexpr int kDevAttrMaxSharedMemoryPerMultiprocessor = 81;
constexpr int kDevAttrMaxSharedMemoryPerBlockOptin = 97;

// CUfunction_attribute
constexpr int kFuncAttrMaxThreadsPerBlock = 0;
constexpr int kFuncAttrSharedSizeBytes = 1;
constexpr int kFuncAttrConstSizeBytes = 2;
constexpr int kFuncAttrLocalSizeBytes = 3;
constexpr int kFuncAttrNumRegs = 4;
constexpr int kFuncAttrPtxVersion = 5;
constexpr int kFuncAttrBinaryVersion = 6;
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;

// CUjit_option, CUjitInputType, CUjit_target
constexpr int kJitMaxRegisters = 0;
constexpr int kJitInfoLogBuffer = 3;
constexpr int kJitInfoLogBufferSizeBytes = 4;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr int kJitOptimizationLevel = 7;
constexpr int kJitTarget = 9;
constexpr int kJitLogVerbose = 12;
constexpr int kJitGenerateLineInfo = 13;
constexpr int kJitInputPtx = 1;
constexpr int kJitAcceleratedTargetBase = 0x10000;  // CU_TARGET_COMPUTE_90A = base + 90

// CUlaunchAttributeID
constexpr int kLaunchAttrCooperative = 2;
constexpr int kLaunchAttrClusterDimension = 4;
constexpr int kLaunchAttrProgrammaticStreamSerialization = 6;
// CUresult of a cooperative launch whose programs cannot all be resident at once
constexpr Result kErrorCooperativeLaunchTooLarge = 720;

// CUpointer_attribute values and the CUmemorytype kiln asks cuPointerGetAttributes for: where a device
// pointer of unknown origin (a __cuda_array_interface__ object) lives.
constexpr int kPointerAttrMemoryType = 2;
constexpr int kPointerAttrIsManaged = 8;
constexpr int kPointerAttrDeviceOrdinal = 9;
constexpr unsigned kMemoryTypeDevice = 2;

// cuTensorMapEncodeTiled's enums (CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle,
// CUtensorMapL2promotion, CUtensorMapFloatOOBfill): the values kiln passes.
constexpr int kTensorMapDataTypeUint8 = 0;
constexpr int kTensorMapDataTypeUint16 = 1;
constexpr int kTensorMapDataTypeUint32 = 2;
constexpr int kTensorMapDataTypeInt32 = 3;
constexpr int kTensorMapDataTypeUint64 = 4;
constexpr int kTensorMapDataTypeInt64 = 5;
constexpr int kTensorMapDataTypeFloat16 = 6;
constexpr int kTensorMapDataTypeFloat32 = 7;
constexpr int kTensorMapDataTypeFloat64 = 8;
constexpr int kTensorMapDataTypeBfloat16 = 9;
constexpr int kTensorMapInterleaveNone = 0;
constexpr int kTensorMapSwizzleNone = 0;
constexpr int kTensorMapSwizzle32B = 1;
constexpr int kTensorMapSwizzle64B = 2;
constexpr int kTensorMapSwizzle128B = 3;
constexpr int kTensorMapL2Promotion128B = 2;
constexpr int kTensorMapL2Promotion256B = 3;
constexpr int kTensorMapFloatOobFillNone = 0;  // out-of-bounds elements read as zero
constexpr unsigned kTensorMapMaxRank = 5;

// CUtensorMap: the opaque 128-byte descriptor a kernel takes by value (`.param .align 128 .b8 [128]`);
// cuda.h 13.0 aligns it to 128 bytes (the driver asks 64).
struct alignas(128) TensorMap {
  std::uint64_t opaque[16];
};

// cuGetProcAddress flags: kiln asks for the legacy default-stream variants, like the plain symbols.
constexpr std::uint64_t kGetProcAddressLegacyStream = 1;

union LaunchAttributeValue {  // CUlaunchAttributeValue: 64 bytes, pointer-aligned
  char pad[64];
  struct {
    unsigned x, y, z;
  } clusterDim;
  int cooperative;
  int programmaticStreamSerializationAllowed;
  void* alignAsPointer;
};

struct LaunchAttribute {  // CUlaunchAttribute
  int id;
  char pad[8 - sizeof(int)];
  LaunchAttributeValue value;
};

struct LaunchConfig {  // CUlaunchConfig
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream hStream;
  LaunchAttribute* attrs;
  unsigned numAttrs;
};

// Driver entry points: X(member, symbol as cuda.h names it, exported versioned symbol, return, params).
// The exported symbol is what dlsym must look up: cuda.h #defines e.g. cuMemAlloc to cuMemAlloc_v2,
// and the unversioned export keeps the legacy (pre-3.2, 32-bit pointer) ABI.
#define KILN_CUDA_DRIVER_FUNCTIONS(X)                                                                       \
  X(getErrorName, cuGetErrorName, cuGetErrorName, Result, (Result, const char**))                           \
  X(getErrorString, cuGetErrorString, cuGetErrorString, Result, (Result, const char**))                     \
  X(init, cuInit, cuInit, Result, (unsigned))                                                               \
  X(driverGetVersion, cuDriverGetVersion, cuDriverGetVersion, Result, (int*))                               \
  X(deviceGet, cuDeviceGet, cuDeviceGet, Result, (Device*, int))                                            \
  X(deviceGetCount, cuDeviceGetCount, cuDeviceGetCount, Result, (int*))                                     \
  X(deviceGetName, cuDeviceGetName, cuDeviceGetName, Result, (char*, int, Device))                          \
  X(deviceTotalMem, cuDeviceTotalMem, cuDeviceTotalMem_v2, Result, (size_t*, Device))                       \
  X(deviceGetAttribute, cuDeviceGetAttribute, cuDeviceGetAttribute, Result, (int*, int, Device))            \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, Result, (Context*, Device))       \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, Result, (Device))           \
  X(ctxSetCurrent, cuCtxSetCurrent, cuCtxSetCurrent, Result, (Context))                                     \
  X(ctxGetCurrent, cuCtxGetCurrent, cuCtxGetCurrent, Result, (Context*))                                    \
  X(ctxSynchronize, cuCtxSynchronize, cuCtxSynchronize, Result, ())                                         \
  X(pointerGetAttributes, cuPointerGetAttributes, cuPointerGetAttributes, Result,                           \
    (unsigned, int*, void**, DevicePtr))                                                                    \
  X(streamCreate, cuStreamCreate, cuStreamCreate, Result, (Stream*, unsigned))                              \
  X(streamDestroy, cuStreamDestroy, cuStreamDestroy_v2, Result, (Stream))                                   \
  X(streamSynchronize, cuStreamSynchronize, cuStreamSynchronize, Result, (Stream))                          \
  X(memAlloc, cuMemAlloc, cuMemAlloc_v2, Result, (DevicePtr*, size_t))                                      \
  X(memFree, cuMemFree, cuMemFree_v2, Result, (DevicePtr))                                                  \
  X(memcpyHtoD, cuMemcpyHtoD, cuMemcpyHtoD_v2, Result, (DevicePtr, const void*, size_t))                    \
  X(memcpyDtoH, cuMemcpyDtoH, cuMemcpyDtoH_v2, Result, (void*, DevicePtr, size_t))                          \
  X(memsetD8, cuMemsetD8, cuMemsetD8_v2, Result, (DevicePtr, unsigned char, size_t))                        \
  X(moduleLoadDataEx, cuModuleLoadDataEx, cuModuleLoadDataEx, Result,                                       \
    (Module*, const void*, unsigned, int*, void**))                                                         \
  X(moduleUnload, cuModuleUnload, cuModuleUnload, Result, (Module))                                         \
  X(moduleGetFunction, cuModuleGetFunction, cuModuleGetFunction, Result, (Function*, Module, const char*))  \
  X(funcGetAttribute, cuFuncGetAttribute, cuFuncGetAttribute, Result, (int*, int, Function))                \
  X(funcSetAttribute, cuFuncSetAttribute, cuFuncSetAttribute, Result, (Function, int, int))                 \
  X(occupancyMaxActiveBlocks, cuOccupancyMaxActiveBlocksPerMultiprocessor,                                  \
    cuOccupancyMaxActiveBlocksPerMultiprocessor, Result, (int*, Function, int, size_t))                     \
  X(launchKernel, cuLaunchKernel, cuLaunchKernel, Result,                                                   \
    (Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Stream, void**, void**)) \
  X(launchKernelEx, cuLaunchKernelEx, cuLaunchKernelEx, Result,                                             \
    (const LaunchConfig*, Function, void**, void**))                                                        \
  X(linkCreate, cuLinkCreate, cuLinkCreate_v2, Result, (unsigned, int*, void**, LinkState*))                \
  X(linkAddData, cuLinkAddData, cuLinkAddData_v2, Result,                                                   \
    (LinkState, int, void*, size_t, const char*, unsigned, int*, void**))                                   \
  X(linkComplete, cuLinkComplete, cuLinkComplete, Result, (LinkState, void**, size_t*))                     \
  X(linkDestroy, cuLinkDestroy, cuLinkDestroy, Result, (LinkState))

// Entry points kiln can do without (newer than the oldest driver kiln accepts): resolved when present.
// cuFuncGetParamInfo (CUDA 12.4) lets a launch check the argument count; cuTensorMapEncodeTiled (CUDA 12.0,
// absent from drivers without Hopper support) encodes the TMA tensor maps of kernels that have some.
#define KILN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(X)                                                                \
  X(funcGetParamInfo, cuFuncGetParamInfo, cuFuncGetParamInfo, Result, (Function, size_t, size_t*, size_t*))  \
  X(tensorMapEncodeTiled, cuTensorMapEncodeTiled, cuTensorMapEncodeTiled, Result,                          \
    (TensorMap*, int, std::uint32_t, void*, const std::uint64_t*, const std::uint64_t*, const std::uint32_t*, \
     const std::uint32_t*, int, int, int, int))

struct DriverApi {
#define KILN_CUDA_MEMBER(member, name, symbol, ret, params) ret(*member) params = nullptr;
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_CUDA_MEMBER)
  KILN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(KILN_CUDA_MEMBER)
#undef KILN_CUDA_MEMBER
};

// nvJitLink (CUDA 13): the header maps each function to a versioned export (__nvJitLinkCreate_13_0);
// the plain names are exported too and are the fallback.
using NvJitLinkHandle = struct nvJitLink*;
using NvJitLinkResult = int;
constexpr NvJitLinkResult kNvJitLinkSuccess = 0;
constexpr int kNvJitLinkInputPtx = 2;

#define KILN_NVJITLINK_FUNCTIONS(X)                                                                  \
  X(create, nvJitLinkCreate, __nvJitLinkCreate_13_0, NvJitLinkResult,                                \
    (NvJitLinkHandle*, std::uint32_t, const char**))                                                 \
  X(destroy, nvJitLinkDestroy, __nvJitLinkDestroy_13_0, NvJitLinkResult, (NvJitLinkHandle*))         \
  X(addData, nvJitLinkAddData, __nvJitLinkAddData_13_0, NvJitLinkResult,                             \
    (NvJitLinkHandle, int, const void*, size_t, const char*))                                        \
  X(complete, nvJitLinkComplete, __nvJitLinkComplete_13_0, NvJitLinkResult, (NvJitLinkHandle))       \
  X(getLinkedCubinSize, nvJitLinkGetLinkedCubinSize, __nvJitLinkGetLinkedCubinSize_13_0,             \
    NvJitLinkResult, (NvJitLinkHandle, size_t*))                                                     \
  X(getLinkedCubin, nvJitLinkGetLinkedCubin, __nvJitLinkGetLinkedCubin_13_0, NvJitLinkResult,        \
    (NvJitLinkHandle, void*))                                                                        \
  X(getErrorLogSize, nvJitLinkGetErrorLogSize, __nvJitLinkGetErrorLogSize_13_0, NvJitLinkResult,     \
    (NvJitLinkHandle, size_t*))                                                                      \
  X(getErrorLog, nvJitLinkGetErrorLog, __nvJitLinkGetErrorLog_13_0, NvJitLinkResult,                 \
    (NvJitLinkHandle, char*))                                                                        \
  X(getInfoLogSize, nvJitLinkGetInfoLogSize, __nvJitLinkGetInfoLogSize_13_0, NvJitLinkResult,        \
    (NvJitLinkHandle, size_t*))                                                                      \
  X(getInfoLog, nvJitLinkGetInfoLog, __nvJitLinkGetInfoLog_13_0, NvJitLinkResult,                    \
    (NvJitLinkHandle, char*))                                                                        \
  X(version, nvJitLinkVersion, nvJitLinkVersion, NvJitLinkResult, (unsigned*, unsigned*))

struct NvJitLinkApi {
#define KILN_NVJITLINK_MEMBER(member, name, symbol, ret, params) ret(*member) params = nullptr;
  KILN_NVJITLINK_FUNCTIONS(KILN_NVJITLINK_MEMBER)
#undef KILN_NVJITLINK_MEMBER
};

}  // namespace kiln::runtime::cu
