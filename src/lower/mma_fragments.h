// What the tensor-core lowerings (mma.sync in lower_dot.cpp, wgmma in lower_wgmma.cpp) share: finding a
// fragment element among a thread's registers by its coordinates, and packing elements into the 32-bit
// fragment registers the instructions take.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "ptx/builder.h"

namespace kiln::lower {

// Register index by the coordinates of its register part (lane 0, warp 0): the element an instruction
// needs at lane 0 is looked up this way (the lane and warp parts are the same for every register of a
// layout, and the layouts agree with the PTX fragments lane by lane).
class RegisterIndex {
 public:
  explicit RegisterIndex(const layout::LinearLayout& l);
  int32_t at(const ir::Op& op, const std::vector<int32_t>& coords) const;

 private:
  std::map<std::vector<int32_t>, int32_t> index_;
};

// One 32-bit fragment register from 32 / bits elements (lowest index in the low bits): one tf32 (the f32
// rounded), two 16-bit or four 8-bit elements.
ptx::Reg packFragment(ptx::Entry& e, ir::Scalar t, const std::vector<ptx::Reg>& el);

}  // namespace kiln::lower
