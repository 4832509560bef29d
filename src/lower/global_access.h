// How a tile access to global memory is cut into vector instructions (shared by plain loads and stores
// and by the pipelined loads' cp.async copies): the layout algebra and axis info decide the widths.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "lower/codegen.h"

namespace kiln::lower {

// `vec` elements per vector instruction, and runs of `run` register indices (a multiple of vec) whose
// addresses are consecutive, so that one address register serves the run with immediate offsets. Both
// start from the register indices that step by one along one out dim (layout algebra); the run is
// limited by the pointers' contiguity along that dim (axis info), the vector also by their alignment,
// by the mask's constancy and by 16 bytes.
struct AccessPlan {
  size_t vec = 1, run = 1;
};
AccessPlan planAccess(const Codegen& cg, const ir::Value* ptr, const ir::Value* mask, const layout::LinearLayout& l);

// The registers of a tile operand, or its scalar register repeated n times (an operand of a tile op may
// be a scalar where the op allows it).
std::vector<ptx::Reg> tileRegs(Codegen& cg, const ir::Value* v, size_t n);
// `a and b` as one predicate; when one is invalid, the other.
ptx::Reg bothPredicates(Codegen& cg, ptx::Reg a, ptx::Reg b);

// Whether every element of `v` is one value, the same in every thread: a scalar, a splat or a constant
// (what a pointer tile can be advanced by as a whole).
bool isUniform(const ir::Value* v);
// The one register holding every element of `v` when isUniform(v); else an invalid Reg.
ptx::Reg uniformRegister(Codegen& cg, const ir::Value* v);

// For each register index of `l`, the smallest index holding the same element in the same thread
// (an index is its own when no register bit it sets is a free variable of the layout). With
// `constancy` (per dim, powers of two: axis info's), the smallest index holding an element of the same
// constant block: along dim d, elements whose coordinates agree but for the low log2(constancy[d])
// bits are equal, so one register can serve them all.
std::vector<int32_t> canonicalRegisters(const layout::LinearLayout& l, std::span<const int64_t> constancy = {});

}  // namespace kiln::lower
