// kiln::Gpu: one CUDA device, the kernels compiled and loaded for it, and runs with host buffers.
#include <cstring>
#include <exception>
#include <map>
#include <mutex>

#include "driver/compile.h"
#include "driver/errors.h"
#include "driver/persistent_launch.h"
#include "driver/tensor_map_args.h"
#include "runtime/cache.h"
#include "runtime/cubin.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/launch.h"

namespace kiln {

// Bumped whenever generated code changes, so cached cubins of older compilers are not reused.
static constexpr const char* kCodegenVersion = "kiln-codegen-1";

struct Gpu::Impl {
  std::shared_ptr<runtime::CudaDriver> driver;
  int ordinal = 0;
  std::string name, arch;
  int smCount = 0;
  runtime::Cache cache{runtime::defaultCacheDirectory()};
  std::mutex mutex;
  // A kernel loaded on the device, with the TMA tensor maps it takes after its parameters (null: none).
  struct Loaded {
    std::shared_ptr<runtime::LoadedKernel> kernel;
    std::shared_ptr<TensorMapArgs> tensorMaps;
    unsigned persistentPrograms = 0;  // a persistent entry: the most programs a launch starts (else 0)
  };
  std::map<std::string, Loaded> loaded;  // by cache key
};

namespace {

// Every CudaError is about the environment (no driver or GPU, a failing or timed-out ptxas, a launch
// the device refuses), never a compiler bug: a user-facing error whose message names the tool or call.
Error cudaToError(const runtime::CudaError& e) {
  Diagnostic d{Diagnostic::Kind::Error, {}, e.what(), {}};
  return toError(d);
}

// Runs a step that may throw compiler or CUDA errors; returns them as values. CudaError is caught
// first: it derives from std::exception, which guarded() would report as an internal error.
template <class T, class F>
Result<T> guardedGpu(F&& step) {
  try {
    return step();
  } catch (const runtime::CudaError& e) {
    return cudaToError(e);
  } catch (...) {
    std::exception_ptr thrown = std::current_exception();
    return guarded<T>(std::function<T()>([&]() -> T { std::rethrow_exception(thrown); }));
  }
}

// The loaded kernel for this device, compiling and assembling on first use.
Gpu::Impl::Loaded load(Gpu::Impl& gpu, const Kernel& kernel, lower::EntryInfo& entry) {
  std::shared_ptr<const GpuCode> code = kernel.impl().gpuCode(gpu.arch);
  entry = code->entry;
  std::string mapProblem;
  std::shared_ptr<TensorMapArgs> tensorMaps = TensorMapArgs::bind(code->tensorMaps, kernel.params(), mapProblem);
  if (!mapProblem.empty()) throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': " + mapProblem);
  const size_t mapCount = tensorMaps ? tensorMaps->size() : 0;
  runtime::CubinOptions options;
  options.kernelName = kernel.name();
  // The tag names the assembler (ptxas and its version, nvJitLink or the driver): their cubins differ.
  runtime::CacheKey key = runtime::CacheKey::of(
      {kCodegenVersion, gpu.arch, runtime::cubinCacheTag(options, gpu.driver.get()), code->ptx});
  std::lock_guard<std::mutex> lock(gpu.mutex);
  auto it = gpu.loaded.find(key.hex());
  if (it != gpu.loaded.end()) return it->second;
  runtime::Bytes cubin = gpu.cache.getOrBuild(key, [&] {
    return runtime::compileToCubin(code->ptx, gpu.arch, options, gpu.driver.get(), gpu.ordinal).image;
  });
  const size_t gridCount = code->entry.persistent ? kGridParams : 0;  // the logical grid, after the parameters
  Gpu::Impl::Loaded loaded{runtime::LoadedKernel::fromImage(gpu.driver, gpu.ordinal, cubin, code->entry.name,
                                                             int(kernel.params().size() + gridCount + mapCount)),
                           std::move(tensorMaps)};
  if (code->entry.persistent)
    loaded.persistentPrograms = persistentWave(*loaded.kernel, unsigned(code->entry.numWarps * 32),
                                               size_t(code->entry.sharedBytes), gpu.smCount);
  gpu.loaded[key.hex()] = loaded;
  return loaded;
}

}  // namespace

Result<std::vector<uint8_t>> assembleCubin(const Kernel& kernel, const std::string& arch) {
  return guardedGpu<std::vector<uint8_t>>([&] {
    runtime::CubinOptions options;  // Auto without a driver: ptxas, else nvJitLink
    options.kernelName = kernel.name();
    runtime::Cubin cubin = runtime::compileToCubin(kernel.impl().gpuCode(arch)->ptx, arch, options);
    return std::vector<uint8_t>(cubin.image.begin(), cubin.image.end());
  });
}

Result<Gpu> Gpu::open(int ordinal) {
  return guardedGpu<Gpu>([&] {
    auto impl = std::make_shared<Impl>();
    impl->driver = runtime::CudaDriver::open();
    const runtime::DeviceInfo& info = impl->driver->device(ordinal);
    impl->ordinal = ordinal;
    impl->name = info.name;
    impl->arch = info.arch();
    impl->smCount = info.smCount;
    return Gpu(impl);
  });
}

const std::string& Gpu::name() const { return impl_->name; }
const std::string& Gpu::arch() const { return impl_->arch; }
int Gpu::smCount() const { return impl_->smCount; }

Result<std::string> Gpu::ptx(const Kernel& kernel) {
  return guardedGpu<std::string>([&] { return kernel.impl().gpuCode(impl_->arch)->ptx; });
}

Status Gpu::run(const Kernel& kernel, Grid grid, std::span<const Arg> args) {
  Result<bool> r = guardedGpu<bool>([&] {
    // The device's context is current for the run; the caller's is current again afterwards.
    runtime::ContextScope scope(*impl_->driver, impl_->ordinal);
    lower::EntryInfo entry;
    Impl::Loaded loaded = load(*impl_, kernel, entry);
    const std::vector<Param>& params = kernel.params();
    if (args.size() != params.size())
      throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': expected " + std::to_string(params.size()) +
                                          " arguments, got " + std::to_string(args.size()));
    // Device copies of the buffers, and one argument slot per parameter in the PTX parameter type.
    std::vector<runtime::DeviceBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<std::array<unsigned char, 8>> slots(args.size());
    std::vector<void*> pointers;
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg& a = args[i];
      const Param& p = params[i];
      std::memset(slots[i].data(), 0, 8);
      if (p.pointer) {
        if (a.kind != Arg::Kind::Buffer)
          throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': argument " + std::to_string(i) + " ('" +
                                              p.name + "') expects a buffer");
        buffers.emplace_back(impl_->driver, impl_->ordinal, a.bytes);
        if (a.bytes) buffers.back().upload(a.data, a.bytes);
        pointers.push_back(buffers.back().argument());
        continue;
      }
      if (a.kind == Arg::Kind::Buffer)
        throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': argument " + std::to_string(i) + " ('" +
                                            p.name + "') expects a scalar, got a buffer");
      // Scalars travel in the PTX parameter's width: 64-bit types as 8 bytes, f32 as a float, the rest as
      // 32-bit integers (i1 as one byte: little-endian, so the low byte of the 32-bit slot).
      if (p.type == "f32") {
        float f = float(a.kind == Arg::Kind::Float ? a.f : double(a.i));
        std::memcpy(slots[i].data(), &f, 4);
      } else if (p.type == "f64") {
        double f = a.kind == Arg::Kind::Float ? a.f : double(a.i);
        std::memcpy(slots[i].data(), &f, 8);
      } else if (p.type == "f16" || p.type == "bf16") {
        throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': " + p.type +
                                            " scalar arguments are not supported on the GPU yet");
      } else {
        if (a.kind == Arg::Kind::Float)
          throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': argument " + std::to_string(i) + " ('" +
                                              p.name + "') is an integer, got a float");
        int64_t v = p.type == "i1" ? (a.i != 0) : a.i;
        std::memcpy(slots[i].data(), &v, 8);  // little-endian: the low bytes are the narrow value
      }
      pointers.push_back(slots[i].data());
    }
    // A persistent entry takes the logical grid next and starts at most one wave of programs.
    uint32_t dims[kGridParams];
    if (loaded.persistentPrograms) {
      if (std::optional<std::string> why = persistentGrid(grid, loaded.persistentPrograms, dims, grid))
        throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': " + *why);
      for (uint32_t& d : dims) pointers.push_back(&d);
    }
    // The tensor maps follow (the driver copies them during the launch call).
    std::vector<runtime::cu::TensorMap> maps(loaded.tensorMaps ? loaded.tensorMaps->size() : 0);
    if (!maps.empty()) {
      std::vector<std::string> where;
      for (size_t i = 0; i < params.size(); ++i)
        where.push_back("argument " + std::to_string(i) + " ('" + params[i].name + "')");
      const TensorMapArgs::Encode encode = TensorMapArgs::encodeOn(*impl_->driver, impl_->ordinal);
      if (std::optional<std::string> why = loaded.tensorMaps->fill(pointers.data(), where, encode, maps.data()))
        throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': " + *why);
      for (runtime::cu::TensorMap& m : maps) pointers.push_back(&m);
    }
    runtime::launch(*loaded.kernel, runtime::Dim3{grid.x, grid.y, grid.z}, unsigned(entry.numWarps * 32),
                    size_t(entry.sharedBytes), nullptr, pointers);
    impl_->driver->synchronize(impl_->ordinal);
    size_t b = 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (params[i].pointer) {
        if (args[i].bytes) buffers[b].download(args[i].data, args[i].bytes);
        ++b;
      }
    return true;
  });
  if (!r.ok()) return Status{r.error()};
  return Status{};
}

}  // namespace kiln
