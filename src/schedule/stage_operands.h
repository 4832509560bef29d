// What the stage_operands pass (stage_operands.cpp) decides, for the pipeline pass that runs before it
// and must leave room for its buffers.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/ir.h"
#include "layout/wgmma_shared.h"
#include "schedule/schedule.h"

namespace kiln::schedule {

// The arrangement a wgmma A operand of type `a` takes when staged in shared memory (K contiguous when
// its rows allow a swizzle, else M; fp8 and 8-bit integers K only, tf32 never), or nothing when none
// holds it.
std::optional<layout::WgmmaTile> stagedTile(const ir::Type& a);

// The shared bytes stage_operands will take for the loop-invariant A operands of the wgmma dots in
// `loop` (0 when none, or off sm_90a's wgmma).
int64_t stagedOperandBytes(ir::Op& loop, const GpuContext& ctx);

}  // namespace kiln::schedule
