// Scalar conditions under which a mask is true in every element. A mask built from index arithmetic
// (`start + tl.arange(0, B) < n`, a causal `rows >= cols`, their `&`) is all true in most iterations of
// a loop over blocks and false only near an edge; the condition lets codegen skip the per-element work
// (a `where` on such a mask: lower_guarded_select.cpp) whenever it holds.
//
// An index tensor is read as base + t with t in [lo, hi]: base a scalar i32 (or none: zero), lo and hi
// constants, from splats, aranges, constants, adds and subtracts, and shape, layout and hint ops. i32
// arithmetic wraps, so every element equals wrap32(base + t): the bounds hold for the kernel's values
// only where base + lo and base + hi do not leave the i32 range, and the guard says so too.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace kiln::analysis {

// lhs + lhsOffset <= rhs + rhsOffset, in 64-bit arithmetic; a null value stands for zero.
struct GuardTerm {
  const ir::Value* lhs = nullptr;
  int64_t lhsOffset = 0;
  const ir::Value* rhs = nullptr;
  int64_t rhsOffset = 0;
  bool operator==(const GuardTerm&) const = default;
};

// Terms whose conjunction implies that the i1 tensor `mask` is true in every element, or none when the
// mask is not of the form above (or can never be proven true that way). Every value a term names is an
// i32 scalar that `mask` is computed from. `read`, when given, receives the ops the proof went through
// (the mask's computation), each once.
std::optional<std::vector<GuardTerm>> allTrueGuard(const ir::Value* mask, std::vector<const ir::Op*>* read = nullptr);

}  // namespace kiln::analysis
