// How a global tile access is cut into vector instructions (see access_plan.h).
#include "analysis/access_plan.h"

#include <algorithm>

namespace kiln::analysis {

AccessPlan planAccess(const AxisInfoAnalysis& axis, const ir::Value* ptr, const ir::Value* mask,
                      const layout::LinearLayout& l) {
  if (!l.hasInDim(layout::kRegister) || l.getInDimSizeLog2(layout::kRegister) == 0) return {};
  int64_t steps = l.getNumConsecutiveInOut(layout::kRegister);
  if (steps <= 1) return {};
  const layout::Basis& b0 = l.basis(layout::kRegister, 0);
  int dim = int(std::find(b0.begin(), b0.end(), 1) - b0.begin());
  int64_t run = std::min(steps, axis.get(ptr).contiguity.at(size_t(dim)));
  const int64_t elemBytes = std::max(1, ir::bitWidth(ptr->type.pointee) / 8);
  int64_t vec = std::min({run, axis.vectorElements(ptr, dim), axis.maskConstancy(mask, dim), 16 / elemBytes});
  return AccessPlan{size_t(std::max<int64_t>(1, vec)), size_t(std::max<int64_t>(1, run))};
}

bool isUniform(const ir::Value* v) {
  using ir::Opcode;
  return !v->type.isTensor() || (v->def && (v->def->opcode == Opcode::Splat || v->def->opcode == Opcode::Constant));
}

}  // namespace kiln::analysis
