// What the registers of a distributed layout hold: the coordinates each register index stands for in
// lane 0 of warp 0, the bits the lanes and warps add, and the registers that hold distinct elements.
// Pure functions of the layout, used by layout choices (scratch_layout.h), the schedule passes and the
// code generator.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

// The size of in dim `dim` of l (1 when l has no such dim).
int32_t inDimSize(const LinearLayout& l, std::string_view dim);

// Component `out` of l(register = r, lane = 0, warp = 0): the XOR of the register bases set in r.
int32_t registerPart(const LinearLayout& l, int32_t r, int out);
// Every component of it: registerPart(l, r, j) for each out dim j (the coordinates register r holds
// in lane 0 of warp 0; equal ones hold equal elements in every thread).
std::vector<int32_t> registerCoords(const LinearLayout& l, int32_t r);
// registerCoords of every register as one number each, flattened (LinearLayout::flattenOut): two
// registers of layouts with the same out dims hold the same coordinates exactly when their numbers agree.
std::vector<uint64_t> registerImages(const LinearLayout& l);
// The bits the lane/warp part of out dim `out` can set (the OR of the lane and warp bases).
int32_t threadMask(const LinearLayout& l, int out);

// The registers of a layout that hold distinct data: `original[c]` is the register index of compact
// register c, and `compact` is the layout restricted to those registers (the free register bits, whose
// bases add nothing new, removed).
struct UniqueRegisters {
  LinearLayout compact;
  std::vector<int32_t> original;
};
UniqueRegisters uniqueRegisters(const LinearLayout& l);

}  // namespace kiln::layout
