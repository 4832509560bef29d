// TMA copies for pointer-built tiles (sm_90), part of the pipeline pass (pipeline.cpp): a loop whose
// dot operands are pointer loads that read boxes of tensors (pointer_box.h) runs in two versions,
//
//   if (every start >= 0, every `% M` wrap the identity (unless what it moves reaches no write), every
//       extent and stride parameter >= 1, every stride axis info cannot prove 16-byte aligned so) {
//     the loop, its loads carrying TMA descriptions (docs/ir.md, "load"): the pipeline copies them
//     with TMA through tensor maps the launcher encodes from the kernel's arguments
//   } else {
//     the loop as written: the pipeline copies with cp.async
//   }
//
// The check is uniform over the CTA and made once, before the loop. Where it holds, each TMA copy
// moves exactly the elements the pointer load reads (TMA's zero fill outside the extents is the mask's
// `other` of zero), except in the lanes of a wrap whose values reach no global write (lane_reach.h),
// which it zero-fills; where it fails, the launcher may also have been unable to encode the map (a zero
// extent, a negative stride or one not a multiple of 16 bytes), which is why the maps are guarded:
// passed as zeros then, never read.
#pragma once
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "layout/wgmma_shared.h"
#include "schedule/pointer_box.h"

namespace kiln::schedule {

struct PointerTmaLoad {
  const ir::Op* load = nullptr;
  PointerBox box;
};

// Whether a TMA copy can fill a wgmma slot of arrangement `tile` with the box of a load of `elem`
// tiles: rank 2 (plus the dims it does not span, PointerBox::outer), the slot contiguous along the box's contiguous dim (stride 1; dim 0 for a K-contiguous
// B, whose copy reads the box with its dims swapped) and at most 256 rows along the other, elements of at least 8 bits, strides kernel parameters or constants, and the base 16-byte
// aligned as far as axis info proves (the launcher's rules, which it would otherwise refuse the map
// for). A row stride axis info cannot prove a multiple of 16 bytes (a 3000-element row: the
// specialization knows only multiples of 16 elements) is marked for the check before the loop
// (BoxDim::checkedStrideMultiple).
bool pointerBoxFitsTma(PointerBox& box, const layout::WgmmaTile& tile, ir::Scalar elem,
                       const analysis::AxisInfoAnalysis& axis);

// Whether a global write of the program may come before `forOp`'s loads (or before `forOp`, a store): a
// store or atomic (or an inline_asm not marked pure) before it in program order, in the loop, or in a
// loop around it. TMA copies through the async proxy, which is ordered after the generic proxy's writes
// only by a proxy fence (PTX ISA, "Proxies"), so such a loop keeps its ordinary loads (the written
// tensor may be the one read), and such a store its st.global. A
// persistent kernel's loop over programs (persistent.cpp) is not such a loop: the writes of its earlier
// iterations are other programs', which the loads need not see (programs are not ordered).
bool globalWritesMayPrecede(const ir::Function& fn, const ir::Op& forOp);

// Whether a TMA store can write `box` (a pointer store's, storeBox) from a tile of `elem`: rank 2 and
// contiguous along dim 1, elements of at least 8 bits, and the launcher's rules for the map as for the
// loads (strides not proven 16-byte aligned marked for the check).
bool storeBoxFitsTma(PointerBox& box, ir::Scalar elem, const analysis::AxisInfoAnalysis& axis);

// Wraps `store` in `if (check) { store described } else { store }`: the check of the header's drawing
// for its box, made just before it, and a copy carrying the TMA description of `box` (`guarded = 1`) for
// the tma_stores pass, which writes it through shared memory with one bulk copy. The copy takes the
// registers from before a layout conversion the store's value went through. Returns the if.
ir::Op* versionStoreForTma(ir::Op& store, const PointerBox& box);

// Undoes versionStoreForTma: the else region's store goes back in the if's place, the if away.
void unversionStore(ir::Op& branch);

// Moves the pure ops before the `if` `branch`, in its block, whose results only its region `region`
// reads (a store's address and mask tiles, which only the pointer version computes) to that region's
// start, in order.
void sinkIntoBranch(ir::Op& branch, unsigned region);

// Wraps `forOp` in `if (check) { copy } else { forOp }` (the header's drawing) and gives the copy's
// loads (those of `loads`) their TMA descriptions. Returns the copy.
ir::Op* versionForTma(ir::Op& forOp, const std::vector<PointerTmaLoad>& loads);

}  // namespace kiln::schedule
