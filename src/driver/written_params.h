// Which pointer parameters a kernel stores through, found in its Tile IR: a launch refuses read-only
// memory for those (and only those: loading from a read-only array is fine).
#pragma once
#include <vector>

#include "ir/ir.h"

namespace kiln {

// One entry per parameter of `fn` (fn.body.args): true when a value derived from it reaches the
// pointer operand of a `store` or an atomic. Over-approximates (a pointer chosen by `select`, or carried through a
// loop beside another, counts for each source) but never misses a store.
std::vector<bool> writtenParams(const ir::Function& fn);

}  // namespace kiln
