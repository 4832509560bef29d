// Constant zeros, as rewrites and instruction selection look for them: a `constant` 0 of an integer
// type or 0.0 of a float type, directly or through splats and broadcasts (the same element everywhere).
#pragma once
#include <optional>

#include "ir/ir.h"

namespace kiln::ir {

enum class SignedZero {
  Either,        // +0.0 and -0.0 both count (a dot's accumulator: x + -0.0 is x as well)
  PositiveOnly,  // -0.0 does not (a load's `other` that must match cp.async's zero fill bit for bit)
};

bool isConstantZero(const Value* v, SignedZero zeros = SignedZero::Either);

// The value of a scalar integer `constant` op, or nothing (a tensor, a float, any other op).
std::optional<int64_t> scalarIntConstant(const Value* v);

}  // namespace kiln::ir
