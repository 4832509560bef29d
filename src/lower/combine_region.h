// What the scan and the ordered reduction (reduce_combine) lowerings share: the combine region lowered
// op by op on tuples of registers (one register per operand), tuple shuffles and selects, the rows of a
// tile along an axis, and the exchange of per-warp partials through shared memory.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/ir.h"
#include "layout/axis_bits.h"
#include "lower/codegen.h"
#include "ptx/warp.h"

namespace kiln::lower {

using Tuple = std::vector<ptx::Reg>;  // one register per operand of the op

class Combiner {
 public:
  Combiner(Codegen& cg, const ir::Op& op);  // op: reduce_combine or scan
  // The region's ops lowered again with its arguments bound to (acc, x): f(acc, x). Where `valid` (a
  // .pred) is false the result is discarded, and the region's asserts must not fire there.
  Tuple combine(const Tuple& acc, const Tuple& x, ptx::Reg valid = {});
  Tuple select(ptx::Reg pred, const Tuple& ifTrue, const Tuple& ifFalse);
  Tuple shuffle(ptx::ShflMode mode, const Tuple& v, ptx::Operand lane);
  const std::vector<ir::Scalar>& types() const { return types_; }

 private:
  Codegen& cg_;
  const ir::Op& op_;
  std::vector<ir::Scalar> types_;
};

// What both lowerings start from: the operands' layout, which holds the axis in order, its bits, and the
// operands' registers. A register index is (row, group, low): rows move along other dims, groups are the
// high register bits along the axis (the layout's repeats), lows the thread's consecutive elements.
struct CombineInput {
  const layout::LinearLayout* layout = nullptr;
  int axis = 0;
  layout::AxisBits bits;
  std::vector<std::vector<ptx::Reg>> regs;  // per operand
  int32_t rows = 1, groups = 1, lows = 1;
  Tuple at(int32_t r) const;                 // register index r of every operand
};
CombineInput combineInput(Codegen& cg, const ir::Op& op);

// A register index of an axis-ordered layout from its parts: `row` over bits.regOther, `group` over
// bits.regHigh, `low` over bits.regLow (bits that duplicate data stay 0).
int32_t registerIndex(const layout::AxisBits& bits, int32_t row, int32_t group, int32_t low);
// The inverse for every register index: its (row, group, low) parts.
struct RegisterParts {
  int32_t row, group, low;
};
RegisterParts registerParts(const layout::AxisBits& bits, int32_t r);

// The rows of a tile along `axis` (the elements of the tile without it, row-major): where each thread's
// rows lie, for a shared-memory exchange.
struct Rows {
  ptx::Reg thread;                 // the lane and warp part of the flat row index (.b32)
  int32_t threadMask = 0;          // the bits it can set
  std::vector<int64_t> registers;  // per row of bits.regOther: its register part
  int64_t count = 1;               // rows in the tile
};
Rows rowsOf(Codegen& cg, const layout::LinearLayout& l, int axis, const layout::AxisBits& bits);

// Warp slot `slot` (.b32, one of `slots`) stores values[g][s] (group g, row s) where `guard` holds (always
// when invalid) at [(g * slots + slot) * rows.count + row]; after a barrier every thread loads every slot
// of its rows: result[g][w][s], through `op`'s scratch. No barrier follows the loads (insert_barriers puts
// one before a later write to those bytes).
std::vector<std::vector<std::vector<Tuple>>> exchangeWarps(Codegen& cg, const ir::Op& op,
                                                           const std::vector<ir::Scalar>& types,
                                                           const Rows& rows, ptx::Reg slot, int slots,
                                                           const std::vector<std::vector<Tuple>>& values,
                                                           ptx::Reg guard);

}  // namespace kiln::lower
