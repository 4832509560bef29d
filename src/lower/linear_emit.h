// Per-thread arithmetic for linear layouts, shared by the conversion, reduction and dot lowerings: the
// value of a layout's out dim is (register part) XOR (lane/warp part), so the register part is a
// compile-time constant and the lane/warp part is computed once per op into a register.
#pragma once
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "ir/types.h"
#include "layout/linear_layout.h"
#include "layout/register_parts.h"
#include "layout/scratch_layout.h"
#include "lower/codegen.h"

namespace kiln::lower {

// Bytes an element occupies in memory (i1: one byte).
int memBytes(ir::Scalar t);

// The layout facts (layout/register_parts.h) and shared-memory plans (layout/scratch_layout.h) the
// code generator works from, by their short names.
using layout::inDimSize;
using layout::registerCoords;
using layout::registerPart;
using layout::ScratchPlan;
using layout::threadMask;
using layout::uniqueRegisters;
using layout::UniqueRegisters;
using layout::planScratch;
using layout::planWithShared;
using layout::ScratchRounds;
using layout::splitIntoRounds;
using layout::sharedWavefronts;

// This thread's lane/warp part of out dim `out`: XOR of the lane and warp bases of its set bits (.b32).
ptx::Reg threadPart(Codegen& cg, const layout::LinearLayout& l, int out);
// XOR over the set bits i of `x` (a .b32 register) of columns[i] (.b32 result).
ptx::Reg linearOf(Codegen& cg, ptx::Reg x, const std::vector<int32_t>& columns);

// Addresses `base + bytes * (threadOffset ^ regOffset)` in shared memory for the register offsets of one
// layout, as a register and an immediate: the bits of regOffset that threadOffset can set (threadMask)
// need an xor, computed once per distinct pattern; the others add as an immediate.
class SharedAddresses {
 public:
  SharedAddresses(Codegen& cg, ptx::Reg base, ptx::Reg threadOffset, int32_t threadMask, int bytes);
  struct Address {
    ptx::Reg reg;
    int64_t offset;
  };
  Address at(int64_t regOffset);

 private:
  Codegen& cg_;
  ptx::Reg base_, threadOffset_;
  std::map<int64_t, ptx::Reg> addresses_;  // by the overlapping part of regOffset
  int32_t threadMask_;
  int bytes_;
};

}  // namespace kiln::lower
