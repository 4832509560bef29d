// sm_90a's warpgroup MMA for dot and GPU IR's mma (lower_wgmma.cpp).
#pragma once
#include "assign/dot_layouts.h"
#include "ir/ir.h"
#include "lower/codegen.h"

namespace kiln::lower {

// The mmas of `op` (a dot, or an mma whose operands may be slots) with config `cfg` (cfg.wgmma), as one
// commit group. inPlace: the accumulator's registers are op's alone to write. waitNow: wait for the
// group before going on (a dot); otherwise an mma_wait does. A B operand in registers is staged
// through scratch and always waited for.
void lowerWgmma(Codegen& cg, const ir::Op& op, const MmaConfig& cfg, bool inPlace, bool waitNow);

}  // namespace kiln::lower
