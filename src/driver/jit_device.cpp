// Where a JitFunction's variant runs (driver/jit_function.h): loaded on a device on first use (code
// generated, assembled, cached on disk) and launched on the caller's stream without synchronising,
// or run on the interpreter for host buffers; and which of the two a launch's arguments ask for.
#include <optional>

#include "driver/compile.h"
#include "driver/errors.h"
#include "driver/jit_function.h"
#include "driver/persistent_launch.h"
#include "driver/runtime_state.h"
#include "driver/writable_memory.h"
#include "runtime/cache.h"
#include "runtime/cubin.h"
#include "runtime/cuda_driver.h"

namespace kiln {

// Same tag as kiln::Gpu's (gpu.cpp): a cubin cached by either is valid for both.
static constexpr const char* kCodegenVersion = "kiln-codegen-1";

namespace {

// Appends the leaves of `a` to out: `a` itself, or a tuple's elements' leaves in order (pre-order).
void appendLeaves(const LaunchArg& a, std::vector<LaunchArg>& out) {
  if (a.kind != LaunchArg::Kind::Tuple) {
    out.push_back(a);
    return;
  }
  for (uint32_t i = 0; i < a.count; ++i) appendLeaves(a.elems[i], out);
}

// The arguments as the kernel's parameters see them: a tuple argument is its elements.
std::span<const LaunchArg> leavesOf(const Variant& v, std::span<const LaunchArg> args, std::vector<LaunchArg>& out) {
  if (!v.tuples) return args;
  out.clear();
  for (const LaunchArg& a : args) appendLeaves(a, out);
  return out;
}

// Launches l with the packed arguments (kernelParams) on the options' stream and attributes.
LaunchStatus launchPrepared(const Loaded& l, Grid grid, void* const* kernelParams, const LaunchOptions& o) {
  try {
    l.prepared->launch(runtime::Dim3{grid.x, grid.y, grid.z}, static_cast<runtime::cu::Stream>(o.stream),
                       kernelParams, runtime::LaunchAttributes{o.launch_cooperative_grid, o.launch_pdl});
  } catch (const runtime::CudaError& e) {
    return failure(e.kind() == runtime::CudaError::Kind::InvalidArgument ? LaunchErrorKind::Argument
                                                                         : LaunchErrorKind::Device,
                   e.what());
  }
  return {};
}

}  // namespace

const Loaded* JitFunction::Impl::loadedFast(const Variant& v, int device) {
  return device >= 0 && size_t(device) < kFastDevices ? v.byDevice[size_t(device)].load(std::memory_order_acquire)
                                                      : nullptr;
}

LaunchStatus JitFunction::Impl::load(Variant& v, int device, const Loaded*& out) {
  if (const Loaded* l = loadedFast(v, device)) {
    out = l;
    return {};
  }
  std::lock_guard<std::mutex> lock(v.loadMutex);
  for (const Loaded& l : v.loaded)
    if (l.device == device) {
      out = &l;
      return {};
    }
  Runtime::Impl& rt = *runtime.impl();
  runtime::CudaDriver* driver = rt.open();
  if (!driver) return failure(LaunchErrorKind::Device, "kernel '" + name + "' cannot run on the GPU: " + rt.whyNot);
  const Kernel& kernel = v.compiled->kernel;
  try {
    const runtime::DeviceInfo& info = driver->device(device);
    const std::string arch = info.arch();
    std::shared_ptr<const GpuCode> code;
    Result<bool> generated = guarded<bool>([&] {
      code = kernel.impl().gpuCode(arch);
      return true;
    });
    if (!generated) return failure(LaunchErrorKind::Compile, generated.error());
    std::string mapProblem;
    std::unique_ptr<TensorMapArgs> tensorMaps = TensorMapArgs::bind(code->tensorMaps, kernel.params(), mapProblem);
    if (!mapProblem.empty()) return failure(LaunchErrorKind::Compile, "kernel '" + name + "': " + mapProblem);
    const size_t mapCount = tensorMaps ? tensorMaps->size() : 0;
    const size_t gridCount = code->entry.persistent ? kGridParams : 0;  // the logical grid, after the parameters
    runtime::CubinOptions options;
    options.kernelName = kernel.name();
    // The tag names the assembler (ptxas and its version, nvJitLink or the driver): their cubins differ.
    runtime::CacheKey key =
        runtime::CacheKey::of({kCodegenVersion, arch, runtime::cubinCacheTag(options, driver), code->ptx});
    runtime::Bytes cubin = rt.cache.getOrBuild(
        key, [&] { return runtime::compileToCubin(code->ptx, arch, options, driver, device).image; });
    std::shared_ptr<runtime::LoadedKernel> lk = runtime::LoadedKernel::fromImage(
        rt.driver, device, cubin, code->entry.name, int(kernel.params().size() + gridCount + mapCount));
    const runtime::KernelAttributes& attrs = lk->attributes();
    Loaded l;
    l.device = device;
    l.kernel = lk;
    l.blockThreads = unsigned(code->entry.numWarps * 32);
    l.dynamicShared = size_t(code->entry.sharedBytes);
    auto compiled = std::make_shared<CompiledKernel>(*v.compiled);
    compiled->arch = arch;
    compiled->numRegs = attrs.numRegs;
    compiled->spillBytes = attrs.localBytes;
    compiled->sharedBytes = attrs.staticSharedBytes + int(l.dynamicShared);
    compiled->cubin.assign(cubin.begin(), cubin.end());
    l.compiled = compiled;
    // The checks a launch would fail with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES or INVALID_VALUE, said plainly.
    std::string config = "(num_warps=" + std::to_string(v.compiled->numWarps) +
                         ", num_stages=" + std::to_string(v.compiled->numStages) + ")";
    if (size_t(compiled->sharedBytes) > size_t(info.maxSharedPerBlockOptin))
      return failure(LaunchErrorKind::OutOfResources,
                     "kernel '" + name + "' " + config + " needs " + std::to_string(compiled->sharedBytes) +
                         " bytes of shared memory per block, but " + info.name + " has at most " +
                         std::to_string(info.maxSharedPerBlockOptin) + ": use smaller blocks or fewer stages");
    if (l.blockThreads > unsigned(attrs.maxThreadsPerBlock))
      return failure(LaunchErrorKind::OutOfResources,
                     "kernel '" + name + "' " + config + " uses " + std::to_string(attrs.numRegs) +
                         " registers per thread, so at most " + std::to_string(attrs.maxThreadsPerBlock) +
                         " threads per block fit on " + info.name + ", but it needs " +
                         std::to_string(l.blockThreads) + ": use fewer warps or smaller blocks");
    // The rest of what a launch would fail with (the device's limits), checked once here.
    l.prepared.emplace(*lk, l.blockThreads, l.dynamicShared, v.slots.size() + gridCount + mapCount);
    if (code->entry.persistent)
      l.persistentPrograms = persistentWave(*lk, l.blockThreads, l.dynamicShared, info.smCount);
    l.tensorMaps = std::move(tensorMaps);
    v.loaded.push_back(std::move(l));
    out = &v.loaded.back();
    if (size_t(device) < kFastDevices) v.byDevice[size_t(device)].store(out, std::memory_order_release);
    return {};
  } catch (const runtime::CudaError& e) {
    const LaunchErrorKind kind = e.kind() == runtime::CudaError::Kind::CompileFailed     ? LaunchErrorKind::Compile
                                 : e.kind() == runtime::CudaError::Kind::InvalidArgument ? LaunchErrorKind::Argument
                                                                                         : LaunchErrorKind::Device;
    return failure(kind, std::string(e.what()) + (e.log().empty() ? "" : "\n" + e.log()));
  }
}

LaunchStatus JitFunction::Impl::onDevice(Variant& v, int device, const Grid* grid, std::span<const LaunchArg> args,
                                         const LaunchOptions& o, std::shared_ptr<const CompiledKernel>* used) {
  // A first launch on this device assembles and loads the kernel (and may open the driver and retain
  // the device's context): the caller's blocking hooks around it all.
  std::optional<BlockingScope> blocking;
  if (!loadedFast(v, device)) blocking.emplace(o.blocking);
  Runtime::Impl& rt = *runtime.impl();
  runtime::CudaDriver* driver = rt.open();
  if (!driver) return failure(LaunchErrorKind::Device, "kernel '" + name + "' cannot run on the GPU: " + rt.whyNot);
  try {
    // Loading and launching need the device's context current; the caller's is current again afterwards.
    runtime::ContextScope scope(*driver, device);
    const Loaded* l = nullptr;
    if (LaunchStatus s = load(v, device, l); !s) return s;
    if (used) *used = l->compiled;
    // An empty grid launches nothing, as in Triton.
    if (!grid || grid->x == 0 || grid->y == 0 || grid->z == 0) return {};
    return run(*l, v, *grid, args, o);
  } catch (const runtime::CudaError& e) {
    return failure(LaunchErrorKind::Device, "kernel '" + name + "': " + e.what());
  }
}

LaunchStatus JitFunction::Impl::checkWritable(const Variant& v, std::span<const LaunchArg> launchArgs,
                                              bool interp) const {
  std::vector<LaunchArg> flat;
  std::span<const LaunchArg> args = leavesOf(v, launchArgs, flat);
  for (size_t k : v.written) {
    const LaunchArg& a = args[v.argIndex[k]];
    if (a.kind == LaunchArg::Kind::Pointer &&
        (a.readOnly || (interp && a.host && !isWritableMemory(reinterpret_cast<const void*>(a.address), a.bytes))))
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + v.where[k] + " is " +
                                                    describeArgument(a) + " in read-only memory, but the kernel "
                                                    "stores through it: pass a writable array (x.copy())");
  }
  return {};
}

LaunchStatus JitFunction::Impl::interpret(const Variant& v, Grid grid, std::span<const LaunchArg> launchArgs,
                                          const LaunchOptions& o) {
  std::vector<LaunchArg> flat;
  std::span<const LaunchArg> args = leavesOf(v, launchArgs, flat);
  std::vector<Arg> values;
  values.reserve(v.argIndex.size());
  for (size_t k = 0; k < v.argIndex.size(); ++k) {
    const LaunchArg& a = args[v.argIndex[k]];
    switch (a.kind) {
      case LaunchArg::Kind::Pointer:
        values.push_back(Arg::buffer(reinterpret_cast<void*>(a.address), a.bytes));
        break;
      case LaunchArg::Kind::Float: values.push_back(Arg::real(a.f)); break;
      case LaunchArg::Kind::Int:
      case LaunchArg::Kind::UInt:
      case LaunchArg::Kind::Bool: values.push_back(Arg::integer(a.i)); break;
      case LaunchArg::Kind::None:
      case LaunchArg::Kind::String:
      case LaunchArg::Kind::Signature:
      case LaunchArg::Kind::Tuple:
        return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + v.where[k] + " is " +
                                                      describeArgument(a) + ", which cannot be passed at run time");
    }
  }
  // Writable memory was checked by launch (checkWritable), as an argument error.
  InterpretOptions options;
  if (o.stop) options.stop = *o.stop;
  if (o.on_long_run) options.on_long_run = *o.on_long_run;
  options.check_overflow = o.check_overflow;
  Status s = runInterpreter(v.compiled->kernel, grid, values, options);
  if (!s.ok()) return failure(s.interrupted ? LaunchErrorKind::Interrupted : LaunchErrorKind::Execution, *s.error);
  return {};
}

LaunchStatus JitFunction::Impl::run(const Loaded& l, const Variant& v, Grid grid,
                                    std::span<const LaunchArg> launchArgs, const LaunchOptions& o) {
  std::vector<LaunchArg> flat;  // stays empty (no allocation) unless a tuple was passed
  std::span<const LaunchArg> args = leavesOf(v, launchArgs, flat);
  const size_t n = v.argIndex.size();
  const size_t extra = l.persistentPrograms ? kGridParams : 0;  // a persistent entry's logical grid
  // On the stack for the usual few parameters: the cached path allocates nothing.
  constexpr size_t kInline = 24;
  uint64_t inlineSlots[kInline];
  void* inlinePointers[kInline];
  std::vector<uint64_t> heapSlots;
  std::vector<void*> heapPointers;
  uint64_t* slots = inlineSlots;
  void** pointers = inlinePointers;
  if (n + extra > kInline) {
    heapSlots.resize(n + extra);
    heapPointers.resize(n + extra);
    slots = heapSlots.data();
    pointers = heapPointers.data();
  }
  // Each value sits in the low bytes of its 8-byte slot: the driver copies as many bytes as the
  // entry's .param declares (a .b16 for f16/bf16) to that parameter's offset.
  for (size_t k = 0; k < n; ++k) {
    if (auto why = packArgument(v.slots[k], args[v.argIndex[k]], slots[k]))
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + v.where[k] + " " + *why);
    pointers[k] = &slots[k];
  }
  if (extra) {
    uint32_t dims[kGridParams];
    if (std::optional<std::string> why = persistentGrid(grid, l.persistentPrograms, dims, grid))
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + *why);
    for (size_t a = 0; a < kGridParams; ++a) {
      slots[n + a] = dims[a];
      pointers[n + a] = &slots[n + a];
    }
  }
  if (l.tensorMaps) return runWithTensorMaps(l, v, grid, pointers, n + extra, o);
  return launchPrepared(l, grid, pointers, o);
}

LaunchStatus JitFunction::Impl::runWithTensorMaps(const Loaded& l, const Variant& v, Grid grid, void* const* params,
                                                  size_t n, const LaunchOptions& o) {
  TensorMapArgs& maps = *l.tensorMaps;
  const size_t m = maps.size();
  // On the stack for a few parameters and maps; the driver copies them during the launch call.
  constexpr size_t kInlinePointers = 32, kInlineMaps = 4;
  runtime::cu::TensorMap inlineMaps[kInlineMaps];  // 128-byte aligned, as the type says
  void* inlinePointers[kInlinePointers];
  std::vector<runtime::cu::TensorMap> heapMaps;
  std::vector<void*> heapPointers;
  runtime::cu::TensorMap* encoded = inlineMaps;
  void** pointers = inlinePointers;
  if (m > kInlineMaps) {
    heapMaps.resize(m);
    encoded = heapMaps.data();
  }
  if (n + m > kInlinePointers) {
    heapPointers.resize(n + m);
    pointers = heapPointers.data();
  }
  try {
    const TensorMapArgs::Encode encode = TensorMapArgs::encodeOn(*runtime.impl()->driver, l.device);
    if (std::optional<std::string> why = maps.fill(params, v.where, encode, encoded))
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + *why);
  } catch (const runtime::CudaError& e) {
    return failure(LaunchErrorKind::Device, e.what());
  }
  for (size_t k = 0; k < n; ++k) pointers[k] = params[k];
  for (size_t i = 0; i < m; ++i) pointers[n + i] = &encoded[i];
  return launchPrepared(l, grid, pointers, o);
}

LaunchStatus JitFunction::Impl::placement(std::span<const LaunchArg> args, const LaunchOptions& o, bool& interp,
                                          int& device) {
  // The first host buffer, the first device pointer, and the first device pointer whose device is known:
  // where each is among the arguments (a tuple's pointers count as arguments of their own, its elements
  // being the kernel's parameters). Nothing is written out unless a message needs it.
  struct Seen {
    const LaunchArg* arg = nullptr;
    size_t index = 0;
    std::string path;  // within a tuple argument: "[1][0]"
  };
  Seen host, onDevice, known, mismatch;  // mismatch: the first one on another device than `known`
  auto visit = [&](size_t i, const LaunchArg& a, const std::string& path) {
    if (a.kind != LaunchArg::Kind::Pointer || mismatch.arg) return;
    Seen& first = a.host ? host : onDevice;
    if (!first.arg) first = Seen{&a, i, path};
    if (a.host || a.device < 0) return;
    if (!known.arg) known = Seen{&a, i, path};
    else if (a.device != known.arg->device) mismatch = Seen{&a, i, path};
  };
  for (size_t i = 0; i < args.size() && !mismatch.arg; ++i) {
    if (args[i].kind == LaunchArg::Kind::Tuple)
      forEachLeaf(args[i], "", [&](const LaunchArg& a, const std::string& path) { visit(i, a, path); });
    else
      visit(i, args[i], std::string());
  }
  auto where = [&](const Seen& s) { return argName(s.index) + (s.path.empty() ? "" : ", element " + s.path); };
  if (mismatch.arg)
    return failure(LaunchErrorKind::Argument,
                   "kernel '" + name + "': " + where(known) + " is on cuda:" + std::to_string(known.arg->device) +
                       " but " + where(mismatch) + " is on cuda:" + std::to_string(mismatch.arg->device) +
                       ": a launch runs on one device, so every tensor it takes must live there (move one with "
                       ".to(device))");
  if (host.arg && onDevice.arg)
    return failure(LaunchErrorKind::Argument,
                   "kernel '" + name + "': " + where(host) + " is " + describeArgument(*host.arg) +
                       " in host memory, but " + where(onDevice) + " is on the GPU: move it to the GPU (.cuda()), "
                       "or run everything on the interpreter with host arrays (KILN_INTERPRET=1)");
  device = known.arg ? known.arg->device : o.device;
  interp = o.interpret || host.arg || (!onDevice.arg && !runtime.hasGpu());
  if (interp && onDevice.arg)
    return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + where(onDevice) +
                                                  " is on the GPU, but the interpreter needs host arrays "
                                                  "(NumPy arrays or CPU tensors)");
  return {};
}

}  // namespace kiln
