// JitFunction's insides (include/kiln/launcher.h), shared by its two halves: launcher.cpp (the launch
// path: print or key, the specialization cache, compilation on a miss) and jit_device.cpp (where a
// variant runs: loaded per device and launched, or interpreted).
#pragma once
#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "driver/param_slots.h"
#include "driver/recent_launches.h"
#include "driver/tensor_map_args.h"
#include "kiln/launcher.h"
#include "runtime/launch.h"

namespace kiln {

// A specialization loaded on one device.
struct Loaded {
  int device = 0;
  std::shared_ptr<runtime::LoadedKernel> kernel;
  std::shared_ptr<const CompiledKernel> compiled;  // with this device's arch and resources
  unsigned blockThreads = 0;
  size_t dynamicShared = 0;
  std::optional<runtime::PreparedLaunch> prepared;  // block, shared memory and arguments checked at load
  // The TMA tensor maps the entry takes after its runtime parameters; null when it takes none.
  std::unique_ptr<TensorMapArgs> tensorMaps;
  // A persistent entry (CompileOptions::persistent): the most programs a launch starts, one wave of the
  // device (multiprocessors x resident CTAs each); the logical grid goes after the parameters. 0: not
  // persistent.
  unsigned persistentPrograms = 0;
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

LaunchStatus failure(LaunchErrorKind kind, Error e);
LaunchStatus failure(LaunchErrorKind kind, const std::string& message);

// Calls f(leaf, path) for every leaf of `a`; path: "" for `a` itself, else "[0][2]".
template <class F>
void forEachLeaf(const LaunchArg& a, const std::string& path, F&& f) {
  if (a.kind != LaunchArg::Kind::Tuple) return f(a, path);
  for (uint32_t i = 0; i < a.count; ++i) forEachLeaf(a.elems[i], path + "[" + std::to_string(i) + "]", f);
}

// LaunchOptions::blocking's enter() for the scope's life, then leave() (nothing without hooks).
class BlockingScope {
 public:
  explicit BlockingScope(BlockingHooks* hooks) : hooks_(hooks) {
    if (hooks_) hooks_->enter();
  }
  BlockingScope(const BlockingScope&) = delete;
  BlockingScope& operator=(const BlockingScope&) = delete;
  ~BlockingScope() {
    if (hooks_) hooks_->leave();
  }

 private:
  BlockingHooks* hooks_;
};

struct JitFunction::Impl {
  Runtime runtime;
  Source source;
  std::string name;
  std::vector<KernelParameter> params;
  std::vector<bool> specialize;  // false for do_not_specialize parameters
  std::mutex mutex;              // guards variants and imports; held while compiling a new one
  ModuleImports imports;         // what the module takes from other modules (link.h)
  std::unordered_map<std::string, std::shared_ptr<Variant>> variants;  // never erased: Variant* stay valid
  std::atomic<Variant*> lastVariant{nullptr};  // the last one looked up: launches in a loop skip the map
  RecentLaunches recent;  // the variants recent launches selected, found by their prints: no key built

  std::string argName(size_t i) const {
    return "argument " + std::to_string(i) + " ('" + params[i].name + "')";
  }

  // Appends the specialization key (the signature, then the options) to key; the signature's length
  // goes to signatureEnd. Fails on arguments that do not fit their parameters.
  LaunchStatus buildKey(std::span<const LaunchArg> args, const LaunchOptions& o, std::string& key,
                        size_t& signatureEnd) const;

  // The variant for key, compiled on first use (`args`: a launch's, to map the kernel's parameters).
  LaunchStatus variant(const std::string& key, size_t signatureEnd, const LaunchOptions& o,
                       std::span<const LaunchArg> args, Variant*& out);

  // v loaded on device: generates and assembles the code on first use (the cubin cached on disk too).
  LaunchStatus load(Variant& v, int device, const Loaded*& out);
  // v as loaded on device, found without a lock; null when not loaded there yet (or device >= kFastDevices).
  static const Loaded* loadedFast(const Variant& v, int device);

  // v on `device`: loaded (load), then with a grid launched (run), with the device's context current
  // meanwhile and the caller's current again afterwards (runtime::ContextScope); `used` receives the
  // kernel as loaded there. No grid: load only (warmup).
  LaunchStatus onDevice(Variant& v, int device, const Grid* grid, std::span<const LaunchArg> args,
                        const LaunchOptions& o, std::shared_ptr<const CompiledKernel>* used);

  // A read-only buffer for a parameter the kernel stores through: refused before anything runs, rather
  // than a write into memory its owner declared immutable (LaunchArg::readOnly) or a SIGSEGV on a
  // read-only mapping (`interp`: host memory the interpreter will write, asked of the OS).
  LaunchStatus checkWritable(const Variant& v, std::span<const LaunchArg> launchArgs, bool interp) const;

  // Runs v on the interpreter with the launch's host buffers, with the options' stop request, overflow
  // check and long-run notice.
  LaunchStatus interpret(const Variant& v, Grid grid, std::span<const LaunchArg> launchArgs, const LaunchOptions& o);

  // Packs the arguments and launches l on the options' stream, with their launch attributes
  // (cuLaunchKernel, or cuLaunchKernelEx with attributes; no synchronisation).
  LaunchStatus run(const Loaded& l, const Variant& v, Grid grid, std::span<const LaunchArg> launchArgs,
                   const LaunchOptions& o);

  // run's tail for a kernel with tensor maps: the n `params` (v's packed runtime parameters, and a
  // persistent entry's grid) followed by the maps this launch's values give (encoded, or reused from the
  // last launch with the same values).
  LaunchStatus runWithTensorMaps(const Loaded& l, const Variant& v, Grid grid, void* const* params, size_t n,
                                 const LaunchOptions& o);

  // Where a launch runs: the interpreter (true) or the GPU (false, on `device`).
  LaunchStatus placement(std::span<const LaunchArg> args, const LaunchOptions& o, bool& interp, int& device);
};

}  // namespace kiln
