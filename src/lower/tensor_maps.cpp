// tensorMapSpecs (tensor_maps.h): reads the `tensor_map` ops off a verified GPU IR kernel.
#include "lower/tensor_maps.h"

#include <algorithm>

#include "support/diagnostic.h"

namespace kiln::lower {

namespace {

TensorMapOperand operandOf(const ir::Function& fn, const ir::Value* v) {
  if (v->isBlockArg() && v->owner == &fn.body) return {int(v->index), 0};
  if (v->def && v->def->opcode == ir::Opcode::Constant) return {-1, v->def->intAttr("value")};
  throw InternalError(v->def ? v->def->loc : SourceLoc{}, "tensor_map operand is neither a kernel parameter nor a constant");
}

}  // namespace

std::vector<TensorMapSpec> tensorMapSpecs(const ir::Function& fn) {
  std::vector<std::pair<int64_t, TensorMapSpec>> found;
  for (const auto& op : fn.body.ops) {
    if (op->opcode != ir::Opcode::TensorMap) continue;
    const size_t rank = (op->numOperands() - 1) / 2;
    TensorMapSpec s;
    s.elem = op->operand(0)->type.pointee;
    s.base = operandOf(fn, op->operand(0));
    for (size_t d = 0; d < rank; ++d) {
      s.shape.push_back(operandOf(fn, op->operand(unsigned(1 + d))));
      s.strides.push_back(operandOf(fn, op->operand(unsigned(1 + rank + d))));
    }
    s.box = op->listAttr("box");
    s.swizzle = int(op->intAttr("swizzle"));
    s.guarded = op->intAttrOr("guarded", 0) != 0;
    found.emplace_back(op->intAttr("index"), std::move(s));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TensorMapSpec> out;
  for (auto& [index, spec] : found) out.push_back(std::move(spec));
  return out;
}

}  // namespace kiln::lower
