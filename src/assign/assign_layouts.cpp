// assignLayouts: Tile IR -> GPU IR in four steps (docs/layouts.md, "Layout assignment"): choose a
// layout for every tile, write them into the types with conversions where ops need them, remove the
// conversions that cost more than recomputing, and check the contract.
#include "assign/assign_layouts.h"

#include <string>

#include "assign/assign_rules.h"
#include "assign/tf32_dots.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

// Layouts and conversions from an earlier run would only mislead the propagation: start from Tile IR.
void dropLayouts(ir::Block& b) {
  for (size_t k = 0; k < b.ops.size();) {
    ir::Op* op = b.ops[k].get();
    if (op->opcode == ir::Opcode::ConvertLayout) {
      ir::replaceAllUses(b, op->result(), op->operand(0));  // its users follow it in this block
      b.remove(op);
      continue;
    }
    ++k;
  }
  for (const auto& a : b.args) a->type.layout = nullptr;
  for (const auto& op : b.ops) {
    for (const auto& r : op->results) r->type.layout = nullptr;
    for (const auto& r : op->regions) dropLayouts(*r);
  }
}

}  // namespace

void assignLayouts(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps, const ptx::Target& target) {
  if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)))
    throw InternalError(fn.loc, "assignLayouts: numWarps must be a power of two from 1 to 32, got " +
                                    std::to_string(numWarps));
  dropLayouts(fn.body);
  assign::markTf32Wgmma(fn, axis, target);
  assign::LayoutPool pool;
  assign::Choice choice = assign::chooseLayouts(fn, axis, numWarps, target, pool);
  assign::insertConversions(fn, choice);
  assign::removeRedundantConversions(fn, pool);
  checkGpuContract(fn, numWarps, target);
}

}  // namespace kiln::lower
