// The TMA tensor maps a GPU IR kernel declares (its `tensor_map` ops, docs/gpu-ir.md), as the launcher
// encodes them (driver/tensor_map_spec.h).
#pragma once
#include <vector>

#include "driver/tensor_map_spec.h"
#include "ir/ir.h"

namespace kiln::lower {

// One spec per `tensor_map` op of `fn`'s body, ordered by its `index` (0, 1, ...). The verifier has
// checked the ops: each operand is a kernel parameter or an integer constant, the indices are 0..n-1.
std::vector<TensorMapSpec> tensorMapSpecs(const ir::Function& fn);

}  // namespace kiln::lower
