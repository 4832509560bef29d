// The compilation pipeline behind kiln::compile, as straight-line functions (compile.cpp).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "ir/text.h"
#include "driver/tensor_map_spec.h"
#include "kiln/kiln.h"
#include "lower/codegen.h"
#include "support/step_times.h"

namespace kiln {

// A kernel's code for one GPU target.
struct GpuCode {
  std::string arch;
  std::unique_ptr<const ir::Function> gpuFunction;  // the GPU IR after the schedule passes
  std::string ptx;
  lower::EntryInfo entry;
  // The TMA tensor maps the entry takes after its runtime parameters, in index order (empty: none). Kept
  // with the PTX that keys the cubin cache, so a cubin served from disk comes with the specs of its code.
  std::vector<TensorMapSpec> tensorMaps;
  std::map<std::string, std::string> dumps;  // "after-<gpu pass>" for the passes CompileOptions::dump_after names

  // gpuFunction as text, printed when first asked for (compiling to PTX does not need it).
  const std::string& gpuIr() const {
    std::call_once(gpuIrText_->once, [this] { gpuIrText_->text = ir::print(*gpuFunction); });
    return gpuIrText_->text;
  }

 private:
  struct LazyText {
    std::once_flag once;
    std::string text;
  };
  std::unique_ptr<LazyText> gpuIrText_ = std::make_unique<LazyText>();
};

// Everything a compiled kernel keeps: the stage texts and the optimised Tile IR module.
struct Kernel::Impl {
  std::string name;
  std::string signature;
  CompileOptions options;
  std::vector<Param> params;
  std::string ast;
  std::string irBeforePasses;
  std::map<std::string, std::string> dumps;  // "after-<pass>" -> IR text, for --dump-after
  std::unique_ptr<ir::Module> module;        // Tile IR after the passes (never modified afterwards)
  // Per runtime parameter: the kernel stores through it (written_params.h); read-only memory is refused.
  std::vector<bool> written;
  std::vector<Warning> warnings;  // Kernel::warnings()
  const ir::Function& function() const { return *module->functions.front(); }
  // `module` as text (the "ir" stage), printed when first asked for.
  const std::string& ir() const {
    std::call_once(irOnce_, [this] { ir_ = ir::print(*module); });
    return ir_;
  }

  // GPU code by target, generated at compile time for options.arch or on first use by a Gpu. Its steps are
  // timed into `times` when given, else (with options.time_passes) reported to stderr as a table of their own.
  std::shared_ptr<const GpuCode> gpuCode(const std::string& arch, StepTimes* times = nullptr) const;

 private:
  mutable std::once_flag irOnce_;
  mutable std::string ir_;
  mutable std::mutex gpuMutex_;
  mutable std::map<std::string, std::shared_ptr<const GpuCode>> gpu_;
};

// kiln::compile with a step between parsing and sema: `afterParse` completes the parsed module (the
// launcher links @jit functions and constants of other modules into it: link.h). May throw CompileError.
Result<Kernel> compile(const Source& source, std::string_view kernel, std::string_view signature,
                       const CompileOptions& options, const std::function<void(ast::Module&)>& afterParse);

// kiln::interpret without its check that the buffers the kernel stores into are writable memory, for a
// caller that has checked them (the launcher, which reports it as an argument error).
Status runInterpreter(const Kernel& kernel, Grid grid, std::span<const Arg> args, const InterpretOptions& options);

// Tile IR -> GPU IR -> PTX for `arch` ("sm_80", "sm_90a") with the options' num_warps, num_stages
// (the pipelining depth), maxnreg and dump_after; each step's wall time is added to `times` when given.
// Throws CompileError/InternalError.
GpuCode generateGpuCode(const ir::Function& tileIr, const std::string& arch, const CompileOptions& options,
                        StepTimes* times = nullptr);

}  // namespace kiln
