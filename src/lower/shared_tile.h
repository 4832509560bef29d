// Tiles laid out in shared memory by a ScratchPlan (scratch_layout.h), read into the registers of a
// layout: the second half of a conversion through shared memory, shared with the pipelined loads whose
// cp.async copies fill the tile (lower/pipeline.h).
#pragma once
#include <vector>

#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "lower/codegen.h"
#include "lower/scratch_layout.h"

namespace kiln::lower {

// The registers of layout `to` (element type t) read from the tile `plan` put at `base` (.b32 shared
// address): ldmatrix where the plan has it, else ld.shared of plan.loadVec elements. No barrier.
std::vector<ptx::Reg> readSharedTile(Codegen& cg, const ir::Op& op, const ScratchPlan& plan, ptx::Reg base,
                                     ir::Scalar t, const layout::LinearLayout& to);

}  // namespace kiln::lower
