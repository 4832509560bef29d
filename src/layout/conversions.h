// What the code generator asks of two layouts: where a register tile lives in shared memory and how wide
// its accesses can be, which bits a reduction runs over, and whether a conversion moves data between
// threads or warps at all. All answers come from the generic algebra of linear_layout.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

// (register, lane, warp) -> offset: the shared-memory offset (in elements) of every element a thread
// holds, for a register layout and a shared layout over the same tile (regs.invertAndCompose(shared)).
LinearLayout sharedOffsets(const LinearLayout& regs, const LinearLayout& shared);

// sharedOffsets(regs, shared) as plain numbers, for a shared layout with one in dim (the offset): for
// each in dim of `regs` (in order), the offset each of its bits reaches. The same values as the bases of
// the layout, without building it (planScratch scores many candidate tiles).
std::vector<std::vector<int64_t>> sharedOffsetBits(const LinearLayout& regs, const LinearLayout& shared);

// The largest number of consecutive registers that land on consecutive, aligned shared offsets in the
// same order: the widest ld/st.shared vector (in elements; cap it at 16 bytes yourself). Duplicated
// (broadcast) registers break runs: drop them first if the lowering skips them.
int32_t sharedVectorWidth(const LinearLayout& regs, const LinearLayout& shared);

// For a reduction along out dim `dim` (by position): the input bits whose basis moves along `dim` only,
// one per independent step, so that a butterfly over them combines every element exactly once:
// register bits reduce inside a thread, lane bits with shuffles (shfl.bfly by the bit), warp bits
// through shared memory. Broadcast bits and bits that duplicate an earlier one are left out. The
// result layout is sliceLayout(regs, dim). Throws InternalError when a basis moves along `dim` and
// another dim at once (no layout kiln builds does that).
DimMasks reductionBits(const LinearLayout& regs, int dim);

// The map M from dst's inputs to src's inputs (src(M(x)) == dst(x)) that keeps every dim in `fixed`
// where it is: each fixed bit of dst maps to the same bit of src, and the other bits only to non-fixed
// dims of src. nullopt when the data must cross a fixed dim (or the fixed dims' bases differ).
// Same out dim names on both sides.
std::optional<LinearLayout> conversionKeeping(const LinearLayout& src, const LinearLayout& dst,
                                              const std::vector<std::string>& fixed);

// dst register -> src register, when every thread already holds what dst needs (no data moves:
// the layouts are equal up to register order and broadcast); else nullopt.
std::optional<LinearLayout> registerOnlyConversion(const LinearLayout& src, const LinearLayout& dst);
inline bool needsNoDataMovement(const LinearLayout& src, const LinearLayout& dst) {
  return registerOnlyConversion(src, dst).has_value();
}

// (register, lane) of dst -> (register, lane) of src, the same warp: a conversion that warp shuffles can
// do without shared memory; nullopt when data crosses warps.
std::optional<LinearLayout> warpLocalConversion(const LinearLayout& src, const LinearLayout& dst);
// Whether shuffles can do such a map `m`: the source register index does not depend on the lane (each
// shfl.sync moves one register index of every lane).
bool shufflesCanConvert(const LinearLayout& m);

}  // namespace kiln::layout
