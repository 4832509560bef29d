// Runtime (include/kiln/launcher.h): whether there is a GPU, the device queries, and the stages of a
// compiled kernel for a target.
#include "driver/runtime_state.h"

#include "driver/compile.h"
#include "driver/errors.h"

namespace kiln {

Runtime::Runtime() : impl_(std::make_shared<Impl>()) {}

bool Runtime::hasGpu(std::string* whyNot) const {
  if (impl_->open()) return true;
  if (whyNot) *whyNot = impl_->whyNot;
  return false;
}

int Runtime::deviceCount() const {
  runtime::CudaDriver* d = impl_->open();
  return d ? d->deviceCount() : 0;
}

std::string Runtime::arch(int device) const {
  runtime::CudaDriver* d = impl_->open();
  return d && device >= 0 && device < d->deviceCount() ? d->device(device).arch() : std::string();
}

std::optional<DeviceProperties> Runtime::properties(int device) const {
  runtime::CudaDriver* d = impl_->open();
  if (!d || device < 0 || device >= d->deviceCount()) return std::nullopt;
  const runtime::DeviceInfo& i = d->device(device);
  return DeviceProperties{i.name, i.arch(), i.smCount, i.warpSize, i.maxThreadsPerBlock, i.maxSharedPerBlockOptin,
                          i.totalMemoryBytes};
}

Result<std::string> CompiledKernel::stage(std::string_view name, const std::string& fallbackArch) const {
  if (name == "gpu-ir" || name == "ptx") {
    std::string target = arch.empty() ? fallbackArch : arch;
    return guarded<std::string>([&] {
      std::shared_ptr<const GpuCode> code = kernel.impl().gpuCode(target);
      return name == "ptx" ? code->ptx : code->gpuIr;
    });
  }
  return kernel.stage(name);
}

Result<int64_t> CompiledKernel::dynamicSharedBytes(const std::string& target) const {
  return guarded<int64_t>([&] { return kernel.impl().gpuCode(target)->entry.sharedBytes; });
}

}  // namespace kiln
