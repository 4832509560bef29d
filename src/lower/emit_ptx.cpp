// emitPtx: one GPU IR function -> a PTX module with one entry: parameters from the function's
// arguments, the launch bound, the parameters loaded into registers, then the lowered body.
#include <algorithm>
#include <bit>
#include <optional>

#include "lower/codegen.h"
#include "ptx/isel.h"
#include "support/diagnostic.h"
#include "support/step_times.h"

namespace kiln::lower {

namespace {

bool validIdentifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// "tmap<k>": the names of the tensor-map parameters (declareTensorMaps), kept from the kernel's own.
bool isTensorMapName(const std::string& s) {
  return s.size() > 4 && s.rfind("tmap", 0) == 0 && std::all_of(s.begin() + 4, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The byte alignment the function promises for pointer parameter `arg`: what the axis info proves,
// and what a `multiple_of` at the top of the body (run on every path) asserts about it.
int64_t pointerAlignment(const ir::Function& fn, const ir::Value* arg, const analysis::AxisInfoAnalysis& axis) {
  int64_t div = axis.get(arg).divisibility.at(0);
  for (const auto& op : fn.body.ops)
    if (op->opcode == ir::Opcode::MultipleOf && op->operand(0) == arg) {
      const std::vector<int64_t>& v = op->listAttr("values");
      if (!v.empty()) div = std::max(div, v[0]);
    }
  return div;
}

// The CTA's warps: num_warps, or the sum of a top-level warp partition's.
int ctaWarpCount(const ir::Function& gpuFn, int numWarps) {
  for (const auto& op : gpuFn.body.ops)
    if (op->opcode == ir::Opcode::WarpPartition) {
      int64_t total = 0;
      for (int64_t w : op->listAttr("warps")) total += w;
      return int(std::max<int64_t>(total, numWarps));
    }
  return numWarps;
}

}  // namespace

std::string emitPtx(const ir::Function& gpuFn, const ptx::Target& target, int numWarps, EntryInfo& info,
                    int maxNReg, StepTimes* times) {
  if (!validIdentifier(gpuFn.name))
    throw CompileError(gpuFn.loc, "kernel name '" + gpuFn.name + "' is not a valid PTX identifier");
  std::optional<analysis::AxisInfoAnalysis> axisInfo;
  {
    StepTimes::Scope t(times, "ptx", "axis_info");
    axisInfo.emplace(gpuFn);
  }
  const analysis::AxisInfoAnalysis& axis = *axisInfo;
  std::optional<StepTimes::Scope> lowering(std::in_place, times, "ptx", "lower ops");
  ptx::Module module(target);
  ptx::Entry& e = module.addEntry(gpuFn.name);

  // Parameters keep their source names where PTX allows them (the symbol is "<kernel>_<name>").
  std::vector<int> params;
  std::vector<std::string> used;
  for (size_t i = 0; i < gpuFn.body.args.size(); ++i) {
    const ir::Value* a = gpuFn.body.arg(unsigned(i));
    std::string name = a->name;
    if (!validIdentifier(name) || isTensorMapName(name) || std::find(used.begin(), used.end(), name) != used.end())
      name = "arg" + std::to_string(i);
    used.push_back(name);
    if (a->type.isTensor()) throw InternalError(gpuFn.loc, "codegen: kernel parameter " + name + " is a tile");
    if (a->type.isPtr())
      params.push_back(e.addParam(name, ptx::ParamType::Ptr, pointerAlignment(gpuFn, a, axis) % 16 == 0 ? 16 : 0));
    else if (a->type.isBool())
      params.push_back(e.addBoolParam(name));
    else
      params.push_back(e.addParam(name, ptx::paramTypeOf(a->type.elem)));
  }
  // A warp partition at the top level may take more warps than the layouts' num_warps (warp_specialize's
  // producer warpgroup beside the consumers): the CTA has as many as its partitions.
  if (numWarps < 1 || numWarps > 32 || !std::has_single_bit(unsigned(numWarps)))
    throw InternalError(gpuFn.loc, "codegen: num_warps must be a power of two from 1 to 32, got " + std::to_string(numWarps));
  const int ctaWarps = ctaWarpCount(gpuFn, numWarps);
  e.setMaxNtid(ctaWarps * 32);
  e.setMaxNReg(maxNReg);

  std::vector<ptx::Reg> values;
  for (size_t i = 0; i < params.size(); ++i) {
    ptx::Reg r = e.loadParam(params[i]);
    if (r.cls != ptx::regClassOf(gpuFn.body.arg(unsigned(i))->type.elem))
      throw InternalError(gpuFn.loc, "codegen: parameter " + std::to_string(i) + " loads into the wrong register class");
    values.push_back(r);
  }

  Codegen cg(e, gpuFn, axis, ctaWarps);
  for (size_t i = 0; i < values.size(); ++i) cg.bind(gpuFn.body.arg(unsigned(i)), {values[i]});
  declareTensorMaps(cg);  // after the runtime parameters: the launcher appends the maps
  precomputeSlotOffsets(cg, gpuFn.body);
  cg.lowerBlock(gpuFn.body);  // ends with `return`, which emits `ret`
  const ir::Op* last = gpuFn.body.terminator();
  if (!last || last->opcode != ir::Opcode::Return) e.ret();
  lowering.reset();
  {
    StepTimes::Scope t(times, "ptx", "dead code");
    e.removeDeadCode();
  }

  info.name = gpuFn.name;
  info.numWarps = ctaWarps;
  info.sharedBytes = cg.scratchBytes();
  StepTimes::Scope t(times, "ptx", "module text");
  return module.str();
}

}  // namespace kiln::lower
