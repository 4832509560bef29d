// ldmatrix (and its inverse stmatrix) as linear layouts, and the plan that loads a register layout
// (typically an mma operand) from a shared layout with ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

// Out dims of the ldmatrix layouts: the stored 8x(16 bytes) matrices. "row" is an addressed row,
// "col" an element inside its 16 contiguous bytes (128 / elemBits of them).
inline constexpr std::string_view kMatrix = "matrix", kRow = "row", kCol = "col";

// What ldmatrix.x{numMatrices} delivers: (register, lane) -> (matrix, row, col), registers counted in
// elements of elemBits (8, 16 or 32; 32 / elemBits per 32-bit register). Without .trans lane l gets row
// l / 4, bytes 4(l % 4) .. +3 of each matrix; with .trans (16-bit only) it gets rows 2(l % 4), 2(l % 4)+1
// of column l / 4. Register bits above the first 32-bit register select the matrix.
LinearLayout ldmatrixTile(int numMatrices, int elemBits, bool trans);

// lane -> (matrix, row, col = 0): lane l supplies the address of row l % 8 of matrix l / 8; lanes past
// 8 * numMatrices are ignored by the hardware and here repeat lane l % (8 * numMatrices).
LinearLayout ldmatrixRowAddresses(int numMatrices, int elemBits);

struct LdmatrixPlan {
  int numMatrices = 0;      // 1, 2 or 4
  bool trans = false;
  int32_t elemsPerInstr = 0;  // instruction q fills registers [q * elemsPerInstr, (q + 1) * elemsPerInstr)
  // (register = instruction index q, lane, warp) -> shared offset (elements) of the row the lane
  // supplies; every value is a multiple of the row length (16 bytes), so the address is aligned.
  LinearLayout rowOffsets;
};

// How to fill register layout `regs` from shared layout `shared` (same tile) with ldmatrix: the widest
// x4/x2/x1, plain before .trans; nullopt when the lanes' fragments do not sit in 16-byte rows of shared
// memory. Lanes must number 32.
std::optional<LdmatrixPlan> planLdmatrix(const LinearLayout& regs, const LinearLayout& shared, int elemBits);

// planLdmatrix for many shared layouts (a scratch-layout search): the inverted ldmatrix tiles and the
// row-address layouts are built once, and plan() takes offsets = sharedOffsets(regs, shared).
class LdmatrixPlanner {
 public:
  explicit LdmatrixPlanner(int elemBits);
  // The planner of 8-, 16- or 32-bit elements, built once per process (its tiles are constants).
  static const LdmatrixPlanner& of(int elemBits);
  std::optional<LdmatrixPlan> plan(const LinearLayout& offsets) const;
  // Whether plan() may succeed on a one-out-dim offsets layout whose register and lane bits reach these
  // offsets (its first test, without building the layout): false means it returns nothing.
  bool mayPlan(std::span<const int64_t> registerOffsets, std::span<const int64_t> laneOffsets) const;

 private:
  int elemBits_;
  // Index numIndex(num) * 2 + trans: (matrix, row, col) -> (register, lane), and lane -> (matrix, row, col).
  std::vector<LinearLayout> invertedTiles_, rowAddresses_;
};

}  // namespace kiln::layout
