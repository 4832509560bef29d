// Where the coordinate bits of one tile dim lie in a register layout, for the lowerings that must
// combine elements in axis order (scans, reductions with a combine region): low register bits, then
// lane bits, then warp bits, then high register bits, each in increasing order along the axis.
#pragma once
#include <optional>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

// Every coordinate bit j of the axis comes from exactly one input bit whose basis is 2^j along the axis
// and 0 along every other dim; every other input bit is 0 along the axis. Listed in axis order.
struct AxisBits {
  std::vector<int> regLow;         // register bits below the lanes and warps
  int laneFirst = 0, lanes = 0;    // lane bits laneFirst .. laneFirst + lanes - 1 (consecutive)
  int warpFirst = 0, warps = 0;    // warp bits warpFirst .. warpFirst + warps - 1 (consecutive)
  std::vector<int> regHigh;        // register bits above them (a blocked layout's repeats)
  std::vector<int> regOther;       // the register bits that move along other dims (rows), in order
};

// nullopt when `l` (in dims register, lane, warp) does not hold `axis` that way.
std::optional<AxisBits> axisBits(const LinearLayout& l, int axis);

}  // namespace kiln::layout
