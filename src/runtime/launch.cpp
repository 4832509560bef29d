// Loading a module and entry function, reading its attributes, and the checked launch.
#include "runtime/launch.h"

#include <cstdint>
#include <optional>
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
  // Unloaded in its own context, with the thread's current context put back afterwards: a kernel freed
  // wherever its last owner goes (a Python garbage collection) must not change the thread's device.
  std::optional<ContextScope> scope;
  try {
    scope.emplace(*driver_, device_);
  } catch (const CudaError&) {
  }
  driver_->api().moduleUnload(module_);
}

void LoadedKernel::ensureDynamicShared(size_t bytes) {
  // The limit is a property of the function, not of one launch: raised once, when first needed.
  if (bytes <= size_t(dynamicSharedLimit_.load(std::memory_order_acquire))) return;
  std::lock_guard<std::mutex> lock(sharedLimitMutex_);
  if (bytes <= size_t(dynamicSharedLimit_.load(std::memory_order_relaxed))) return;
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().funcSetAttribute(function_, cu::kFuncAttrMaxDynamicSharedSizeBytes, int(bytes)),
                 "cuFuncSetAttribute", name_);
  dynamicSharedLimit_.store(int(bytes), std::memory_order_release);
}

int LoadedKernel::residentBlocksPerSm(unsigned blockThreads, size_t dynamicSharedBytes) {
  ensureDynamicShared(dynamicSharedBytes);
  driver_->makeCurrent(device_);
  int blocks = 0;
  driver_->check(driver_->api().occupancyMaxActiveBlocks(&blocks, function_, int(blockThreads), dynamicSharedBytes),
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor", name_);
  return blocks > 0 ? blocks : 1;
}

namespace {

void checkGrid(const LoadedKernel& kernel, const DeviceInfo& dev, Dim3 grid) {
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
}

// What does not change from one launch of a configuration to the next: block, shared memory, arguments.
void checkConfig(const LoadedKernel& kernel, const DeviceInfo& dev, unsigned blockThreads,
                 size_t dynamicSharedBytes, size_t argCount) {
  const KernelAttributes& attrs = kernel.attributes();
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
  if (attrs.paramCount >= 0 && argCount != size_t(attrs.paramCount))
    throw invalid(kernel, "takes " + std::to_string(attrs.paramCount) + " arguments, but " +
                              std::to_string(argCount) + " were given");
}

}  // namespace

PreparedLaunch::PreparedLaunch(LoadedKernel& kernel, unsigned blockThreads, size_t dynamicSharedBytes,
                               size_t argCount)
    : kernel_(&kernel),
      driver_(kernel.driver_.get()),
      launchKernel_(kernel.driver_->api().launchKernel),
      function_(kernel.function_),
      device_(kernel.device_),
      blockThreads_(blockThreads),
      sharedBytes_(unsigned(dynamicSharedBytes)) {
  const DeviceInfo& dev = driver_->device(device_);
  checkConfig(kernel, dev, blockThreads, dynamicSharedBytes, argCount);
  for (int i = 0; i < 3; ++i) maxGrid_[i] = unsigned(dev.maxGridDim[i]);
  kernel.ensureDynamicShared(dynamicSharedBytes);
}

void PreparedLaunch::badGrid(Dim3 grid) const {
  // checkGrid rejects exactly the grids launch's inline test does, with the message saying why; the
  // throw after it only keeps [[noreturn]] true should the two ever disagree.
  checkGrid(*kernel_, driver_->device(device_), grid);
  throw invalid(*kernel_, "grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                              std::to_string(grid.z) + ") cannot be launched on this device");
}

void PreparedLaunch::retry(cu::Result r, Dim3 grid, cu::Stream stream, void* const* args) const {
  if (driver_->makeCurrent(device_))
    r = launchKernel_(function_, grid.x, grid.y, grid.z, blockThreads_, 1, 1, sharedBytes_, stream,
                      const_cast<void**>(args), nullptr);
  driver_->check(r, "cuLaunchKernel", kernel_->name());
}

void PreparedLaunch::launchWithAttributes(Dim3 grid, cu::Stream stream, void* const* args,
                                          LaunchAttributes attributes) const {
  const auto launchEx = driver_->api().launchKernelEx;
  if (!launchEx)
    throw CudaError(CudaError::Kind::CallFailed,
                    "this CUDA driver has no cuLaunchKernelEx, which launch_pdl and launch_cooperative_grid need",
                    kernel_->name());
  cu::LaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (attributes.cooperative) {
    attrs[n].id = cu::kLaunchAttrCooperative;
    attrs[n++].value.cooperative = 1;
  }
  if (attributes.programmaticSerialization) {
    attrs[n].id = cu::kLaunchAttrProgrammaticStreamSerialization;
    attrs[n++].value.programmaticStreamSerializationAllowed = 1;
  }
  cu::LaunchConfig config{grid.x, grid.y, grid.z, blockThreads_, 1, 1, sharedBytes_, stream, attrs, n};
  driver_->makeCurrentAssumed(device_);
  cu::Result r = launchEx(&config, function_, const_cast<void**>(args), nullptr);
  if (r != cu::kSuccess && r != cu::kErrorCooperativeLaunchTooLarge && driver_->makeCurrent(device_))
    r = launchEx(&config, function_, const_cast<void**>(args), nullptr);
  if (r == cu::kErrorCooperativeLaunchTooLarge)
    throw invalid(*kernel_, "a cooperative launch (launch_cooperative_grid=True) needs all " +
                                std::to_string(uint64_t(grid.x) * grid.y * grid.z) +
                                " programs resident at once, which is more than " +
                                driver_->device(device_).name + " holds of this kernel: launch fewer programs");
  driver_->check(r, "cuLaunchKernelEx", kernel_->name());
}

void launch(LoadedKernel& kernel, Dim3 grid, unsigned blockThreads, size_t dynamicSharedBytes,
            cu::Stream stream, const std::vector<void*>& args) {
  checkGrid(kernel, kernel.driver().device(kernel.device()), grid);
  PreparedLaunch prepared(kernel, blockThreads, dynamicSharedBytes, args.size());
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i])
      throw invalid(kernel, "argument " + std::to_string(i) +
                                " is a null pointer; each entry must point at the argument's value");
  prepared.launch(grid, stream, args.data());
}

}  // namespace kiln::runtime
