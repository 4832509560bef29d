#include "assign/tf32_dots.h"

#include "assign/assign_rules.h"
#include "assign/dot_layouts.h"

namespace kiln::lower::assign {
namespace {

using ir::Opcode;

// Whether tile `v` comes straight from a load whose copies run along its dim `dim` (through a permute,
// `b.T`) at least 16 bytes at a time: the dim a pipelined slot is made contiguous along
// (schedule/pipeline.cpp's wgmmaSlot). A block or tensor-descriptor load runs along its last dim; a
// pointer load along the first dim of its coalescedOrder.
bool loadedAlong(const ir::Value* v, int dim, const analysis::AxisInfoAnalysis& axis) {
  if (v->def && v->def->opcode == Opcode::Permute) {
    dim = int(v->def->listAttr("order").at(size_t(dim)));
    v = v->def->operand(0);
  }
  const ir::Op* load = v->def;
  if (!load || load->opcode != Opcode::Load || v->type.rank() != 2) return false;
  if (load->hasAttr("block") || load->hasAttr("tma")) return dim == 1;
  const ir::Value* ptr = load->operand(0);
  if (!ptr->type.isTensor()) return false;
  const analysis::AxisInfo& info = axis.get(ptr);
  return coalescedOrder(info).at(0) == dim &&
         info.contiguity.at(size_t(dim)) * int64_t(ir::bitWidth(v->type.elem) / 8) >= 16;
}

void mark(ir::Block& block, const analysis::AxisInfoAnalysis& axis) {
  for (const auto& op : block.ops) {
    for (const auto& r : op->regions) mark(*r, axis);
    if (op->opcode != Opcode::Dot || op->operand(0)->type.elem != ir::Scalar::F32 ||
        op->operand(2)->type.elem != ir::Scalar::F32 || !truncatesToTf32(*op))
      continue;
    // A [M, K] along K (its dim 1), B [K, N] along K (its dim 0).
    if (loadedAlong(op->operand(0), 1, axis) && loadedAlong(op->operand(1), 0, axis))
      op->setAttr("wgmma", int64_t(1));
  }
}

}  // namespace

void markTf32Wgmma(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, const ptx::Target& target) {
  if (target.sm != 90 || !target.archSpecific) return;
  mark(fn.body, axis);
}

}  // namespace kiln::lower::assign
