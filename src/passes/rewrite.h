// The per-op rewrites that canonicalize applies: constant folding (fold.cpp) and algebraic
// simplification (simplify.cpp). Both insert new ops through `b`, which points just before `op`;
// a new op takes `op`'s SourceLoc.
#pragma once
#include "ir/ir.h"

namespace kiln::passes {

// A `constant` that replaces op's single result when every operand it needs is constant; null
// when op does not fold (unknown values, integer division by zero, pointers, side effects).
ir::Value* foldConstant(ir::Op& op, ir::Builder& b);

// An equivalent value for op's single result (an existing value or a new op), or null. When it
// rewrites op in place instead (operand order, a shorter chain of shape ops), it sets `modified`.
ir::Value* simplify(ir::Op& op, ir::Builder& b, bool& modified);

}  // namespace kiln::passes
