// A kernel loaded on a device (module + function + what the driver says about it, unloaded on
// destruction), its checked launch, and PreparedLaunch: a configuration checked once, for hot paths.
#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cache.h"
#include "runtime/cuda_driver.h"

namespace kiln::runtime {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// cuFuncGetAttribute's view of the loaded function, read once at load.
struct KernelAttributes {
  int numRegs = 0;            // registers per thread
  int localBytes = 0;         // local memory per thread: spills and stack
  int staticSharedBytes = 0;  // .shared declared with a size
  int constBytes = 0;
  int maxThreadsPerBlock = 0;     // the kernel's launch bound (.maxntid/.reqntid, or register-limited)
  int maxDynamicSharedBytes = 0;  // dynamic shared-memory limit at load (48 KB - static); launch raises it
  int ptxVersion = 0, binaryVersion = 0;  // e.g. 90 and 90
  int paramCount = -1;                    // number of kernel parameters; -1 if the driver cannot say
};

class LoadedKernel {
 public:
  // Loads a cubin (or fatbin) for the device and finds the entry function kernelName.
  // knownParamCount >= 0 states the entry's parameter count (else it is asked of the driver).
  static std::unique_ptr<LoadedKernel> fromImage(std::shared_ptr<CudaDriver> driver, int device,
                                                 const Bytes& image, const std::string& kernelName,
                                                 int knownParamCount = -1);
  // Loads PTX text, which the driver JIT-compiles for the device (no disk cache on this path).
  static std::unique_ptr<LoadedKernel> fromPtx(std::shared_ptr<CudaDriver> driver, int device,
                                               const std::string& ptx, const std::string& kernelName);
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  ~LoadedKernel();  // cuModuleUnload

  const std::string& name() const { return name_; }
  int device() const { return device_; }
  const KernelAttributes& attributes() const { return attributes_; }
  cu::Function function() const { return function_; }
  CudaDriver& driver() const { return *driver_; }
  const std::string& loadLog() const { return loadLog_; }  // the driver JIT's info log (PTX loads)
  // How many blocks of blockThreads threads and dynamicSharedBytes of dynamic shared memory fit on one
  // multiprocessor at once (cuOccupancyMaxActiveBlocksPerMultiprocessor, after raising the function's
  // shared-memory limit); at least 1 for a configuration that launches. Throws CudaError.
  int residentBlocksPerSm(unsigned blockThreads, size_t dynamicSharedBytes);

 private:
  LoadedKernel(std::shared_ptr<CudaDriver> driver, int device, std::string name);
  void load(const void* image);

  friend void launch(LoadedKernel&, Dim3, unsigned, size_t, cu::Stream, const std::vector<void*>&);
  friend class PreparedLaunch;
  // Raises the function's dynamic shared-memory limit to `bytes` when it is lower (once per function).
  void ensureDynamicShared(size_t bytes);

  std::shared_ptr<CudaDriver> driver_;
  int device_;
  std::string name_;
  cu::Module module_ = nullptr;
  cu::Function function_ = nullptr;
  KernelAttributes attributes_;
  std::string loadLog_;
  std::mutex sharedLimitMutex_;  // serialises raising dynamicSharedLimit_; reading it takes no lock
  std::atomic<int> dynamicSharedLimit_ = 0;  // the function's MAX_DYNAMIC_SHARED_SIZE_BYTES as last set
  int knownParamCount_ = -1;    // stated by the caller of fromImage; -1: ask the driver
};

// Launches kernel on grid x blockThreads threads with dynamicSharedBytes of dynamic shared memory on
// stream (nullptr = the legacy default stream). args[i] points at the value of parameter i (for a
// pointer parameter: at a cu::DevicePtr). Checks the grid, block, shared memory and argument count
// against the device and the kernel first, and raises the kernel's dynamic shared-memory limit when
// it needs more than the default 48 KB. Throws CudaError naming the kernel. The launch is
// asynchronous: faults inside the kernel surface at the next synchronization.
void launch(LoadedKernel& kernel, Dim3 grid, unsigned blockThreads, size_t dynamicSharedBytes,
            cu::Stream stream, const std::vector<void*>& args);

// What a launch may ask of the scheduler beyond grid and block (cuLaunchKernelEx's attributes).
struct LaunchAttributes {
  // Every program is resident at once, or the launch fails (CU_LAUNCH_ATTRIBUTE_COOPERATIVE; Triton's
  // launch_cooperative_grid): programs may then wait for each other.
  bool cooperative = false;
  // The kernel may start before the previous kernel on the stream has finished: its griddepcontrol.wait
  // waits for that kernel, whose griddepcontrol.launch_dependents lets it start early
  // (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; Triton's launch_pdl).
  bool programmaticSerialization = false;
  bool any() const { return cooperative || programmaticSerialization; }
};

// A launch configuration of one kernel (block size, dynamic shared memory, argument count) checked
// against the device and the kernel once, with the shared-memory limit raised once, so that each launch
// through it checks only the grid and calls the driver: kiln's cached-launch path (JitFunction). It
// launches with cuLaunchKernel, or with cuLaunchKernelEx when the launch asks for attributes. Holds the
// kernel by reference: keep it alive.
class PreparedLaunch {
 public:
  // Throws CudaError(InvalidArgument) with launch's messages when the configuration cannot run.
  PreparedLaunch(LoadedKernel& kernel, unsigned blockThreads, size_t dynamicSharedBytes, size_t argCount);

  // args[i] points at the value of parameter i (argCount of them, none null: the caller's contract).
  // Throws CudaError: InvalidArgument for a grid the device cannot launch (a cooperative one included),
  // CallFailed from the driver.
  void launch(Dim3 grid, cu::Stream stream, void* const* args, LaunchAttributes attributes = {}) const {
    if (grid.x - 1u >= maxGrid_[0] || grid.y - 1u >= maxGrid_[1] || grid.z - 1u >= maxGrid_[2]) badGrid(grid);
    if (attributes.any()) return launchWithAttributes(grid, stream, args, attributes);
    driver_->makeCurrentAssumed(device_);
    cu::Result r = launchKernel_(function_, grid.x, grid.y, grid.z, blockThreads_, 1, 1, sharedBytes_, stream,
                                 const_cast<void**>(args), nullptr);
    if (r != cu::kSuccess) retry(r, grid, stream, args);
  }

  LoadedKernel& kernel() const { return *kernel_; }
  unsigned blockThreads() const { return blockThreads_; }
  unsigned dynamicSharedBytes() const { return sharedBytes_; }

 private:
  [[noreturn]] void badGrid(Dim3 grid) const;
  // After a failed launch: makes the context current for real (it may have been switched behind kiln's
  // back) and launches again if that changed anything; otherwise throws the driver's error.
  void retry(cu::Result r, Dim3 grid, cu::Stream stream, void* const* args) const;
  void launchWithAttributes(Dim3 grid, cu::Stream stream, void* const* args, LaunchAttributes attributes) const;

  LoadedKernel* kernel_;
  CudaDriver* driver_;
  decltype(cu::DriverApi::launchKernel) launchKernel_;
  cu::Function function_;
  int device_;
  unsigned blockThreads_, sharedBytes_;
  unsigned maxGrid_[3];  // the device's grid limits; a dimension d is valid when d - 1 < limit (unsigned)
};

}  // namespace kiln::runtime
