// The live ranges of a function's shared buffers, for allocate_shared (which bytes may two buffers
// share) and for the code generator (which bytes scratch may use while no buffer holds them).
//
// Ops are numbered in program order, an op before its regions' ops. A buffer lives from its shared_alloc
// to the end of the last op, in the alloc's own block, that uses it or holds a use in its regions: a use
// inside a loop keeps the buffer for the whole loop, a use in a branch for the whole `if`. Slots taken
// from a buffer, and a buffer carried out of a loop or branch, are uses of it.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace kiln::schedule {

struct BufferLiveRange {
  const ir::Op* alloc = nullptr;    // the shared_alloc
  int64_t bytes = 0;                // slots x slot stride
  int64_t first = 0, last = 0;      // op numbers
  const ir::Op* lastUser = nullptr; // the op of the alloc's block after which the buffer is dead
};

// Every shared_alloc of `fn`, in program order. A use outside the alloc's region is an InternalError.
std::vector<BufferLiveRange> bufferLiveRanges(const ir::Function& fn);

}  // namespace kiln::schedule
