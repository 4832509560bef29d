// What the passes may assume about an op (side effects, traps, commutativity) and small helpers to
// read and create `constant` ops. Shared by canonicalize, cse, dce and licm so they agree.
#pragma once
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "ir/scalar_eval.h"

namespace kiln::passes {

using ir::Effect;
// The effect column of ops.def, with a volatile load made Write and a pure inline_asm Pure.
Effect effectOf(const ir::Op& op);
inline bool isPure(const ir::Op& op) { return effectOf(op) == Effect::Pure; }

using ir::isElementwise;
// a op b == b op a for every element (float add/mul included; float min/max are not, because of
// -0.0 versus +0.0).
bool isCommutative(const ir::Op& op);
// May fault or be undefined for some operand values: integer div/rem unless the divisor is a
// non-zero constant. Such ops are never executed speculatively (hoisted out of a loop).
bool mayTrap(const ir::Op& op);

// The element of a `constant` (a scalar, or a tensor splat of it), normalized to its type;
// nullopt when `v` is not defined by a constant of integer or float type.
std::optional<ir::Elem> constantElem(const ir::Value* v);
bool isIntConstant(const ir::Value* v, int64_t k);      // integer constant equal to k (after wrapping)
bool isAllOnesConstant(const ir::Value* v);             // integer constant with every bit set
bool isFloatConstant(const ir::Value* v, double k);     // float constant, bit-identical sign: -0.0 != 0.0
// Creates `constant` of type t (a scalar or a splat tensor) holding e.
ir::Value* makeConstant(ir::Builder& b, const ir::Type& t, ir::Elem e, SourceLoc loc);

// How many operands of ops in the function name each value (regions included).
using UseCounts = std::unordered_map<const ir::Value*, int>;
UseCounts countUses(ir::Function& fn);

// Erases the ops of `b` whose entry in `dead` is set, in one pass (a block may hold thousands).
void eraseOps(ir::Block& b, const std::vector<bool>& dead);
// Removes pure ops whose results are unused, transitively; true when anything was removed.
bool removeUnusedPureOps(ir::Function& fn);

}  // namespace kiln::passes
