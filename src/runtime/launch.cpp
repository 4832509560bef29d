// Loading a module and entry function, reading its attributes, and the checked launch.
#include "runtime/launch.h"

#include <cstdint>
#include <utility>

namespace kiln::runtime {

namespace {

// A kernel has at most 32764 bytes of parameters, so no more than this many parameters.
constexpr size_t kMaxParams = 32764;

CudaError invalid(const LoadedKernel& kernel, std::string message) {
  return CudaError(CudaError::Kind::InvalidArgument, std::move(message), kernel.name());
}

std::string deviceName(const DeviceInfo& d) {
  return "device " + std::to_string(d.ordinal) + " (" + d.name + ")";
}

}  // namespace

LoadedKernel::LoadedKernel(std::shared_ptr<CudaDriver> driver, int device, std::string name)
    : driver_(std::move(driver)), device_(device), name_(std::move(name)) {}

std::unique_ptr<LoadedKernel> LoadedKernel::fromImage(std::shared_ptr<CudaDriver> driver, int device,
                                                      const Bytes& image, const std::string& kernelName,
                                                      int knownParamCount) {
  std::unique_ptr<LoadedKernel> k(new LoadedKernel(std::move(driver), device, kernelName));
  if (image.size() < 16)
    throw invalid(*k, "cannot load a " + std::to_string(image.size()) + "-byte image: not a cubin");
  k->knownParamCount_ = knownParamCount;
  k->load(image.data());
  return k;
}

std::unique_ptr<LoadedKernel> LoadedKernel::fromPtx(std::shared_ptr<CudaDriver> driver, int device,
                                                    const std::string& ptx, const std::string& kernelName) {
  std::unique_ptr<LoadedKernel> k(new LoadedKernel(std::move(driver), device, kernelName));
  k->load(ptx.c_str());  // NUL-terminated, as the driver requires of PTX
  return k;
}

void LoadedKernel::load(const void* image) {
  CudaDriver& d = *driver_;
  const cu::DriverApi& api = d.api();
  d.makeCurrent(device_);
  std::vector<char> infoLog(1 << 14, '\0'), errorLog(1 << 14, '\0');
  int keys[] = {cu::kJitInfoLogBuffer, cu::kJitInfoLogBufferSizeBytes, cu::kJitErrorLogBuffer,
                cu::kJitErrorLogBufferSizeBytes};
  void* values[] = {infoLog.data(), reinterpret_cast<void*>(std::uintptr_t(infoLog.size() - 1)),
                    errorLog.data(), reinterpret_cast<void*>(std::uintptr_t(errorLog.size() - 1))};
  cu::Result r = api.moduleLoadDataEx(&module_, image, 4, keys, values);
  if (r != cu::kSuccess)
    throw CudaError::callFailed("cuModuleLoadDataEx", r, d.errorName(r), d.errorDescription(r), name_,
                                errorLog.data());
  loadLog_ = infoLog.data();
  d.check(api.moduleGetFunction(&function_, module_, name_.c_str()), "cuModuleGetFunction", name_);

  auto attr = [&](int attribute, int& out) {
    d.check(api.funcGetAttribute(&out, attribute, function_), "cuFuncGetAttribute", name_);
  };
  attr(cu::kFuncAttrNumRegs, attributes_.numRegs);
  attr(cu::kFuncAttrLocalSizeBytes, attributes_.localBytes);
  attr(cu::kFuncAttrSharedSizeBytes, attributes_.staticSharedBytes);
  attr(cu::kFuncAttrConstSizeBytes, attributes_.constBytes);
  attr(cu::kFuncAttrMaxThreadsPerBlock, attributes_.maxThreadsPerBlock);
  attr(cu::kFuncAttrMaxDynamicSharedSizeBytes, attributes_.maxDynamicSharedBytes);
  attr(cu::kFuncAttrPtxVersion, attributes_.ptxVersion);
  attr(cu::kFuncAttrBinaryVersion, attributes_.binaryVersion);
  dynamicSharedLimit_ = attributes_.maxDynamicSharedBytes;
  // cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE for the first index past the last parameter.
  // That deliberate failing call is skipped when the caller knows the count (kiln's own kernels), so
  // tools that report every failing API call (compute-sanitizer) stay quiet.
  if (knownParamCount_ >= 0) {
    attributes_.paramCount = knownParamCount_;
  } else if (api.funcGetParamInfo) {
    for (size_t i = 0; i <= kMaxParams; ++i) {
      size_t offset = 0, size = 0;
      cu::Result pr = api.funcGetParamInfo(function_, i, &offset, &size);
      if (pr == cu::kSuccess) continue;
      attributes_.paramCount = pr == cu::kErrorInvalidValue ? int(i) : -1;
      break;
    }
  }
}

LoadedKernel::~LoadedKernel() {
  if (!module_) return;
  try {
    driver_->makeCurrent(device_);
  } catch (const CudaError&) {
  }
  driver_->api().moduleUnload(module_);
}

void launch(LoadedKernel& kernel, Dim3 grid, unsigned blockThreads, size_t dynamicSharedBytes,
            cu::Stream stream, const std::vector<void*>& args) {
  CudaDriver& d = *kernel.driver_;
  const DeviceInfo& dev = d.device(kernel.device_);
  const KernelAttributes& attrs = kernel.attributes_;

  const unsigned dims[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    const char axis = "xyz"[i];
    if (dims[i] < 1)
      throw invalid(kernel,
                    std::string("grid dimension ") + axis + " is 0; every grid dimension must be at least 1");
    if (dims[i] > unsigned(dev.maxGridDim[i]))
      throw invalid(kernel, std::string("grid dimension ") + axis + " = " + std::to_string(dims[i]) +
                                " exceeds the limit of " + std::to_string(dev.maxGridDim[i]) + " on " +
                                deviceName(dev));
  }
  if (blockThreads < 1) throw invalid(kernel, "a block of 0 threads cannot be launched");
  if (blockThreads > unsigned(dev.maxThreadsPerBlock))
    throw invalid(kernel, "a block of " + std::to_string(blockThreads) + " threads exceeds the limit of " +
                              std::to_string(dev.maxThreadsPerBlock) + " threads per block on " +
                              deviceName(dev));
  if (blockThreads > unsigned(attrs.maxThreadsPerBlock))
    throw invalid(kernel, "a block of " + std::to_string(blockThreads) +
                              " threads exceeds this kernel's limit of " +
                              std::to_string(attrs.maxThreadsPerBlock) +
                              " threads per block (set by .maxntid/.reqntid or by its " +
                              std::to_string(attrs.numRegs) + " registers per thread)");
  const size_t staticShared = size_t(attrs.staticSharedBytes);
  if (staticShared + dynamicSharedBytes > size_t(dev.maxSharedPerBlockOptin))
    throw invalid(kernel, "asks for " + std::to_string(dynamicSharedBytes) +
                              " bytes of dynamic shared memory (+ " + std::to_string(staticShared) +
                              " static = " + std::to_string(staticShared + dynamicSharedBytes) +
                              " bytes per block), but " + deviceName(dev) + " allows at most " +
                              std::to_string(dev.maxSharedPerBlockOptin) + " bytes per block");
  if (attrs.paramCount >= 0 && args.size() != size_t(attrs.paramCount))
    throw invalid(kernel, "takes " + std::to_string(attrs.paramCount) + " arguments, but " +
                              std::to_string(args.size()) + " were given");
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i])
      throw invalid(kernel, "argument " + std::to_string(i) +
                                " is a null pointer; each entry must point at the argument's value");

  d.makeCurrent(kernel.device_);
  {
    // The limit is a property of the function, not of one launch: raise it once, when first needed.
    std::lock_guard<std::mutex> lock(kernel.sharedLimitMutex_);
    if (dynamicSharedBytes > size_t(kernel.dynamicSharedLimit_)) {
      d.check(d.api().funcSetAttribute(kernel.function_, cu::kFuncAttrMaxDynamicSharedSizeBytes,
                                       int(dynamicSharedBytes)),
              "cuFuncSetAttribute", kernel.name_);
      kernel.dynamicSharedLimit_ = int(dynamicSharedBytes);
    }
  }
  cu::LaunchConfig config{};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = blockThreads;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = unsigned(dynamicSharedBytes);
  config.hStream = stream;
  config.attrs = nullptr;
  config.numAttrs = 0;
  d.check(d.api().launchKernelEx(&config, kernel.function_, const_cast<void**>(args.data()), nullptr),
          "cuLaunchKernelEx", kernel.name_);
}

}  // namespace kiln::runtime
