// The values a value is computed from, as data flows through ops and structured control flow: what
// the overflow oracle (interp/address_cone.h) and the offset-overflow warning (analysis) follow.
#pragma once
#include <functional>

#include "ir/ir.h"

namespace kiln::ir {

// Calls f for each value `v` is computed from: every operand of an element-wise op, cast, shape op,
// hint, layout conversion or ptr_add; select's two values (not its condition); for a region argument
// or a result of for/if/while, the values control flow carries into it (inits, yields, a while's
// condition values); for a for's induction variable, its lower bound and step. Nothing for a value
// taken from elsewhere: a load, a reduction, a dot, program_id, arange, a constant, a kernel parameter.
void forEachSource(const Value& v, const std::function<void(const Value*)>& f);

}  // namespace kiln::ir
