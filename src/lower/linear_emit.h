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
#include "lower/codegen.h"

namespace kiln::lower {

// Bytes an element occupies in memory (i1: one byte).
int memBytes(ir::Scalar t);

// The size of in dim `dim` of l (1 when l has no such dim).
int32_t inDimSize(const layout::LinearLayout& l, std::string_view dim);

// Component `out` of l(register = r, lane = 0, warp = 0): the XOR of the register bases set in r.
int32_t registerPart(const layout::LinearLayout& l, int32_t r, int out);
// Every component of it: registerPart(l, r, j) for each out dim j (the coordinates register r holds
// in lane 0 of warp 0; equal ones hold equal elements in every thread).
std::vector<int32_t> registerCoords(const layout::LinearLayout& l, int32_t r);
// The bits the lane/warp part of out dim `out` can set (the OR of the lane and warp bases).
int32_t threadMask(const layout::LinearLayout& l, int out);
// This thread's lane/warp part of out dim `out`: XOR of the lane and warp bases of its set bits (.b32).
ptx::Reg threadPart(Codegen& cg, const layout::LinearLayout& l, int out);
// XOR over the set bits i of `x` (a .b32 register) of columns[i] (.b32 result).
ptx::Reg linearOf(Codegen& cg, ptx::Reg x, const std::vector<int32_t>& columns);

// The registers of a layout that hold distinct data: `original[c]` is the register index of compact
// register c, and `compact` is the layout restricted to those registers (the free register bits, whose
// bases add nothing new, removed).
struct UniqueRegisters {
  layout::LinearLayout compact;
  std::vector<int32_t> original;
};
UniqueRegisters uniqueRegisters(const layout::LinearLayout& l);

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
