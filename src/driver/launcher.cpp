// JitFunction (include/kiln/launcher.h): the specialization cache, compilation on a miss, loading per
// device, and the cached-launch path: key, lookup, argument packing, cuLaunchKernel on the caller's
// stream without synchronising; or the interpreter for host buffers. The Runtime it loads through is
// runtime_state.cpp.
#include "kiln/launcher.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

#include "driver/compile.h"
#include "driver/errors.h"
#include "driver/recent_launches.h"
#include "driver/link.h"
#include "driver/param_slots.h"
#include "driver/runtime_state.h"
#include "driver/specialize.h"
#include "driver/writable_memory.h"
#include "frontend/parser.h"
#include "runtime/cache.h"
#include "runtime/cubin.h"
#include "runtime/cuda_driver.h"
#include "runtime/launch.h"

namespace kiln {

// Same tag as kiln::Gpu's (gpu.cpp): a cubin cached by either is valid for both.
static constexpr const char* kCodegenVersion = "kiln-codegen-1";

namespace {

// A specialization loaded on one device.
struct Loaded {
  int device = 0;
  std::shared_ptr<runtime::LoadedKernel> kernel;
  std::shared_ptr<const CompiledKernel> compiled;  // with this device's arch and resources
  unsigned blockThreads = 0;
  size_t dynamicShared = 0;
  std::optional<runtime::PreparedLaunch> prepared;  // block, shared memory and arguments checked at load
};

// Devices whose loaded kernels a launch finds without taking a lock (higher ordinals take it).
constexpr size_t kFastDevices = 16;

// One specialization: the compiled kernel, how its arguments are packed, and where it is loaded.
struct Variant {
  std::shared_ptr<const CompiledKernel> compiled;
  // For each kernel parameter: its LaunchArg among the launch's leaves (leavesOf: the arguments with
  // every tuple replaced by its elements), which are the arguments themselves when no tuple was passed.
  std::vector<size_t> argIndex;
  bool tuples = false;            // a tuple argument: the launch flattens its arguments first
  std::vector<std::string> where;  // for each kernel parameter, how messages name it
  std::vector<ParamSlot> slots;  // how each kernel parameter is packed (param_slots.h)
  std::vector<size_t> written;   // the kernel parameters it stores through (written_params.h)
  std::mutex loadMutex;
  std::deque<Loaded> loaded;  // a deque: launches hold pointers into it while others load
  std::array<std::atomic<const Loaded*>, kFastDevices> byDevice{};  // published once loaded, then fixed
};

LaunchStatus failure(LaunchErrorKind kind, Error e) {
  LaunchStatus s;
  s.error = std::move(e);
  s.kind = kind;
  return s;
}

LaunchStatus failure(LaunchErrorKind kind, const std::string& message) {
  Error e;
  e.message = message;
  e.text = "error: " + message;
  return failure(kind, std::move(e));
}

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

// Calls f(leaf, path) for every leaf of `a`; path: "" for `a` itself, else "[0][2]".
template <class F>
void forEachLeaf(const LaunchArg& a, const std::string& path, F&& f) {
  if (a.kind != LaunchArg::Kind::Tuple) return f(a, path);
  for (uint32_t i = 0; i < a.count; ++i) forEachLeaf(a.elems[i], path + "[" + std::to_string(i) + "]", f);
}

// Function ids for the recent-launch table (recent_launches.h): never reused.
std::atomic<uint64_t> nextFunctionId{1};

}  // namespace

struct JitFunction::Impl {
  const uint64_t id = nextFunctionId.fetch_add(1, std::memory_order_relaxed);
  Runtime runtime;
  Source source;
  std::string name;
  std::vector<KernelParameter> params;
  std::vector<bool> specialize;  // false for do_not_specialize parameters
  std::mutex mutex;              // guards variants and imports; held while compiling a new one
  ModuleImports imports;         // what the module takes from other modules (link.h)
  std::unordered_map<std::string, std::shared_ptr<Variant>> variants;  // never erased: Variant* stay valid
  std::atomic<Variant*> lastVariant{nullptr};  // the last one looked up: launches in a loop skip the map

  std::string argName(size_t i) const {
    return "argument " + std::to_string(i) + " ('" + params[i].name + "')";
  }

  // Appends the specialization key (the signature, then the options) to key; the signature's length
  // goes to signatureEnd. Fails on arguments that do not fit their parameters.
  LaunchStatus buildKey(std::span<const LaunchArg> args, const LaunchOptions& o, std::string& key,
                        size_t& signatureEnd) const {
    if (args.size() != params.size())
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "' takes " + std::to_string(params.size()) +
                                                    " arguments, got " + std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) key.append(", ", 2);
      if (auto why = appendSignatureEntry(key, params[i], args[i], specialize[i]))
        return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + argName(i) +
                                                      (why->rfind("element [", 0) == 0 ? ", " : " ") + *why);
    }
    signatureEnd = key.size();
    char options[32];
    std::to_chars_result w = std::to_chars(options, options + 16, o.num_warps);
    *w.ptr = 's';
    std::to_chars_result st = std::to_chars(w.ptr + 1, options + sizeof options, o.num_stages);
    key.append("|w", 2);
    key.append(options, st.ptr);
    if (!o.enable_fp_fusion) key += "|nofma";
    return {};
  }

  // The variant for key, compiled on first use (`args`: a launch's, to map the kernel's parameters).
  LaunchStatus variant(const std::string& key, size_t signatureEnd, const LaunchOptions& o,
                       std::span<const LaunchArg> args, Variant*& out) {
    if (Variant* last = lastVariant.load(std::memory_order_acquire); last && last->compiled->key == key) {
      out = last;
      return {};
    }
    std::lock_guard<std::mutex> lock(mutex);
    auto it = variants.find(key);
    if (it != variants.end()) {
      out = it->second.get();
      lastVariant.store(out, std::memory_order_release);
      return {};
    }
    CompileOptions options;
    options.num_warps = o.num_warps;
    options.num_stages = o.num_stages;
    options.enable_fp_fusion = o.enable_fp_fusion;
    std::string signature = key.substr(0, signatureEnd);
    Result<Kernel> kernel = imports.empty() ? kiln::compile(source, name, signature, options)
                                            : compileLinked(source, imports, name, signature, options);
    if (!kernel) return failure(LaunchErrorKind::Compile, kernel.error());
    auto v = std::make_shared<Variant>();
    auto compiled = std::make_shared<CompiledKernel>(CompiledKernel{kernel.value(), signature, key, o.num_warps,
                                                                    o.num_stages, {}, -1, -1, -1, {}});
    // The kernel's parameters are the non-constexpr ones, in order, less those a None specialized away
    // (Triton's rule: None compiles as a constexpr), with a tuple's runtime elements in its place (named
    // "t.0.1" after their path; its constexprs compile away): matched by name among the leaves.
    const std::vector<Param>& kp = kernel->params();
    size_t leaf = 0, k = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      v->tuples = v->tuples || args[i].kind == LaunchArg::Kind::Tuple;
      forEachLeaf(args[i], "", [&](const LaunchArg&, const std::string& path) {
        std::string leafName = params[i].name;
        for (char c : path)  // "[0][2]" -> ".0.2"
          if (c == '[') leafName += '.';
          else if (c != ']') leafName += c;
        if (!params[i].isConstexpr && k < kp.size() && kp[k].name == leafName) {
          v->argIndex.push_back(leaf);
          v->where.push_back(argName(i) + (path.empty() ? "" : ", element " + path));
          ++k;
        }
        ++leaf;
      });
    }
    if (kp.size() != v->argIndex.size())
      return failure(LaunchErrorKind::Compile, "internal error: kernel '" + name + "' compiled with " +
                                                   std::to_string(kp.size()) + " parameters, expected " +
                                                   std::to_string(v->argIndex.size()));
    for (const Param& p : kp) v->slots.push_back(paramSlotOf(p));
    const std::vector<bool>& written = kernel->impl().written;
    for (size_t p = 0; p < written.size() && p < kp.size(); ++p)
      if (written[p]) v->written.push_back(p);
    v->compiled = std::move(compiled);
    variants.emplace(key, v);
    out = v.get();
    lastVariant.store(out, std::memory_order_release);
    return {};
  }

  // v loaded on device: generates and assembles the code on first use (the cubin cached on disk too).
  LaunchStatus load(Variant& v, int device, const Loaded*& out) {
    if (device >= 0 && size_t(device) < kFastDevices)
      if (const Loaded* l = v.byDevice[size_t(device)].load(std::memory_order_acquire)) {
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
      runtime::CubinOptions options;
      options.kernelName = kernel.name();
      // The tag names the assembler (ptxas and its version, nvJitLink or the driver): their cubins differ.
      runtime::CacheKey key =
          runtime::CacheKey::of({kCodegenVersion, arch, runtime::cubinCacheTag(options, driver), code->ptx});
      runtime::Bytes cubin = rt.cache.getOrBuild(
          key, [&] { return runtime::compileToCubin(code->ptx, arch, options, driver, device).image; });
      std::shared_ptr<runtime::LoadedKernel> lk = runtime::LoadedKernel::fromImage(
          rt.driver, device, cubin, code->entry.name, int(kernel.params().size()));
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
      l.prepared.emplace(*lk, l.blockThreads, l.dynamicShared, v.slots.size());
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

  // A read-only buffer for a parameter the kernel stores through: refused before anything runs, rather
  // than a write into memory its owner declared immutable (LaunchArg::readOnly) or a SIGSEGV on a
  // read-only mapping (`interp`: host memory the interpreter will write, asked of the OS).
  LaunchStatus checkWritable(const Variant& v, std::span<const LaunchArg> launchArgs, bool interp) const {
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

  LaunchStatus interpret(const Variant& v, Grid grid, std::span<const LaunchArg> launchArgs,
                         const std::function<bool()>* stop) {
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
    Status s = runInterpreter(v.compiled->kernel, grid, values, stop ? *stop : std::function<bool()>{});
    if (!s.ok()) return failure(s.interrupted ? LaunchErrorKind::Interrupted : LaunchErrorKind::Execution, *s.error);
    return {};
  }

  LaunchStatus run(const Loaded& l, const Variant& v, Grid grid, std::span<const LaunchArg> launchArgs,
                   void* stream) {
    std::vector<LaunchArg> flat;  // stays empty (no allocation) unless a tuple was passed
    std::span<const LaunchArg> args = leavesOf(v, launchArgs, flat);
    const size_t n = v.argIndex.size();
    // On the stack for the usual few parameters: the cached path allocates nothing.
    constexpr size_t kInline = 24;
    uint64_t inlineSlots[kInline];
    void* inlinePointers[kInline];
    std::vector<uint64_t> heapSlots;
    std::vector<void*> heapPointers;
    uint64_t* slots = inlineSlots;
    void** pointers = inlinePointers;
    if (n > kInline) {
      heapSlots.resize(n);
      heapPointers.resize(n);
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
    try {
      l.prepared->launch(runtime::Dim3{grid.x, grid.y, grid.z}, static_cast<runtime::cu::Stream>(stream), pointers);
    } catch (const runtime::CudaError& e) {
      return failure(e.kind() == runtime::CudaError::Kind::InvalidArgument ? LaunchErrorKind::Argument
                                                                           : LaunchErrorKind::Device,
                     e.what());
    }
    return {};
  }

  // Where a launch runs: the interpreter (true) or the GPU (false, on `device`).
  LaunchStatus placement(std::span<const LaunchArg> args, const LaunchOptions& o, bool& interp, int& device) {
    int firstHost = -1, firstDevice = -1;
    device = -1;
    std::optional<LaunchStatus> mismatch;
    const LaunchArg* hostArg = nullptr;
    // A tuple's pointers count as arguments of their own (its elements are the kernel's parameters).
    auto visit = [&](size_t i, const LaunchArg& a) {
      if (a.kind != LaunchArg::Kind::Pointer) return;
      if (a.host) {
        if (firstHost < 0) firstHost = int(i), hostArg = &a;
        return;
      }
      if (firstDevice < 0) firstDevice = int(i);
      if (a.device >= 0) {
        if (device >= 0 && a.device != device && !mismatch)
          mismatch = failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + argName(i) + " is on device " +
                                                            std::to_string(a.device) +
                                                            " but earlier arguments are on device " +
                                                            std::to_string(device));
        device = a.device;
      }
    };
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind == LaunchArg::Kind::Tuple)
        forEachLeaf(args[i], "", [&](const LaunchArg& a, const std::string&) { visit(i, a); });
      else
        visit(i, args[i]);
      if (mismatch) return *mismatch;
    }
    if (firstHost >= 0 && firstDevice >= 0)
      return failure(LaunchErrorKind::Argument,
                     "kernel '" + name + "': " + argName(size_t(firstHost)) + " is " + describeArgument(*hostArg) +
                         " in host memory, but " + argName(size_t(firstDevice)) + " is on the GPU: move it to the "
                         "GPU (.cuda()), or run everything on the interpreter with host arrays (KILN_INTERPRET=1)");
    if (device < 0) device = o.device;
    interp = o.interpret || firstHost >= 0 || (firstDevice < 0 && !runtime.hasGpu());
    if (interp && firstDevice >= 0)
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + argName(size_t(firstDevice)) +
                                                    " is on the GPU, but the interpreter needs host arrays "
                                                    "(NumPy arrays or CPU tensors)");
    return {};
  }
};

Result<JitFunction> JitFunction::create(Runtime runtime, Source source, std::string kernel,
                                        std::vector<std::string> doNotSpecialize, ModuleImports imports) {
  Result<std::vector<KernelParameter>> params = kernelParameters(source, kernel, &imports);
  if (!params) return params.error();
  auto impl = std::make_shared<Impl>();
  impl->imports = std::move(imports);
  impl->runtime = std::move(runtime);
  impl->source = std::move(source);
  impl->name = std::move(kernel);
  impl->params = std::move(params.value());
  impl->specialize.assign(impl->params.size(), true);
  for (const std::string& n : doNotSpecialize) {
    bool found = false;
    for (size_t i = 0; i < impl->params.size(); ++i)
      if (impl->params[i].name == n) impl->specialize[i] = false, found = true;
    if (!found) {
      Error e;
      e.message = "do_not_specialize names '" + n + "', which is not a parameter of kernel '" + impl->name + "'";
      e.file = impl->source.name;
      e.text = impl->source.name + ": error: " + e.message;
      return e;
    }
  }
  return JitFunction(std::move(impl));
}

const std::string& JitFunction::name() const { return impl_->name; }
const std::vector<KernelParameter>& JitFunction::parameters() const { return impl_->params; }

size_t JitFunction::cacheSize() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->variants.size();
}

void JitFunction::setImports(ModuleImports imports) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->imports = std::move(imports);
}

Result<std::string> JitFunction::signature(std::span<const LaunchArg> args) const {
  std::string key;
  size_t end = 0;
  LaunchStatus s = impl_->buildKey(args, LaunchOptions{}, key, end);
  if (!s) return *s.error;
  key.resize(end);
  return key;
}

LaunchStatus JitFunction::launch(Grid grid, std::span<const LaunchArg> args, const LaunchOptions& options,
                                 std::shared_ptr<const CompiledKernel>* used) {
  Impl& f = *impl_;
  bool interp = false;
  int device = 0;
  if (LaunchStatus s = f.placement(args, options, interp, device); !s) return s;
  const LaunchPrint print = printLaunch(args, options);
  auto* v = static_cast<Variant*>(recentLaunch(f.id, print));
  if (!v) {
    thread_local std::string key;  // reused: no allocation once it has grown (nothing here re-enters launch)
    key.clear();
    size_t signatureEnd = 0;
    if (LaunchStatus s = f.buildKey(args, options, key, signatureEnd); !s) return s;
    if (LaunchStatus s = f.variant(key, signatureEnd, options, args, v); !s) return s;
    rememberLaunch(f.id, print, v);
  }
  if (!v->written.empty())
    if (LaunchStatus s = f.checkWritable(*v, args, interp); !s) return s;
  // An empty grid launches nothing, as in Triton.
  const bool empty = grid.x == 0 || grid.y == 0 || grid.z == 0;
  if (interp) {
    if (used) *used = v->compiled;
    return empty ? LaunchStatus{} : f.interpret(*v, grid, args, options.stop);
  }
  const Loaded* l = nullptr;
  if (LaunchStatus s = f.load(*v, device, l); !s) return s;
  if (used) *used = l->compiled;
  return empty ? LaunchStatus{} : f.run(*l, *v, grid, args, options.stream);
}

LaunchStatus JitFunction::compile(std::span<const LaunchArg> args, const LaunchOptions& options, bool gpu,
                                  std::shared_ptr<const CompiledKernel>* out) {
  Impl& f = *impl_;
  std::string key;
  size_t signatureEnd = 0;
  if (LaunchStatus s = f.buildKey(args, options, key, signatureEnd); !s) return s;
  Variant* v = nullptr;
  if (LaunchStatus s = f.variant(key, signatureEnd, options, args, v); !s) return s;
  if (out) *out = v->compiled;
  if (!gpu) return {};
  const Loaded* l = nullptr;
  if (LaunchStatus s = f.load(*v, options.device, l); !s) return s;
  if (out) *out = l->compiled;
  return {};
}

}  // namespace kiln
