// Which tf32 dots run on sm_90a's warpgroup MMA. wgmma reads tf32 operands from shared memory K-major only
// (the form has no transpose), so a tf32 dot pays on wgmma where both operands are loaded contiguous
// along K and land in their slots as wgmma reads them; an operand that runs along M or N would be
// transposed through registers with a wait after every dot, slower than mma.sync
// (bench/results/2026-12-03-h200-dot-types.md). Layout assignment marks those dots `wgmma = 1`, and
// wgmmaConfig takes a tf32 dot only so marked.
#pragma once
#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "ptx/builder.h"

namespace kiln::lower::assign {

void markTf32Wgmma(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, const ptx::Target& target);

}  // namespace kiln::lower::assign
