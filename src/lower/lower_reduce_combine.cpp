// reduce_combine: a reduction with the op's combine region, combining in axis order (the operand layout
// holds the axis in order, layout/axis_bits.h) so that any associative combine, commutative or not,
// gives the interpreter's result (floats up to rounding order): each thread folds its consecutive
// registers, lanes pair up by butterfly shuffles with the lower lane's value first, and the partials of
// the warps and of the layout's repeats along the axis are folded in axis order after shared memory.
#include "lower/combine_region.h"
#include "lower/linear_emit.h"

namespace kiln::lower {

using ptx::Reg;
using ptx::RegClass;

void lowerReduceCombine(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const CombineInput in = combineInput(cg, op);
  const layout::AxisBits& bits = in.bits;
  const int32_t rows = in.rows, groups = in.groups, lows = in.lows;
  Combiner comb(cg, op);

  // 1. In each thread: the fold of each chunk, partial[group][row].
  std::vector<std::vector<Tuple>> partial(static_cast<size_t>(groups), std::vector<Tuple>(static_cast<size_t>(rows)));
  for (int32_t g = 0; g < groups; ++g)
    for (int32_t s = 0; s < rows; ++s) {
      Tuple acc;
      for (int32_t j = 0; j < lows; ++j) {
        Tuple x = in.at(registerIndex(bits, s, g, j));
        acc = j == 0 ? x : comb.combine(acc, x);
      }
      partial[size_t(g)][size_t(s)] = acc;
    }

  // 2. Across lanes, lowest axis bit first: the lane whose bit is clear holds the earlier elements.
  for (int k = 0; k < bits.lanes; ++k) {
    const int bit = bits.laneFirst + k;
    Reg upper = e.reg(RegClass::Pred), b = e.reg(RegClass::B32);
    e.inst("bfe.u32", {b, cg.lane(), bit, 1});
    e.inst("setp.ne.u32", {upper, b, 0});
    for (auto& perRow : partial)
      for (Tuple& p : perRow) {
        Tuple other = comb.shuffle(ptx::ShflMode::Bfly, p, ptx::Operand(int64_t(1) << bit));
        Tuple earlier = comb.select(upper, other, p);
        Tuple later = comb.select(upper, p, other);
        p = comb.combine(earlier, later);
      }
  }

  // 3. The partials of the warps and of the repeats along the axis, folded in axis order.
  std::vector<Tuple> result(static_cast<size_t>(rows));
  if (bits.warps > 0) {
    const int slots = 1 << bits.warps;
    Reg slot = e.reg(RegClass::B32);
    e.inst("bfe.u32", {slot, cg.warp(), bits.warpFirst, bits.warps});
    auto loaded = exchangeWarps(cg, op, comb.types(), rowsOf(cg, *in.layout, in.axis, bits), slot, slots, partial, Reg{});
    for (int32_t s = 0; s < rows; ++s)
      for (int32_t g = 0; g < groups; ++g)
        for (int w = 0; w < slots; ++w) {
          const Tuple& x = loaded[size_t(g)][size_t(w)][size_t(s)];
          result[size_t(s)] = g == 0 && w == 0 ? x : comb.combine(result[size_t(s)], x);
        }
  } else {
    for (int32_t s = 0; s < rows; ++s)
      for (int32_t g = 0; g < groups; ++g)
        result[size_t(s)] = g == 0 ? partial[0][size_t(s)] : comb.combine(result[size_t(s)], partial[size_t(g)][size_t(s)]);
  }

  // The result's registers are the rows, in the order sliceLayout keeps the register bits.
  for (size_t k = 0; k < op.numResults(); ++k) {
    const ir::Value* y = op.result(unsigned(k));
    if (Codegen::numRegs(y->type) != rows)
      codegenBug(op, "result " + y->type.str() + " has " + std::to_string(Codegen::numRegs(y->type)) +
                         " registers for " + std::to_string(rows) + " rows");
    std::vector<Reg> out;
    for (const Tuple& t : result) out.push_back(t[k]);
    cg.bind(y, std::move(out));
  }
}

}  // namespace kiln::lower
