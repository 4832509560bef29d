// Which values of a kernel feed an address: the pointer operands of loads and stores and, transitively,
// the integer and pointer values they are computed from. The overflow oracle (overflow_oracle.h)
// evaluates exactly these values a second time in wide arithmetic.
#pragma once
#include <unordered_set>

#include "ir/ir.h"

namespace kiln::interp {

// Every pointer operand of a load or store, and every integer or pointer value it is computed from
// (ir::forEachSource: element-wise ops, casts, shape ops, hints, ptr_add, select's two values, the
// values control flow carries). A value taken from elsewhere (a load, a reduction, program_id, a
// constant) is in the set when it feeds an address, but what it was computed from is not.
std::unordered_set<const ir::Value*> valuesFeedingAddresses(const ir::Function& fn);

}  // namespace kiln::interp
