// Layout assignment: turns a Tile IR function in place into GPU IR. Every tile type gets a register
// layout (coalesced for loads and stores, mma/FMA fragments for dots, propagated to the rest), and
// convert_layout ops go where an op needs an operand in another layout (docs/layouts.md).
#pragma once
#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "ptx/builder.h"

namespace kiln::lower {

// Gives every tile type of `fn` a register layout and inserts convert_layout ops so that the GPU IR
// contract (docs/layouts.md, "The GPU IR contract") holds. `axis` was computed on `fn` before the call.
// numWarps is a power of two from 1 to 32. Layouts or conversions already in `fn` are dropped first.
// Ends with checkGpuContract; a violation is a kiln bug (InternalError).
void assignLayouts(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps, const ptx::Target& target);

// Checks every rule of the GPU IR contract: each tile has a (register, lane, warp) layout over its shape
// with 5 lane bits and log2(numWarps) warp bits, scalars have none, and each op's operands and results
// relate as the contract says (dots against dotLayout for `target`). Throws InternalError naming the
// first op that breaks a rule.
void checkGpuContract(const ir::Function& fn, int numWarps, const ptx::Target& target);

}  // namespace kiln::lower
