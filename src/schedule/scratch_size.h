// The shared-memory scratch an op's lowering stages data through, from the op's types and layouts
// alone: a layout conversion that crosses warps, a reduction, scan or sort across warps, a gather or
// histogram, the old values of an atomic held by other threads, wgmma's B staged from registers.
// allocate_shared places each (the op's `scratch = [offset, bytes]`), insert_barriers orders it against
// every other access, and the lowering reads the offset back and checks it needs no more bytes.
//
// Every such lowering writes its scratch first and passes a barrier of the threads running it before it
// reads the scratch back. A conversion passes a second one after its reads; the others leave their reads
// pending (a later write to those bytes waits for a barrier, which insert_barriers puts there).
#pragma once
#include <cstdint>

#include "ir/ir.h"
#include "ptx/builder.h"

namespace kiln::schedule {

struct ScratchUse {
  int64_t bytes = 0;         // 0: the op stages nothing
  bool leavesReads = true;   // its reads are still pending where it ends (false: a barrier ends it)
};

// `numWarps`: of the code running the op (a warp partition's own).
ScratchUse scratchUse(const ir::Op& op, int numWarps, const ptx::Target& target);

// Conversions whose scratch would pass this many bytes go in rounds of at most kScratchRoundBytes when
// the layouts allow (layout::splitIntoRounds), at two barriers per round.
constexpr int64_t kScratchSplitAbove = 32 * 1024, kScratchRoundBytes = 16 * 1024;
// The bytes of one round of a conversion from `from` to `to` of elements of `elemBytes`, when a round may
// take at most `maxRoundBytes` (as few rounds as reach it; more bytes where the layouts cannot split).
int64_t conversionRoundBytes(const layout::LinearLayout& from, const layout::LinearLayout& to, int elemBytes,
                             int64_t maxRoundBytes);
// The default a conversion of `numel` elements asks for: rounds of kScratchRoundBytes above
// kScratchSplitAbove bytes, else the whole tile. allocate_shared gives it more where that fits under the
// buffers' bytes, and the lowering splits by the bytes placed.
int64_t conversionScratchBytes(const layout::LinearLayout& from, const layout::LinearLayout& to, int elemBytes,
                               int64_t numel);

// A sort's rounds across warps each stage the whole tile; a tile up to this many bytes alternates
// between two halves of its scratch, so that no round waits for the previous round's reads.
constexpr int64_t kSortDoubleBufferBytes = 512;

}  // namespace kiln::schedule
