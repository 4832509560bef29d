// Loading the CUDA driver with dlopen, resolving its versioned entry points, device queries, primary
// contexts, checked calls, and the RAII stream.
#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <utility>

namespace kiln::runtime {

namespace {

constexpr const char* kDefaultDriverLibrary = "libcuda.so.1";

// cuGetProcAddress_v2 (CUDA 12+): (symbol, &pfn, cudaVersion, flags, &symbolStatus).
using GetProcAddressFn = cu::Result (*)(const char*, void**, int, std::uint64_t, int*);

// Names for the codes kiln meets most, for when the driver cannot name them itself (a stub library,
// or a call that failed before cuGetErrorName was resolved).
const char* fallbackErrorName(cu::Result r) {
  switch (r) {
    case cu::kSuccess:
      return "CUDA_SUCCESS";
    case cu::kErrorInvalidValue:
      return "CUDA_ERROR_INVALID_VALUE";
    case cu::kErrorOutOfMemory:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case cu::kErrorNotInitialized:
      return "CUDA_ERROR_NOT_INITIALIZED";
    case cu::kErrorStubLibrary:
      return "CUDA_ERROR_STUB_LIBRARY";
    case cu::kErrorNoDevice:
      return "CUDA_ERROR_NO_DEVICE";
    case cu::kErrorInvalidDevice:
      return "CUDA_ERROR_INVALID_DEVICE";
    case cu::kErrorInvalidImage:
      return "CUDA_ERROR_INVALID_IMAGE";
    case cu::kErrorNoBinaryForGpu:
      return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case cu::kErrorInvalidPtx:
      return "CUDA_ERROR_INVALID_PTX";
    case cu::kErrorUnsupportedPtxVersion:
      return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case cu::kErrorNotFound:
      return "CUDA_ERROR_NOT_FOUND";
    case cu::kErrorLaunchOutOfResources:
      return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
  }
  return nullptr;
}

// dlsym of the exported versioned name first: it is exactly what cuda.h's #defines select. If a driver
// lacks it, ask cuGetProcAddress for the unversioned name at the CUDA 12.0 ABI (legacy default stream).
void* resolve(void* library, GetProcAddressFn getProc, const char* symbol, const char* name) {
  if (void* p = dlsym(library, symbol)) return p;
  if (!getProc) return nullptr;
  void* p = nullptr;
  int status = 0;
  if (getProc(name, &p, 12000, cu::kGetProcAddressLegacyStream, &status) != cu::kSuccess || status != 0)
    return nullptr;
  return p;
}

CudaError noDriver(const std::string& message) { return CudaError(CudaError::Kind::NoDriver, message); }

// makeCurrentAssumed's whole cost on a hit is one load of this and a compare.
static_assert(std::atomic<std::thread::id>::is_always_lock_free);

}  // namespace

std::string DeviceInfo::arch() const {
  if (computeMajor == 9 && computeMinor == 0) return "sm_90a";
  return "sm_" + std::to_string(computeMajor) + std::to_string(computeMinor);
}

std::shared_ptr<CudaDriver> CudaDriver::tryOpen(std::string* whyNot, const std::string& library) {
  try {
    return open(library);
  } catch (const CudaError& e) {
    if (whyNot) *whyNot = e.what();
    return nullptr;
  }
}

std::shared_ptr<CudaDriver> CudaDriver::open(const std::string& library) {
  const std::string path = library.empty() ? kDefaultDriverLibrary : library;
  // The handle is deliberately never dlclose'd: the driver keeps threads and exit handlers that must
  // not outlive its code, and dlopen is reference counted, so every CudaDriver may open it again.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    throw noDriver("no CUDA driver: " + path + " could not be loaded (" + (err ? err : "unknown reason") +
                   ")");
  }

  std::shared_ptr<CudaDriver> driver(new CudaDriver());
  cu::DriverApi& api = driver->api_;
  auto getProc = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress_v2"));
  std::string missing;
#define KILN_RESOLVE(member, name, symbol, ret, params)                                          \
  api.member = reinterpret_cast<decltype(api.member)>(resolve(handle, getProc, #symbol, #name)); \
  if (!api.member) missing += std::string(missing.empty() ? "" : ", ") + #symbol;
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_RESOLVE)
#undef KILN_RESOLVE
#define KILN_RESOLVE_OPTIONAL(member, name, symbol, ret, params) \
  api.member = reinterpret_cast<decltype(api.member)>(resolve(handle, getProc, #symbol, #name));
  KILN_CUDA_DRIVER_OPTIONAL_FUNCTIONS(KILN_RESOLVE_OPTIONAL)
#undef KILN_RESOLVE_OPTIONAL
  if (!missing.empty())
    throw noDriver("no usable CUDA driver: " + path + " lacks " + missing +
                   " (kiln needs a driver for CUDA 12.0 or newer)");

  cu::Result r = api.init(0);
  if (r == cu::kErrorNoDevice)
    throw CudaError(CudaError::Kind::NoDevice, "no CUDA device found (cuInit: " + driver->errorName(r) + ")");
  if (r == cu::kErrorStubLibrary)
    throw noDriver("no CUDA driver: " + path + " is the CUDA toolkit's stub library, not a driver (cuInit: " +
                   driver->errorName(r) + ")");
  if (r != cu::kSuccess)
    throw noDriver("no usable CUDA driver: cuInit failed: " + driver->errorName(r) + " (" +
                   driver->errorDescription(r) + ")");
  driver->check(api.driverGetVersion(&driver->driverVersion_), "cuDriverGetVersion");

  int count = 0;
  driver->check(api.deviceGetCount(&count), "cuDeviceGetCount");
  if (count <= 0) throw CudaError(CudaError::Kind::NoDevice, "no CUDA device found");
  for (int i = 0; i < count; ++i) {
    cu::Device dev = 0;
    driver->check(api.deviceGet(&dev, i), "cuDeviceGet");
    DeviceInfo info;
    info.ordinal = i;
    char name[256] = {};
    driver->check(api.deviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
    info.name = name;
    auto attr = [&](int attribute, int& out) {
      driver->check(api.deviceGetAttribute(&out, attribute, dev), "cuDeviceGetAttribute");
    };
    attr(cu::kDevAttrComputeCapabilityMajor, info.computeMajor);
    attr(cu::kDevAttrComputeCapabilityMinor, info.computeMinor);
    attr(cu::kDevAttrMultiprocessorCount, info.smCount);
    attr(cu::kDevAttrWarpSize, info.warpSize);
    attr(cu::kDevAttrMaxThreadsPerBlock, info.maxThreadsPerBlock);
    attr(cu::kDevAttrMaxGridDimX, info.maxGridDim[0]);
    attr(cu::kDevAttrMaxGridDimY, info.maxGridDim[1]);
    attr(cu::kDevAttrMaxGridDimZ, info.maxGridDim[2]);
    attr(cu::kDevAttrMaxSharedMemoryPerBlock, info.maxSharedPerBlock);
    attr(cu::kDevAttrMaxSharedMemoryPerBlockOptin, info.maxSharedPerBlockOptin);
    attr(cu::kDevAttrMaxSharedMemoryPerMultiprocessor, info.maxSharedPerSm);
    attr(cu::kDevAttrMaxRegistersPerBlock, info.maxRegistersPerBlock);
    auto optionalAttr = [&](int attribute, int& out) {
      int v = 0;
      if (api.deviceGetAttribute(&v, attribute, dev) == cu::kSuccess) out = v;
    };
    optionalAttr(cu::kDevAttrClockRate, info.smClockKHz);
    optionalAttr(cu::kDevAttrMemoryClockRate, info.memoryClockKHz);
    optionalAttr(cu::kDevAttrGlobalMemoryBusWidth, info.memoryBusWidthBits);
    driver->check(api.deviceTotalMem(&info.totalMemoryBytes, dev), "cuDeviceTotalMem");
    driver->devices_.push_back(std::move(info));
    driver->handles_.push_back(dev);
  }
  driver->contexts_ = std::vector<std::atomic<cu::Context>>(size_t(count));  // null: not retained yet
  driver->madeCurrent_ = std::vector<std::atomic<std::thread::id>>(size_t(count) * kThreadSlots);  // no thread
  return driver;
}

CudaDriver::~CudaDriver() {
  // Errors are ignored: at process exit the driver may already be deinitialised.
  for (size_t i = 0; i < contexts_.size(); ++i)
    if (contexts_[i].load()) api_.primaryCtxRelease(handles_[i]);
}

const DeviceInfo& CudaDriver::device(int ordinal) const {
  if (ordinal < 0 || ordinal >= deviceCount())
    throw CudaError(CudaError::Kind::NoDevice, "no CUDA device " + std::to_string(ordinal) + " (there are " +
                                                   std::to_string(deviceCount()) + ")");
  return devices_[ordinal];
}

cu::Context CudaDriver::context(int ordinal) {
  device(ordinal);
  if (cu::Context ctx = contexts_[size_t(ordinal)].load(std::memory_order_acquire)) return ctx;
  std::lock_guard<std::mutex> lock(contextsMutex_);
  cu::Context ctx = contexts_[size_t(ordinal)].load(std::memory_order_relaxed);
  if (!ctx) {
    check(api_.primaryCtxRetain(&ctx, handles_[ordinal]), "cuDevicePrimaryCtxRetain");
    contexts_[size_t(ordinal)].store(ctx, std::memory_order_release);
  }
  return ctx;
}

size_t CudaDriver::slotOf(std::thread::id thread) {
  // Thread ids are addresses with many equal low bits: Fibonacci hashing spreads them over the slots.
  return size_t((uint64_t(std::hash<std::thread::id>{}(thread)) * 0x9E3779B97F4A7C15ull) >> 60) % kThreadSlots;
}

// Why madeCurrent_ needs no lock. Thread T writes only its own id, only into entry slotOf(T) of each
// device, and only here: it first clears its id from that entry of every device (a compare-exchange,
// so an id another thread stored there since is kept), then switches, then stores its id for
// `ordinal`. Every other thread stores its own id or clears its own. So when T reads its id in
// device d's entry, T's last makeCurrent through this driver was for d and succeeded: d's context is
// current on T unless something outside this driver switched it (the caller's retry covers that, see
// the header). A thread that ends and one that later gets its id back are the same case: the new
// thread's launch fails for want of the context and the retry makes it current. Relaxed order is
// enough: T only acts on entries holding T's own id, and a thread always reads its own last write. Two
// threads whose ids share a slot and that launch on one device in turn keep taking each other's entry;
// each then pays one cuCtxGetCurrent per launch, as without the cache, and stays correct.
void CudaDriver::forgetCurrent(size_t slot, std::thread::id self) {
  for (size_t d = 0; d < contexts_.size(); ++d) {
    std::atomic<std::thread::id>& entry = madeCurrent_[d * kThreadSlots + slot];
    std::thread::id expected = self;
    if (entry.load(std::memory_order_relaxed) == self)
      entry.compare_exchange_strong(expected, std::thread::id(), std::memory_order_relaxed);
  }
}

void CudaDriver::noteCurrent(int ordinal, size_t slot, std::thread::id self) {
  madeCurrent_[size_t(ordinal) * kThreadSlots + slot].store(self, std::memory_order_relaxed);
}

bool CudaDriver::makeCurrent(int ordinal) {
  cu::Context ctx = context(ordinal);
  const std::thread::id self = std::this_thread::get_id();
  const size_t slot = slotOf(self);
  forgetCurrent(slot, self);
  cu::Context current = nullptr;
  bool switched = false;
  if (api_.ctxGetCurrent(&current) != cu::kSuccess || current != ctx) {
    check(api_.ctxSetCurrent(ctx), "cuCtxSetCurrent");
    switched = true;
  }
  noteCurrent(ordinal, slot, self);
  return switched;
}

bool CudaDriver::enterContext(int ordinal, cu::Context& previous) {
  cu::Context ctx = context(ordinal);
  cu::Context current = nullptr;
  if (api_.ctxGetCurrent(&current) != cu::kSuccess) current = nullptr;
  const std::thread::id self = std::this_thread::get_id();
  const size_t slot = slotOf(self);
  if (current != ctx) {
    forgetCurrent(slot, self);
    check(api_.ctxSetCurrent(ctx), "cuCtxSetCurrent");
  }
  noteCurrent(ordinal, slot, self);  // also when it was current already: the launch path then asks nothing
  previous = current;
  return current != ctx && !(current == nullptr && ordinal == 0);
}

void CudaDriver::leaveContext(cu::Context previous) {
  const std::thread::id self = std::this_thread::get_id();
  const size_t slot = slotOf(self);
  forgetCurrent(slot, self);
  // Putting a context back cannot usefully fail (it was current a moment ago); a failure leaves this
  // thread on the launch's device, which the next makeCurrent or scope sees through cuCtxGetCurrent.
  if (api_.ctxSetCurrent(previous) != cu::kSuccess) return;
  for (size_t d = 0; d < contexts_.size(); ++d)
    if (previous && contexts_[d].load(std::memory_order_acquire) == previous) noteCurrent(int(d), slot, self);
}

int CudaDriver::deviceOf(cu::DevicePtr address) const {
  unsigned memoryType = 0;
  int managed = 0, ordinal = -1;
  int attributes[3] = {cu::kPointerAttrMemoryType, cu::kPointerAttrIsManaged, cu::kPointerAttrDeviceOrdinal};
  void* values[3] = {&memoryType, &managed, &ordinal};
  // Unlike cuPointerGetAttribute, this answers memory type 0 (no error) for memory the driver never saw.
  if (api_.pointerGetAttributes(3, attributes, values, address) != cu::kSuccess) return -1;
  if (memoryType != cu::kMemoryTypeDevice || managed || ordinal < 0 || ordinal >= deviceCount()) return -1;
  return ordinal;
}

void CudaDriver::makeCurrentAssumed(int ordinal) {
  if (ordinal >= 0 && size_t(ordinal) < contexts_.size()) {
    const std::thread::id self = std::this_thread::get_id();
    if (madeCurrent_[size_t(ordinal) * kThreadSlots + slotOf(self)].load(std::memory_order_relaxed) == self) return;
  }
  makeCurrent(ordinal);
}

void CudaDriver::synchronize(int ordinal) {
  makeCurrent(ordinal);
  check(api_.ctxSynchronize(), "cuCtxSynchronize");
}

std::string CudaDriver::errorName(cu::Result result) const {
  const char* s = nullptr;
  if (api_.getErrorName && api_.getErrorName(result, &s) == cu::kSuccess && s) return s;
  if (const char* known = fallbackErrorName(result)) return known;
  return "CUDA error " + std::to_string(result);
}

std::string CudaDriver::errorDescription(cu::Result result) const {
  const char* s = nullptr;
  if (api_.getErrorString && api_.getErrorString(result, &s) == cu::kSuccess && s) return s;
  return "no description available";
}

void CudaDriver::check(cu::Result result, const char* call, const std::string& kernel) const {
  if (result == cu::kSuccess) return;
  throw CudaError::callFailed(call, result, errorName(result), errorDescription(result), kernel);
}

Stream::Stream(std::shared_ptr<CudaDriver> driver, int device) : driver_(std::move(driver)), device_(device) {
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().streamCreate(&stream_, 0), "cuStreamCreate");
}

Stream::~Stream() {
  try {
    driver_->makeCurrent(device_);
  } catch (const CudaError&) {
  }
  driver_->api().streamDestroy(stream_);
}

void Stream::synchronize() {
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().streamSynchronize(stream_), "cuStreamSynchronize");
}

}  // namespace kiln::runtime
