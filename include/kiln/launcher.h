// kiln's launch API, the C++ core under the Python package: a @jit function compiled on demand for
// each specialization of its arguments (Triton's rules, the key computed here), cached, and launched
// with device pointers on a caller's stream without synchronising, or run on the interpreter.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/kiln.h"

namespace kiln {

// A parameter of a @jit function as a launcher binds it.
struct KernelParameter {
  std::string name;
  bool isConstexpr = false;  // annotated tl.constexpr: part of the specialization, not passed at launch
  bool hasDefault = false;
  // A runtime parameter annotated with a scalar type, as Triton reads it (`scale: tl.float16`,
  // `n: "i64"`): its signature entry has that type whatever the argument ("fp16", "bf16", "i64", ...).
  // Empty when there is no such annotation.
  std::string type;
};

struct ModuleImports;

// The parameters of the @jit function `kernel` in `source` (parsed by kiln's front end), its names
// resolved through `imports` when given (ModuleImports below).
Result<std::vector<KernelParameter>> kernelParameters(const Source& source, std::string_view kernel,
                                                      const ModuleImports* imports = nullptr);

// One argument of a launch, one per KernelParameter (constexprs included), as the caller found it.
struct LaunchArg {
  enum class Kind : uint8_t {
    Pointer,   // address (+ bytes for a host buffer), dtype: the pointee in Triton's spelling ("fp32")
    Int,       // i: a Python int in int64's range
    UInt,      // i: the bits of an int in [2^63, 2^64)
    Float,     // f; dtype: "fp32" (or empty), "fp16", "bf16" or "fp64": the signature entry it gives
    Bool,      // i: 0 or 1
    None,      // Python's None
    String,    // s (constexprs only)
    Signature,  // s: a signature entry written out ("*fp32:16", "i32"): compile only (warmup)
    // elems[0..count): a tuple's elements, each a LaunchArg (nested tuples too), which the caller keeps
    // alive for the launch; s: empty, or for a NamedTuple its class and field names ("Tensor ptr shape").
    // Its runtime elements become the kernel's parameters in order, like that many arguments.
    Tuple
  };
  // How messages name the argument's value: "a CPU tensor", "a NumPy array" (empty: from the kind).
  Kind kind = Kind::Int;
  bool host = false;      // Pointer: host memory (the interpreter) rather than a device pointer
  // Pointer: the pointee, "fp32", "fp16", "bf16", "fp64", "i1", "i8".."i64", "u8".."u64", "fp8e4nv",
  // "fp8e5"; Float: see Kind::Float.
  std::string_view dtype;
  uint64_t address = 0;
  size_t bytes = 0;       // Pointer to host memory: bytes accessible from address
  int device = -1;        // Pointer to device memory: its CUDA ordinal (-1: unknown, the launch's device)
  int64_t i = 0;
  double f = 0;
  std::string_view s;
  std::string_view what;
  const LaunchArg* elems = nullptr;  // Tuple
  uint32_t count = 0;                // Tuple: the number of elements
  // An element of a tuple passed as tl.constexpr(v): compile-time even inside a runtime parameter.
  bool isConstexpr = false;
  // Pointer: the memory may not be written (a read-only NumPy array, a memmap opened with mode 'r').
  // A launch of a kernel that stores through this parameter is an Argument error.
  bool readOnly = false;

  static LaunchArg devicePointer(uint64_t address, std::string_view dtype, int device = -1) {
    LaunchArg a;
    a.kind = Kind::Pointer;
    a.address = address;
    a.dtype = dtype;
    a.device = device;
    return a;
  }
  static LaunchArg hostBuffer(void* data, size_t bytes, std::string_view dtype) {
    LaunchArg a = devicePointer(reinterpret_cast<uint64_t>(data), dtype);
    a.host = true;
    a.bytes = bytes;
    return a;
  }
  static LaunchArg integer(int64_t v) {
    LaunchArg a;
    a.i = v;
    return a;
  }
  // A float for a runtime parameter of type `dtype` ("fp32", "fp16", "bf16", "fp64"): on the GPU it
  // is rounded to that type (to nearest, ties to even) and passed in the .param's width.
  static LaunchArg real(double v, std::string_view dtype = {}) {
    LaunchArg a;
    a.kind = Kind::Float;
    a.f = v;
    a.dtype = dtype;
    return a;
  }
  static LaunchArg boolean(bool v) {
    LaunchArg a;
    a.kind = Kind::Bool;
    a.i = v;
    return a;
  }
  // A tuple of `elements` (a NamedTuple: `named` = "Class field1 field2 ..."); they must outlive the launch.
  static LaunchArg tuple(std::span<const LaunchArg> elements, std::string_view named = {}) {
    LaunchArg a;
    a.kind = Kind::Tuple;
    a.elems = elements.data();
    a.count = uint32_t(elements.size());
    a.s = named;
    return a;
  }
  static LaunchArg string(std::string_view v) {
    LaunchArg a;
    a.kind = Kind::String;
    a.s = v;
    return a;
  }
};

// What the names a @jit function reads from outside its own text resolve to, as the binding found them
// (through the functions' closures and __globals__, as Python would at the call): other @jit functions
// (with their sources), constant values and Triton's modules. These complete the kernel's source
// (src/driver/link.h).
struct ModuleImports {
  // A source that linked @jit functions come from: a whole file, or one function's definition cut out
  // of one (Source::block).
  struct Module {
    std::string name;  // the Python module ("helpers", "pkg.ops"): linked names read "helpers.add"
    Source source;     // its text; Source::name is the file errors point into
    // What Name::file and Name::definedIn call this module; empty: source.name. Two definitions cut
    // from one file are two modules with one file name, told apart by this.
    std::string unit;
    const std::string& id() const { return unit.empty() ? source.name : unit; }
  };
  struct Name {
    enum class Kind : uint8_t { Function, Int, Float, Bool, String, None, Alias, Expr, Unsupported };
    std::string file;  // the module whose code uses the name: the kernel's (its Source::name), or an id()
    std::string name;  // as written there: "add", "helpers.add", "cfg.BLOCK"
    Kind kind = Kind::Int;
    int64_t i = 0;         // Int, Bool
    double f = 0;          // Float
    std::string text;      // Function: its name in definedIn; String: the value; Alias: the Triton path it
                           // names ("triton.language.float16"); Expr: a Python expression of literals
                           // and Triton paths ("(16, 32.0, triton.language.float16)"); Unsupported: the
                           // error's message
    std::string definedIn;  // Function: the id() of the module that defines it
  };
  std::vector<Module> modules;
  std::vector<Name> names;
  bool empty() const { return names.empty(); }
};

// Around the parts of a launch that may block for long: compiling a new variant, and assembling and
// loading it on a device (its first launch there). kiln calls enter() on the launching thread before it
// takes any lock for that work and leave() after releasing them, so a binding can let its other threads
// run meanwhile (the Python binding releases the GIL: two threads' first launches compile at once).
// Launches of a variant already loaded call neither.
class BlockingHooks {
 public:
  virtual void enter() = 0;
  virtual void leave() = 0;

 protected:
  ~BlockingHooks() = default;
};

struct LaunchOptions {
  int num_warps = 4;
  int num_stages = 3;
  bool enable_fp_fusion = true;  // CompileOptions::enable_fp_fusion (Triton's launch option)
  int maxnreg = 0;               // CompileOptions::maxnreg: registers per thread, 0 for no limit
  bool warp_specialize = false;  // CompileOptions::warp_specialize
  bool persistent = false;       // CompileOptions::persistent: at most one wave of programs walks the grid
  // GPU launches (Triton's launch options of these names): the kernel may start before the previous one
  // on the stream has finished, overlapping up to its tl.extra.cuda.gdc_wait (programmatic dependent
  // launch, sm_90 and later); every program resident at once, or the launch fails (cooperative).
  bool launch_pdl = false;
  bool launch_cooperative_grid = false;
  // The CUDA ordinal of a launch none of whose pointers names one (LaunchArg::device -1, or no pointer);
  // a pointer's own device wins (JitFunction::launch). The Python binding sets it to the tensors' device,
  // else PyTorch's current device.
  int device = 0;
  void* stream = nullptr;   // a CUstream of the device's primary context (nullptr: the legacy default stream)
  bool interpret = false;   // run on the interpreter (every pointer must be a host buffer)
  // Interpreter runs: asked between programs whether to stop (kiln::interpret's `stop`); the caller's
  // object, which must outlive the launch. Null: run to the end.
  const std::function<bool()>* stop = nullptr;
  OverflowCheck check_overflow = OverflowCheck::Off;  // interpreter runs (InterpretOptions::check_overflow)
  // Interpreter runs: InterpretOptions::on_long_run; the caller's object, which must outlive the launch.
  const std::function<bool(const std::string&)>* on_long_run = nullptr;
  // The caller's hooks around compiling and loading (BlockingHooks), which must outlive the launch; null:
  // none. JitFunction::compile (a warmup) calls them around finding or compiling its variant, and again
  // around a first load on the device.
  BlockingHooks* blocking = nullptr;
};

// Why a launch failed: the binding raises a different exception for each.
enum class LaunchErrorKind {
  Compile,         // the kernel does not compile for these arguments (file:line:col in the text)
  Argument,        // wrong number, type or place of arguments, a bad grid
  OutOfResources,  // more shared memory or registers than the device has
  Execution,       // the interpreter stopped the kernel: an out-of-bounds access, a failed device_assert
  Device,          // no GPU, or a CUDA call failed
  Interrupted      // LaunchOptions::stop ended an interpreter run early (Python: the pending KeyboardInterrupt)
};

struct LaunchStatus {
  std::optional<Error> error;
  LaunchErrorKind kind = LaunchErrorKind::Device;
  bool ok() const { return !error; }
  explicit operator bool() const { return ok(); }
};

// One specialization of a JitFunction: the compiled kernel, and once it ran on a GPU its resources.
struct CompiledKernel {
  Kernel kernel;
  std::string signature;  // Triton AOT syntax: "*fp32:16, *fp32:16, i32, 1024"
  std::string key;        // the cache key: signature and options
  int numWarps = 4, numStages = 3;
  // Set when loaded on a device (cuFuncGetAttribute); -1 before.
  std::string arch;        // "sm_90a"; empty until loaded
  int numRegs = -1;        // registers per thread
  int spillBytes = -1;     // local memory per thread (spills and stack)
  int sharedBytes = -1;    // shared memory per block: static + the launch's dynamic bytes
  std::vector<uint8_t> cubin;  // the image loaded on the device
  // The text of a stage: "ast", "ir", "ir-before-passes" (Tile IR), "gpu-ir" and "ptx" for `arch`
  // (or for `fallbackArch` before it ran on a GPU); empty when unknown.
  Result<std::string> stage(std::string_view name, const std::string& fallbackArch = "sm_90a") const;
  // The same for `arch`, whatever device the kernel runs on ("gpu-ir" and "ptx"; other stages as stage()).
  Result<std::string> stageFor(std::string_view name, const std::string& arch) const;
  // The dynamic shared memory a launch on `arch` provides (kiln's scratch for reductions, conversions).
  Result<int64_t> dynamicSharedBytes(const std::string& arch) const;
  // What the kernel uses per thread and block on `arch` as the assembler reports it (ptxas -v, or
  // nvJitLink's verbose log), without a GPU: registers, local memory (stack frame, spills included)
  // and shared memory (static + dynamic). An error when no assembler is found or it reports nothing.
  struct Resources {
    int numRegs = 0, localBytes = 0, sharedBytes = 0;
    std::string assembler;  // "ptxas", "nvJitLink"
  };
  Result<Resources> assembledResources(const std::string& arch) const;
};

// What a launcher needs to know of one GPU (Triton's get_device_properties).
struct DeviceProperties {
  std::string name, arch;
  int smCount = 0, warpSize = 32, maxThreadsPerBlock = 0;
  int maxSharedPerBlock = 0;  // with opt-in: what one program may use
  int maxRegistersPerBlock = 0;
  int smClockKHz = -1, memoryClockKHz = -1, memoryBusWidthBits = -1;  // -1: the driver did not say
  size_t totalMemoryBytes = 0;
};

// The CUDA side shared by every JitFunction of a process: the driver (loaded on first GPU use), each
// device's target and the compiled-kernel cache (memory and $KILN_CACHE_DIR). Cheap to copy (shared).
class Runtime {
 public:
  Runtime();
  // Whether a CUDA device can be used (loads the driver once); otherwise why not.
  bool hasGpu(std::string* whyNot = nullptr) const;
  int deviceCount() const;  // 0 without a driver or device
  std::string arch(int device) const;  // "sm_90a"; empty without that device
  std::optional<DeviceProperties> properties(int device) const;
  // The device whose memory `address` is, as the driver knows it (cuPointerGetAttributes), or -1: no GPU,
  // or not one device's memory (managed memory, pinned host memory, memory no CUDA allocator gave out).
  // For pointers that come without a device (LaunchArg::device -1): a __cuda_array_interface__ object.
  int deviceOf(uint64_t address) const;

  struct Impl;
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

// A @jit function: its source module, its parameters, and its specializations compiled so far, by key.
// Cheap to copy (shared); safe to use from several threads at once, on one device or several: a
// specialization is compiled once (whatever the device), its code generated and assembled once per
// architecture, and loaded once per device.
class JitFunction {
 public:
  // `doNotSpecialize`: names of parameters whose integer values / pointer alignment stay out of the key.
  // `imports` (see setImports) are known from the start: the kernel's parameter annotations may
  // read them (`x: tl.constexpr` where the binding resolved `tl`).
  static Result<JitFunction> create(Runtime runtime, Source source, std::string kernel,
                                    std::vector<std::string> doNotSpecialize = {}, ModuleImports imports = {});

  const std::string& name() const;
  const std::vector<KernelParameter>& parameters() const;

  // The signature these arguments specialize the kernel to, in Triton's AOT syntax: pointers as
  // "*dtype" (":16" when 16-byte aligned), integers as i32/i64/u64 (the literal 1 when equal to 1,
  // ":16" when divisible by 16), floats fp32 (or their LaunchArg::dtype), bools i1, constexprs as
  // literal values; a parameter annotated with a scalar type (KernelParameter::type) takes that type;
  // a tuple is "(...)" of its elements' entries ("(*fp32:16, None, 4)", a NamedTuple "Desc(ptr=*fp32)").
  Result<std::string> signature(std::span<const LaunchArg> args) const;

  // Launches on the GPU (device pointers; asynchronous on options.stream) or, when every pointer is a
  // host buffer or options.interpret is set, runs on the interpreter (synchronous, in place). Compiles
  // on the first use of a specialization. `used` receives the specialization that ran. The GPU is the
  // one the pointers name (LaunchArg::device), else options.device; pointers on two devices, or host
  // buffers among device pointers, are an Argument error naming both, before anything is compiled. The
  // device's context is current during the launch, and the caller's current context is current again
  // afterwards (runtime::ContextScope).
  LaunchStatus launch(Grid grid, std::span<const LaunchArg> args, const LaunchOptions& options,
                      std::shared_ptr<const CompiledKernel>* used = nullptr);

  // Compiles (and with `gpu`, loads on options.device) without running: Triton's warmup.
  LaunchStatus compile(std::span<const LaunchArg> args, const LaunchOptions& options, bool gpu,
                       std::shared_ptr<const CompiledKernel>* out);

  size_t cacheSize() const;  // specializations compiled so far

  // The names the kernel's module takes from other modules (empty: none), used by the
  // specializations compiled from now on.
  void setImports(ModuleImports imports);

  struct Impl;

 private:
  explicit JitFunction(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

}  // namespace kiln
