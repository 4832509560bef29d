// The order of an mma.sync dot's k-slices (split_mma.cpp), shared by the split_mma pass and the pipeline
// pass, which issues its copies between the slices of a pipelined loop's dots.
#pragma once
#include <cstdint>
#include <functional>

#include "assign/dot_layouts.h"
#include "ir/ir.h"

namespace kiln::schedule {

// The type of the k-slice of operand `opIdx` (0: a, 1: b) of a dot or mma on mma.sync: the operand's
// shape with its k dimension cut to the instruction's K, in the mma.sync operand layout of cfg's warps.
ir::Type kSliceType(const ir::Op& dot, const lower::MmaConfig& cfg, int opIdx);

// The attributes of every k-slice `mma` of `dot`: its warp grid and its input_precision.
std::vector<ir::Attr> kSliceAttrs(const ir::Op& dot, const lower::MmaConfig& cfg);

// Creates, at b's insertion point, one `mma` per k-slice of `dot` (a dot or mma on mma.sync), chained
// through the accumulator from dot's own; returns the last one's result. `slice(opIdx, ki)` creates the
// value of k-slice ki of operand opIdx where it is called; `beforeMma(ki)`, when given, is called right
// before slice ki's `mma` is created (after the next slice's operands, when they are read ahead).
// The order: the operands of slice ki + 1 are read before the mmas of slice ki, so their latency hides
// behind those mmas while only two slices are live beside the accumulators; a chained dot reads each
// slice right before its own mmas (split_mma.cpp says why).
ir::Value* createKSliceMmas(ir::Builder& b, const ir::Op& dot, const lower::MmaConfig& cfg, bool chained,
                            const std::function<ir::Value*(int opIdx, int64_t ki)>& slice,
                            const std::function<void(int64_t ki)>& beforeMma = {});

}  // namespace kiln::schedule
