// How a tile access to global memory is cut into vector instructions: the layout algebra and axis info
// decide the widths. Shared by plain loads and stores (lower/lower_memory.cpp), cp.async copies
// (lower/lower_schedule.cpp) and the pipeline pass, which only pipelines what cp.async can copy.
#pragma once
#include <cstddef>

#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "layout/linear_layout.h"

namespace kiln::analysis {

// `vec` elements per vector instruction, and runs of `run` register indices (a multiple of vec) whose
// addresses are consecutive, so that one address register serves the run with immediate offsets. Both
// start from the register indices that step by one along one out dim (layout algebra); the run is
// limited by the pointers' contiguity along that dim (axis info), the vector also by their alignment,
// by the mask's constancy and by 16 bytes.
struct AccessPlan {
  size_t vec = 1, run = 1;
};
AccessPlan planAccess(const AxisInfoAnalysis& axis, const ir::Value* ptr, const ir::Value* mask,
                      const layout::LinearLayout& l);

// Whether every element of `v` is one value, the same in every thread: a scalar, a splat or a constant
// (what a pointer tile can be advanced by as a whole).
bool isUniform(const ir::Value* v);

}  // namespace kiln::analysis
