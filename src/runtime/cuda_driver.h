// CudaDriver: the CUDA driver loaded with dlopen at first use (never linked, so kiln runs on machines
// without a GPU), the devices it sees, one retained primary context per device, and checked calls.
// Stream is an RAII CUDA stream. Objects that hold device resources keep the driver alive.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cuda_api.h"
#include "runtime/cuda_error.h"

namespace kiln::runtime {

// What kiln needs to know about one GPU; queried once when the driver is opened.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int smCount = 0;
  int warpSize = 32;
  int maxThreadsPerBlock = 0;
  int maxGridDim[3] = {0, 0, 0};
  int maxSharedPerBlock = 0;       // without opt-in (48 KB)
  int maxSharedPerBlockOptin = 0;  // with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)
  int maxSharedPerSm = 0;
  int maxRegistersPerBlock = 0;
  // Clocks (kHz) and the memory bus width (bits), for Triton's get_device_properties; -1 where the driver
  // does not answer (CUDA 13 deprecates the clock attributes).
  int smClockKHz = -1, memoryClockKHz = -1, memoryBusWidthBits = -1;
  size_t totalMemoryBytes = 0;

  // The PTX target kiln compiles for on this device: "sm_90a" on compute capability 9.0 (Hopper's
  // arch-specific features: wgmma, setmaxnreg), otherwise "sm_<major><minor>".
  std::string arch() const;
};

class CudaDriver {
 public:
  // Loads the driver library (default "libcuda.so.1"; tests pass another path), resolves its entry
  // points, calls cuInit and queries every device. Throws CudaError with kind NoDriver ("no CUDA
  // driver: libcuda.so.1 could not be loaded (...)") or NoDevice ("no CUDA device found ...").
  static std::shared_ptr<CudaDriver> open(const std::string& library = {});
  // Like open, but returns nullptr and the reason instead of throwing; for "skip if no GPU" paths.
  static std::shared_ptr<CudaDriver> tryOpen(std::string* whyNot = nullptr, const std::string& library = {});

  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;
  ~CudaDriver();  // releases the primary contexts it retained; the library stays loaded (see .cpp)

  const cu::DriverApi& api() const { return api_; }
  int driverVersion() const { return driverVersion_; }  // e.g. 13000 for CUDA 13.0
  int deviceCount() const { return static_cast<int>(devices_.size()); }
  const DeviceInfo& device(int ordinal) const;  // throws CudaError(NoDevice) on a bad ordinal

  // Retains the device's primary context on first use and makes it current on the calling thread
  // (contexts are per host thread, so every operation calls this before touching the device). Asks the
  // driver which context is current; returns whether it had to switch.
  bool makeCurrent(int ordinal);
  // makeCurrent for the launch path: no driver call when this thread's last makeCurrent through this
  // CudaDriver was for this device's context. Code outside this driver (PyTorch's device guards, another
  // library, another CudaDriver) may have switched contexts since without it seeing, so a caller whose
  // next driver call fails must call makeCurrent and, when that switched, retry (PreparedLaunch does).
  void makeCurrentAssumed(int ordinal);
  void synchronize(int ordinal);  // cuCtxSynchronize: where asynchronous kernel faults surface

  // The ordinal of the device whose memory `address` is (cuPointerGetAttributes), or -1 when it is not
  // one device's memory as far as the driver knows: managed memory (usable on every device), pinned or
  // registered host memory, memory no CUDA allocator gave out, or a failed query.
  int deviceOf(cu::DevicePtr address) const;

  // ContextScope's halves. enterContext makes ordinal's context current and says whether it switched
  // (then `previous` is what was current, possibly none); leaveContext puts `previous` back.
  bool enterContext(int ordinal, cu::Context& previous);
  void leaveContext(cu::Context previous);

  // Throws CudaError::callFailed(call, result, ...) unless result is CUDA_SUCCESS.
  void check(cu::Result result, const char* call, const std::string& kernel = {}) const;
  std::string errorName(cu::Result result) const;         // "CUDA_ERROR_INVALID_VALUE"
  std::string errorDescription(cu::Result result) const;  // "invalid argument"

 private:
  CudaDriver() = default;

  cu::DriverApi api_;
  int driverVersion_ = 0;
  std::vector<DeviceInfo> devices_;
  std::vector<cu::Device> handles_;
  cu::Context context(int ordinal);  // the retained primary context (retained on first use)
  // The calling thread's notes (madeCurrent_ below): forget every one, or note that ordinal's is current.
  void forgetCurrent(size_t slot, std::thread::id self);
  void noteCurrent(int ordinal, size_t slot, std::thread::id self);

  std::mutex contextsMutex_;  // serialises retaining; reads of a retained context take no lock
  std::vector<std::atomic<cu::Context>> contexts_;  // null until retained, then fixed

  // Which threads this driver last made which context current on, for makeCurrentAssumed: kThreadSlots
  // entries per device; a thread only ever writes its own id, into entry slotOf(its id) of a device
  // (see makeCurrent for why that keeps the cache exact without a lock).
  static constexpr size_t kThreadSlots = 16;
  static size_t slotOf(std::thread::id thread);
  std::vector<std::atomic<std::thread::id>> madeCurrent_;  // [device * kThreadSlots + slot]
};

// Makes one device's primary context current on the calling thread for the scope's life, then puts back
// whatever was current before. The CUDA runtime's current device (cudaGetDevice, and so PyTorch's
// torch.cuda.current_device()) is the device of the thread's current context, so a launch on cuda:1
// must not leave device 1's context current behind a caller whose device is cuda:0. Costs one
// cuCtxGetCurrent when the context is already current (PyTorch made it so, or an earlier scope did),
// two cuCtxSetCurrent more when it was not. With no context current at all, device 0's is made current
// and left so: that is the device the runtime would pick for the thread anyway (its default), and a
// thread that never chose a device keeps launching on device 0 without switching every time.
class ContextScope {
 public:
  ContextScope(CudaDriver& driver, int ordinal) : driver_(&driver) {
    if (!driver.enterContext(ordinal, previous_)) driver_ = nullptr;
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  ~ContextScope() {
    if (driver_) driver_->leaveContext(previous_);
  }

 private:
  CudaDriver* driver_;  // null: nothing to put back
  cu::Context previous_ = nullptr;
};

// An RAII stream on one device (cuStreamCreate / cuStreamDestroy).
class Stream {
 public:
  Stream(std::shared_ptr<CudaDriver> driver, int device);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();
  cu::Stream handle() const { return stream_; }
  void synchronize();

 private:
  std::shared_ptr<CudaDriver> driver_;
  int device_;
  cu::Stream stream_ = nullptr;
};

}  // namespace kiln::runtime
