// Global memory access helpers shared by loads, stores and cp.async copies: the access plan (axis info and
// layout algebra, analysis/access_plan.h), uniform values and canonical registers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/access_plan.h"
#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "lower/codegen.h"

namespace kiln::lower {

using analysis::AccessPlan;
using analysis::planAccess;

// The registers of a tile operand, or its scalar register repeated n times (an operand of a tile op may
// be a scalar where the op allows it).
std::vector<ptx::Reg> tileRegs(Codegen& cg, const ir::Value* v, size_t n);
// `a and b` as one predicate; when one is invalid, the other.
ptx::Reg bothPredicates(Codegen& cg, ptx::Reg a, ptx::Reg b);

using analysis::isUniform;
// The one register holding every element of `v` when isUniform(v); else an invalid Reg.
ptx::Reg uniformRegister(Codegen& cg, const ir::Value* v);

// For each register index of `l`, the smallest index holding the same element in the same thread
// (an index is its own when no register bit it sets is a free variable of the layout). With
// `constancy` (per dim, powers of two: axis info's), the smallest index holding an element of the same
// constant block: along dim d, elements whose coordinates agree but for the low log2(constancy[d])
// bits are equal, so one register can serve them all.
std::vector<int32_t> canonicalRegisters(const layout::LinearLayout& l, std::span<const int64_t> constancy = {});

}  // namespace kiln::lower
