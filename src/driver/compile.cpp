// kiln::compile: the whole pipeline, top to bottom. Each step's output can be dumped; the IR is
// verified after sema and after each stage (after every pass in checked builds: kVerifyEachPass).
#include "driver/compile.h"

#include <cstdio>
#include <iterator>

#include "analysis/axis_info.h"
#include "analysis/offset_overflow.h"
#include "assign/assign_layouts.h"
#include "driver/errors.h"
#include "driver/written_params.h"
#include "frontend/ast_dump.h"
#include "frontend/parser.h"
#include "ir/text.h"
#include "lower/tensor_maps.h"
#include "passes/passes.h"
#include "ptx/builder.h"
#include "schedule/schedule.h"
#include "sema/sema.h"
#include "sema/signature.h"
#include "support/step_times.h"

namespace kiln {

namespace {

// The target-independent pipeline, in order. Every pass but split_dots optimises, and runs only with
// `optimize`; split_dots rewrites dots no later stage knows (the split precisions), so it always runs.
const char* const kPassPipeline[] = {"canonicalize", "cse", "licm", "unroll", "canonicalize", "dot_accumulate",
                                    "split_dots", "contract", "dce", "remat"};
bool lowersTileIr(std::string_view pass) { return pass == "split_dots"; }
// The schedule: GPU IR passes after layout assignment, in order (src/schedule).
const char* const kGpuPassPipeline[] = {"persistent", "overlap_dots", "pipeline", "defer_mma_waits", "warp_specialize", "split_mma", "stage_operands", "pingpong", "tma_stores", "allocate_shared",
                                             "insert_barriers"};

// Checked builds (without NDEBUG) verify the IR after every pass, so a broken pass is named where it
// breaks; release builds verify the stage outputs only (after sema, after the Tile IR passes and after the
// schedule; assignLayouts checks its own output against the GPU IR contract), as kiln-opt does without --verify-each.
#ifdef NDEBUG
constexpr bool kVerifyEachPass = false;
#else
constexpr bool kVerifyEachPass = true;
#endif

void verifyOrThrow(const ir::Function& fn, const std::string& after) {
  if (auto problem = ir::verify(fn)) {
    Diagnostic d = *problem;
    throw InternalError(d.loc, "invalid IR after " + after + ": " + d.message);
  }
}

std::vector<Param> paramsOf(const ir::Function& fn) {
  std::vector<Param> out;
  for (const auto& arg : fn.body.args) out.push_back(Param{arg->name, arg->type.str(), arg->type.isPtr()});
  return out;
}

// Triton's NVIDIA targets take fp8e5, fp8e4b15 and (from sm_89) fp8e4nv; the AMD formats fp8e4b8 and
// fp8e5b16 run on the interpreter only. Refused at the first value of such a type, in Triton's words.
void checkTargetTypes(ir::Function& fn, const ptx::Target& target) {
  auto check = [&](const ir::Type& t, const SourceLoc& loc) {
    ir::Scalar s = t.isPtr() ? t.pointee : t.elem;
    if (s != ir::Scalar::F8E4B8 && s != ir::Scalar::F8E5B16) return;
    std::string supported = target.sm >= 89 ? "('fp8e5', 'fp8e4b15', 'fp8e4nv')" : "('fp8e5', 'fp8e4b15')";
    throw CompileError(loc, std::string("type ") + (s == ir::Scalar::F8E4B8 ? "fp8e4b8" : "fp8e5b16") +
                                " not supported in this architecture. The supported fp8 dtypes are " + supported +
                                " (it runs on kiln's interpreter only)");
  };
  ir::walk(fn, [&](ir::Op& op) {
    for (const auto& r : op.results) check(r->type, op.loc);
  });
  for (const auto& arg : fn.body.args) check(arg->type, fn.loc);
}

}  // namespace

GpuCode generateGpuCode(const ir::Function& tileIr, const std::string& arch, const CompileOptions& options,
                        StepTimes* times) {
  const int numWarps = options.num_warps;
  const std::vector<std::string>& dumpAfter = options.dump_after;
  std::optional<ptx::Target> target = ptx::Target::parse(arch);
  if (!target) throw CompileError(SourceLoc{}, "unknown GPU target '" + arch + "' (expected sm_<capability>[a] from sm_80)");
  GpuCode code;
  code.arch = arch;
  std::unique_ptr<ir::Function> fn;
  {
    StepTimes::Scope t(times, "layouts", "clone and check types");
    fn = ir::clone(tileIr);
    checkTargetTypes(*fn, *target);
  }

  // a. layouts: every tile gets a register layout; conversions where an op needs another one
  {
    std::optional<analysis::AxisInfoAnalysis> tileAxis;
    {
      StepTimes::Scope t(times, "layouts", "axis_info");
      tileAxis.emplace(*fn);
    }
    StepTimes::Scope t(times, "layouts", "assign_layouts");
    lower::assignLayouts(*fn, *tileAxis, numWarps, *target);
  }
  if (kVerifyEachPass) {  // (assignLayouts has checked the GPU IR contract; the schedule's output is verified)
    StepTimes::Scope t(times, "layouts", "verify");
    verifyOrThrow(*fn, "layout assignment");
  }
  for (const std::string& wanted : dumpAfter)
    if (wanted == "assign_layouts") code.dumps["after-assign_layouts"] = ir::print(*fn);

  // b. the schedule: loops pipelined, dots split into k-slice mmas, shared buffers placed, barriers where
  //    threads share them
  const schedule::GpuContext ctx{*target, numWarps, options.num_stages, options.warp_specialize,
                                 options.tma_pointer_tiles, options.persistent};
  for (const char* pass : kGpuPassPipeline) {
    {
      StepTimes::Scope t(times, "schedule", pass);
      schedule::runGpuPass(pass, *fn, ctx);
    }
    if (kVerifyEachPass) {
      StepTimes::Scope t(times, "schedule", "verify");
      verifyOrThrow(*fn, std::string("pass '") + pass + "'");
    }
    for (const std::string& wanted : dumpAfter)
      if (wanted == pass) code.dumps[std::string("after-") + pass] = ir::print(*fn);
  }
  if (!kVerifyEachPass) {
    StepTimes::Scope t(times, "schedule", "verify");
    verifyOrThrow(*fn, "the schedule passes");
  }
  {  // what the launcher encodes for the kernel: its TMA tensor maps, passed after its parameters
    StepTimes::Scope t(times, "schedule", "tensor maps");
    code.tensorMaps = lower::tensorMapSpecs(*fn);
  }

  // c. PTX: per-thread code for every op
  code.ptx = lower::emitPtx(*fn, *target, numWarps, code.entry, options.maxnreg, times);
  code.entry.persistent =  // the grid parameters after the kernel's own
      fn->body.numArgs() == tileIr.body.numArgs() + std::size(schedule::kPersistentGridNames);
  code.gpuFunction = std::move(fn);
  return code;
}

std::shared_ptr<const GpuCode> Kernel::Impl::gpuCode(const std::string& arch, StepTimes* times) const {
  std::lock_guard<std::mutex> lock(gpuMutex_);
  auto it = gpu_.find(arch);
  if (it != gpu_.end()) return it->second;
  // Generated on a Gpu's first run: a table of its own.
  StepTimes own;
  const bool report = options.time_passes && !times;
  auto code = std::make_shared<const GpuCode>(generateGpuCode(function(), arch, options, report ? &own : times));
  if (report) std::fputs(own.render(name + " for " + arch).c_str(), stderr);
  gpu_[arch] = code;
  return code;
}

std::optional<std::string> checkNumWarps(int64_t numWarps) {
  // Layouts spread a tile over the warps by halving: a power of two; 32 warps are a CTA's 1,024 threads.
  if (numWarps >= 1 && numWarps <= 32 && (numWarps & (numWarps - 1)) == 0) return std::nullopt;
  return "num_warps must be a power of two from 1 to 32, got " + std::to_string(numWarps);
}

std::optional<std::string> checkMaxNReg(int64_t maxnreg) {
  if (maxnreg == 0 || (maxnreg >= 24 && maxnreg <= 255)) return std::nullopt;
  return "maxnreg must be 0 (no limit) or from 24 to 255 registers per thread, got " + std::to_string(maxnreg);
}

Result<Kernel> compile(const Source& source, std::string_view kernel, std::string_view signature,
                       const CompileOptions& options) {
  return compile(source, kernel, signature, options, nullptr);
}

Result<Kernel> compile(const Source& source, std::string_view kernel, std::string_view signature,
                       const CompileOptions& options, const std::function<void(ast::Module&)>& afterParse) {
  return guarded<Kernel>([&]() -> Kernel {
    auto impl = std::make_shared<Kernel::Impl>();
    impl->name = std::string(kernel);
    impl->signature = std::string(signature);
    impl->options = options;
    if (std::optional<std::string> why = checkNumWarps(options.num_warps)) throw CompileError(SourceLoc{}, *why);
    // Checked here for the interpreter's sake too: the same launch must fail alike wherever it runs.
    if (options.num_stages < 0)
      throw CompileError(SourceLoc{}, "num_stages must be 0 or more, got " + std::to_string(options.num_stages));
    if (std::optional<std::string> why = checkMaxNReg(options.maxnreg)) throw CompileError(SourceLoc{}, *why);
    StepTimes timesStorage;
    StepTimes* times = options.time_passes ? &timesStorage : nullptr;

    // 1. front end: Python source -> AST
    std::unique_ptr<ast::Module> module;
    {
      StepTimes::Scope t(times, "front end", "parse");
      auto file = makeSource(source.name, source.text, source.block);
      module = frontend::parseModule(file);
      if (const ast::FunctionDef* def = module->findFunction(impl->name)) impl->ast = frontend::dump(*def);
    }
    if (afterParse) {
      StepTimes::Scope t(times, "front end", "link");
      afterParse(*module);  // other modules' @jit functions and constants (link.h)
    }

    // 2. sema: specialize for the signature and lower to Tile IR
    // Errors in the signature point into it, shown as a source of its own: "<signature>:1:8".
    {
      StepTimes::Scope t(times, "sema", "specialize and lower");
      sema::Signature sig = sema::parseSignature(signature, makeSource("<signature>", std::string(signature)));
      impl->module = sema::lowerKernel(*module, kernel, sig, options.num_warps);
    }
    ir::Function& fn = *impl->module->functions.front();
    {
      StepTimes::Scope t(times, "sema", "verify");
      verifyOrThrow(fn, "sema");
    }
    {
      StepTimes::Scope t(times, "sema", "print ir-before-passes");
      impl->irBeforePasses = ir::print(*impl->module);
    }

    // 3. target-independent passes
    for (const char* pass : kPassPipeline) {
      if (!options.optimize && !lowersTileIr(pass)) continue;
      if (!options.enable_fp_fusion && std::string_view(pass) == "contract") continue;
      {
        StepTimes::Scope t(times, "tile passes", pass);
        passes::runPass(pass, fn);
      }
      if (kVerifyEachPass) {
        StepTimes::Scope t(times, "tile passes", "verify");
        verifyOrThrow(fn, std::string("pass '") + pass + "'");
      }
      for (const std::string& wanted : options.dump_after)
        if (wanted == pass) impl->dumps[std::string("after-") + pass] += ir::print(*impl->module);
    }
    if (!kVerifyEachPass) {
      StepTimes::Scope t(times, "tile passes", "verify");
      verifyOrThrow(fn, "the Tile IR passes");
    }
    {
      StepTimes::Scope t(times, "kernel facts", "parameters and written pointers");
      impl->params = paramsOf(fn);
      impl->written = writtenParams(fn);  // launches refuse read-only memory for these
    }
    {
      StepTimes::Scope t(times, "kernel facts", "offset_overflow");
      for (const CompilerWarning& w : analysis::offsetOverflowWarnings(fn)) impl->warnings.push_back(toWarning(w));
    }

    // 4. GPU code, when a target is named: layouts, then PTX
    if (!options.arch.empty()) impl->gpuCode(options.arch, times);
    if (times) std::fputs(times->render(impl->name + (options.arch.empty() ? "" : " for " + options.arch)).c_str(), stderr);
    return Kernel(std::move(impl));
  });
}

}  // namespace kiln
