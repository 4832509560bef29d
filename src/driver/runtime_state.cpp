// Runtime (include/kiln/launcher.h): whether there is a GPU, the device queries, and the stages of a
// compiled kernel for a target and the resources the assembler reports for it.
#include "driver/runtime_state.h"

#include <algorithm>

#include "driver/compile.h"
#include "driver/errors.h"
#include "runtime/cubin.h"

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

int Runtime::deviceOf(uint64_t address) const {
  runtime::CudaDriver* d = impl_->open();
  return d ? d->deviceOf(address) : -1;
}

std::optional<DeviceProperties> Runtime::properties(int device) const {
  runtime::CudaDriver* d = impl_->open();
  if (!d || device < 0 || device >= d->deviceCount()) return std::nullopt;
  const runtime::DeviceInfo& i = d->device(device);
  return DeviceProperties{i.name,
                          i.arch(),
                          i.smCount,
                          i.warpSize,
                          i.maxThreadsPerBlock,
                          i.maxSharedPerBlockOptin,
                          i.maxRegistersPerBlock,
                          i.smClockKHz,
                          i.memoryClockKHz,
                          i.memoryBusWidthBits,
                          i.totalMemoryBytes};
}

Result<std::string> CompiledKernel::stage(std::string_view name, const std::string& fallbackArch) const {
  return stageFor(name, arch.empty() ? fallbackArch : arch);
}

Result<std::string> CompiledKernel::stageFor(std::string_view name, const std::string& target) const {
  if (name == "gpu-ir" || name == "ptx") {
    return guarded<std::string>([&] {
      std::shared_ptr<const GpuCode> code = kernel.impl().gpuCode(target);
      return name == "ptx" ? code->ptx : code->gpuIr();
    });
  }
  return kernel.stage(name);
}

Result<int64_t> CompiledKernel::dynamicSharedBytes(const std::string& target) const {
  return guarded<int64_t>([&] { return kernel.impl().gpuCode(target)->entry.sharedBytes; });
}

Result<CompiledKernel::Resources> CompiledKernel::assembledResources(const std::string& target) const {
  std::shared_ptr<const GpuCode> code;
  Result<bool> generated = guarded<bool>([&] {
    code = kernel.impl().gpuCode(target);
    return true;
  });
  if (!generated) return generated.error();
  auto plain = [](std::string message) {
    Error e;
    e.message = message;
    e.text = "error: " + message;
    return e;
  };
  runtime::Cubin cubin;
  try {
    runtime::CubinOptions options;
    options.kernelName = code->entry.name;
    cubin = runtime::compileToCubin(code->ptx, target, options);  // no driver: ptxas, else nvJitLink
  } catch (const runtime::CudaError& e) {
    return plain("cannot read the resources of kernel '" + code->entry.name + "' for " + target +
                 " without a GPU: " + e.what());
  }
  for (const runtime::KernelResources& r : cubin.resources)
    if (r.kernel == code->entry.name && r.registers >= 0)
      return Resources{r.registers, std::max(r.stackFrameBytes, 0),
                       std::max(r.sharedBytes, 0) + int(code->entry.sharedBytes), cubin.backend};
  return plain("the assembler (" + cubin.backend + ") reported no register count for kernel '" + code->entry.name +
               "' on " + target + " in its log:\n" + cubin.infoLog);
}

}  // namespace kiln
