// kiln's public C++ API: compile a Triton-language kernel for a signature, read every stage's
// text, and run it on the CPU interpreter over a grid with host buffers and scalars.
// Errors are values: every call that can fail on user input returns a Result.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kiln {

// A user-facing error. `text` is the full rendering ("file:line:col: error: message", the source
// line and a caret); `internal` marks a compiler bug rather than a problem in the input.
struct Error {
  std::string message;  // the message alone
  std::string file;
  int line = 0, col = 0;
  bool internal = false;
  std::string text;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// A compiler warning: the kernel compiles, but something in it is likely a mistake. `text` is the full
// rendering ("file:line:col: warning: message", the source line and a caret).
struct Warning {
  std::string message;
  std::string file;
  int line = 0, col = 0;
  std::string text;
};

// The result of an operation that returns nothing but may fail.
struct Status {
  std::optional<Error> error;
  // interpret(): the caller's stop request ended the run early (error says so); not the kernel's fault.
  bool interrupted = false;
  bool ok() const { return !error; }
  explicit operator bool() const { return ok(); }
};

// Kernel source: a file path or an in-memory string (with the name diagnostics show).
struct Source {
  std::string name;
  std::string text;
  // `text` is one definition cut out of a larger text at its place: blank lines up to its first line,
  // then its lines as they stand there, indented or not (a kernel defined inside a function). Line and
  // column numbers in errors are then those of the larger text.
  bool block = false;
  static Result<Source> fromFile(const std::string& path);
  static Source fromString(std::string text, std::string name = "<string>");
};

struct CompileOptions {
  int num_warps = 4;
  int num_stages = 3;
  bool optimize = true;  // run the Tile IR passes (canonicalize, cse, licm, contract, dce)
  // Contract a float mul and the add/sub that takes it into one fma (pass "contract"), as Triton's
  // enable_fp_fusion does by default. The interpreter runs the fused IR too, so both round alike.
  bool enable_fp_fusion = true;
  // The most registers a thread may use (PTX's .maxnreg, Triton's maxnreg): ptxas spills what does not
  // fit, or fails when an instruction needs more. 0: no limit; otherwise 24 to 255 (checkMaxNReg).
  int maxnreg = 0;
  // Warp-specialize the first loop nest that can take it (sm_90a: TMA copies feeding one accumulating
  // wgmma dot, in a top-level loop or directly inside one), as if that loop said
  // `tl.range(..., warp_specialize=True)`; ignored when a loop of the kernel says so itself, and a kernel
  // with no such loop compiles as without it. Triton has no such option: kiln's Config(warp_specialize=).
  bool warp_specialize = false;
  // Copy pointer-built tiles with TMA on sm_90 where a run-time check shows the copy is exact: those that
  // feed wgmma dots (the kernel keeps a cp.async loop for launches where the check fails) and a
  // tensor-core kernel's result tile stored through pointers (the pointer store kept likewise); the
  // launcher encodes the tensor maps. AOT launchers, which do not encode tensor maps, compile without it.
  bool tma_pointer_tiles = true;
  // Run the kernel persistently: the launch starts at most as many programs as the device holds at once,
  // and each walks the logical grid's programs p, p + n, p + 2n, ... in launch order, program_id and
  // num_programs reading the logical grid (schedule/persistent.cpp; the launcher passes the grid). With
  // warp_specialize the producer loads the next program's tiles while the consumers store this one's.
  // Not applied to a kernel that prints, or that reads a program id in a reduction's combine region (its
  // PTX then takes no grid parameters). Triton has no such option: kiln's Config(persistent=). AOT
  // launchers do not take it.
  bool persistent = false;
  std::vector<std::string> dump_after;  // pass names whose output IR is kept: Kernel::stage("after-cse")
  // Print the wall time of each pipeline stage and each pass in it to stderr, as a table, when the kernel
  // compiles (GPU code generated later, on a Gpu's first run, prints a table of its own). The launcher
  // (kiln.jit in Python, JitFunction in C++) sets it when the environment has KILN_TIME_PASSES=1.
  bool time_passes = false;
  // Also generate GPU code for this target ("sm_80", "sm_89", "sm_90a", "sm_100", ...; see
  // supportedArchs): stages "gpu-ir" and "ptx".
  // Empty: Tile IR only; Gpu::run compiles for its device on first use.
  std::string arch;
};

// Why `num_warps` cannot be used ("num_warps must be a power of two from 1 to 32, got 3"), or nullopt.
// The one check of the user's value: compile, the kiln CLI and the Python binding all report it
// (64-bit so that a binding can check a value before narrowing it to CompileOptions' int).
std::optional<std::string> checkNumWarps(int64_t numWarps);
// Why `maxnreg` cannot be used ("maxnreg must be 0 (no limit) or from 24 to 255, got 8"), or nullopt:
// ptxas raises anything under 24 to 24 and ignores anything over 255, so kiln refuses both.
std::optional<std::string> checkMaxNReg(int64_t maxnreg);

// The GPU targets kiln compiles for on this machine: every real target from sm_80 up that the installed
// ptxas assembles for ("sm_80", "sm_86", ..., "sm_90", "sm_90a", "sm_100", ...), asked once; empty when
// no ptxas is found. Each target's features follow its compute capability (fp8 mma from sm_89,
// mbarrier waits and bf16 atomics from sm_90, setmaxnreg with an "a" target from sm_90a).
std::vector<std::string> supportedArchs();

// Why `arch` cannot be a target, or nullopt: it must be sm_<capability>[a] from sm_80 up and, when a
// ptxas is installed, one that ptxas knows (the message lists them). The CLI and the Python binding
// check --arch / arch= with it.
std::optional<std::string> checkArch(const std::string& arch);

// One kernel parameter of a compiled kernel, as the launcher must supply it.
struct Param {
  std::string name;
  std::string type;      // IR spelling: "ptr<f32>", "i32", "f32", ...
  bool pointer = false;
};

// A kernel compiled for one signature. Cheap to copy (shared, immutable).
class Kernel {
 public:
  const std::string& name() const;
  const std::string& signature() const;
  const std::vector<Param>& params() const;  // runtime parameters (constexprs are not among them)
  const std::string& ast() const;            // the kernel's AST dump
  const std::string& ir() const;             // Tile IR text after the passes
  const std::string& irBeforePasses() const;
  // What the compiler warns about in this specialization (a 32-bit offset that can pass 2^31: the
  // CLI prints them, the Python package raises them as kiln.CompilationWarning).
  const std::vector<Warning>& warnings() const;
  // Text of the stage called `stage` ("ast", "ir", "ir-before-passes", "after-<pass>" for the
  // passes named in CompileOptions::dump_after, and with CompileOptions::arch "gpu-ir" and "ptx");
  // empty if unknown.
  std::string stage(std::string_view stage) const;

  struct Impl;
  explicit Kernel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Compiles `kernel` from `source` for `signature`, in Triton's AOT syntax: one entry per kernel
// parameter, e.g. "*fp32:16, *fp32:16, i32, 1024" (pointer with an optional :16 alignment hint,
// a scalar type with an optional :16 or a literal 1, or a literal value for a constexpr).
Result<Kernel> compile(const Source& source, std::string_view kernel, std::string_view signature,
                       const CompileOptions& options = {});

// ---- CPU interpreter

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

// A runtime argument: a host buffer (for pointer parameters) or a scalar. Scalars are converted
// to the parameter's type; a buffer's size bounds every access through pointers derived from it.
struct Arg {
  enum class Kind { Buffer, Int, Float };
  Kind kind = Kind::Int;
  void* data = nullptr;
  size_t bytes = 0;
  int64_t i = 0;
  double f = 0;

  static Arg buffer(void* data, size_t bytes) { return Arg{Kind::Buffer, data, bytes, 0, 0}; }
  template <class T>
  static Arg buffer(std::vector<T>& v) { return buffer(v.data(), v.size() * sizeof(T)); }
  static Arg integer(int64_t v) { return Arg{Kind::Int, nullptr, 0, v, 0}; }
  static Arg real(double v) { return Arg{Kind::Float, nullptr, 0, 0, v}; }
};

// The int32-overflow oracle of interpreter runs (docs/semantics.md, "Integer overflow checks").
enum class OverflowCheck {
  Off,
  Address,  // integer ops that feed an address are also evaluated in wide arithmetic: a load or store whose
            // address an i32/u32 wrap changed is an Error at the op that wrapped, with its values
  All       // any i32/u32 integer op whose result wraps is an Error there
};

struct InterpretOptions {
  // Asked between programs (every few tens of milliseconds) whether to give up: true ends the run with
  // Status::interrupted set (Ctrl-C; the Python binding checks for signals there).
  std::function<bool()> stop;
  OverflowCheck check_overflow = OverflowCheck::Off;
  // Told once, a quarter of a second into a run that the programs' measured speed says will take more
  // than a minute, with a message that says how long ("kernel 'k': the interpreter runs 2147483648
  // programs ..."); true ends the run as `stop` does. The Python package makes it a LongLaunchWarning.
  std::function<bool(const std::string&)> on_long_run;
};

// Runs the kernel over the grid on the interpreter, one program after another. An out-of-bounds
// access, a failed device assert or a wrap the overflow check reports is an Error naming the kernel and
// the source line.
Status interpret(const Kernel& kernel, Grid grid, std::span<const Arg> args, const InterpretOptions& options);
// The same with only a stop request (InterpretOptions::stop).
Status interpret(const Kernel& kernel, Grid grid, std::span<const Arg> args,
                 const std::function<bool()>& stop = {});

// ---- GPU

// The kernel's PTX for `arch` ("sm_80", "sm_90a") assembled into a cubin (an ELF image) with the ptxas
// executable, else nvJitLink; neither needs a GPU. An Error when neither is installed or the PTX is rejected.
Result<std::vector<uint8_t>> assembleCubin(const Kernel& kernel, const std::string& arch);

// One CUDA device: the driver (loaded with dlopen at open(); kiln needs no CUDA at build time), its
// primary context, and the kernels compiled and loaded for it. Cheap to copy (shared).
class Gpu {
 public:
  // Opens device `ordinal`. An Error (never a crash) when there is no driver or no such device. Each
  // device is a Gpu of its own; run leaves the calling thread's current CUDA context as it found it.
  // (Asynchronous launches on a chosen device and stream: kiln::JitFunction, include/kiln/launcher.h.)
  static Result<Gpu> open(int ordinal = 0);

  const std::string& name() const;  // "NVIDIA H200"
  const std::string& arch() const;  // the PTX target kiln compiles for: "sm_90a", "sm_80", ...
  int smCount() const;

  // Runs `kernel` over `grid` with host buffers: every Buffer argument is copied to device memory,
  // the kernel runs (compiled for this device on first use; the cubin is cached in memory and on disk
  // under $KILN_CACHE_DIR), then every buffer is copied back. Blocks until done.
  Status run(const Kernel& kernel, Grid grid, std::span<const Arg> args);

  // The PTX and resource usage kiln produced for this device (compiling if needed).
  Result<std::string> ptx(const Kernel& kernel);

  struct Impl;
  explicit Gpu(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace kiln
