// scan: an inclusive scan along one axis with the op's combine region, in the axis order the operand
// layout holds (layout/axis_bits.h): each thread scans its consecutive registers, lanes add the
// prefixes of the lanes before them (Hillis-Steele with shfl.up; shfl.down reversed), warps those of the
// warps before them (their totals through shared memory), and the repeats of the layout along the axis
// (high register bits) carry the totals of the blocks before them. The combine runs as f(earlier, later)
// throughout, so any associative combine gives the interpreter's result (floats up to rounding order).
#include "lower/combine_region.h"
#include "lower/linear_emit.h"

namespace kiln::lower {

using ptx::Reg;
using ptx::RegClass;

namespace {

// The position of this thread along the axis within `count` bits of `index` from `first` (mirrored when
// reversed, so that position 0 always comes first in the scan's order).
Reg positionOf(ptx::Entry& e, Reg index, int first, int count, bool reverse) {
  Reg p = e.reg(RegClass::B32);
  e.inst("bfe.u32", {p, index, first, count});
  if (reverse) e.inst("xor.b32", {p, p, (int64_t(1) << count) - 1});
  return p;
}

Reg atLeast(ptx::Entry& e, Reg p, int64_t v) {
  Reg q = e.reg(RegClass::Pred);
  e.inst("setp.ge.u32", {q, p, v});
  return q;
}

}  // namespace

void lowerScan(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const bool reverse = op.intAttrOr("reverse", 0) != 0;
  const CombineInput in = combineInput(cg, op);
  const layout::AxisBits& bits = in.bits;
  const int32_t rows = in.rows, groups = in.groups, lows = in.lows;
  Combiner comb(cg, op);
  auto inOrder = [&](int32_t step, int32_t count) { return reverse ? count - 1 - step : step; };

  // 1. In each thread: c[row][group][low], and each chunk's total t[group][row].
  std::vector<std::vector<std::vector<Tuple>>> c(static_cast<size_t>(rows), std::vector<std::vector<Tuple>>(static_cast<size_t>(groups)));
  std::vector<std::vector<Tuple>> totals(static_cast<size_t>(groups), std::vector<Tuple>(static_cast<size_t>(rows)));
  for (int32_t s = 0; s < rows; ++s)
    for (int32_t g = 0; g < groups; ++g) {
      std::vector<Tuple>& chunk = c[size_t(s)][size_t(g)];
      chunk.resize(size_t(lows));
      for (int32_t step = 0; step < lows; ++step) {
        const int32_t j = inOrder(step, lows), prev = inOrder(step - 1, lows);
        Tuple x = in.at(registerIndex(bits, s, g, j));
        chunk[size_t(j)] = step == 0 ? x : comb.combine(chunk[size_t(prev)], x);
      }
      totals[size_t(g)][size_t(s)] = chunk[size_t(inOrder(lows - 1, lows))];
    }

  // 2. Across the lanes along the axis: inclusive prefixes of the chunk totals, then each chunk adds the
  // prefix of the lanes before it.
  Reg lastLane;  // the lane holding a warp's total along the axis
  if (bits.lanes > 0) {
    e.comment("scan across lanes");
    const ptx::ShflMode mode = reverse ? ptx::ShflMode::Down : ptx::ShflMode::Up;
    Reg pos = positionOf(e, cg.lane(), bits.laneFirst, bits.lanes, reverse);
    Reg hasPrev = atLeast(e, pos, 1);
    lastLane = e.reg(RegClass::Pred);
    e.inst("setp.eq.u32", {lastLane, pos, (int64_t(1) << bits.lanes) - 1});
    std::vector<Reg> reaches;  // position >= 2^k: the lane 2^k before it exists
    for (int k = 0; k < bits.lanes; ++k) reaches.push_back(k == 0 ? hasPrev : atLeast(e, pos, int64_t(1) << k));
    for (int32_t g = 0; g < groups; ++g)
      for (int32_t s = 0; s < rows; ++s) {
        Tuple& v = totals[size_t(g)][size_t(s)];
        for (int k = 0; k < bits.lanes; ++k) {
          Tuple u = comb.shuffle(mode, v, ptx::Operand(int64_t(1) << (k + bits.laneFirst)));
          v = comb.select(reaches[size_t(k)], comb.combine(u, v, reaches[size_t(k)]), v);
        }
        Tuple before = comb.shuffle(mode, v, ptx::Operand(int64_t(1) << bits.laneFirst));
        for (Tuple& x : c[size_t(s)][size_t(g)]) x = comb.select(hasPrev, comb.combine(before, x, hasPrev), x);
      }
  }

  // 3. Across the warps along the axis: each warp's total (its last lane's) through shared memory; each
  // thread combines the totals of the warps before its own, and of all of them for the block's total.
  std::vector<std::vector<Tuple>> blockTotals = totals;
  if (bits.warps > 0) {
    const int slots = 1 << bits.warps;
    Reg slot = positionOf(e, cg.warp(), bits.warpFirst, bits.warps, reverse);
    Rows rowInfo = rowsOf(cg, *in.layout, in.axis, bits);
    auto loaded = exchangeWarps(cg, op, comb.types(), rowInfo, slot, slots, totals, lastLane);
    std::vector<Reg> after;  // after[w]: this warp comes after warp w (slot >= w + 1)
    for (int w = 0; w + 1 < slots; ++w) after.push_back(atLeast(e, slot, w + 1));
    const Reg hasPrev = after.at(0);
    for (int32_t g = 0; g < groups; ++g)
      for (int32_t s = 0; s < rows; ++s) {
        Tuple running = loaded[size_t(g)][0][size_t(s)], before = running;
        for (int w = 1; w < slots; ++w) {
          if (w == slots - 1 && groups == 1) break;  // only a later block needs the last warp's total
          running = comb.combine(running, loaded[size_t(g)][size_t(w)][size_t(s)]);
          if (w < slots - 1) before = comb.select(after[size_t(w)], running, before);
        }
        blockTotals[size_t(g)][size_t(s)] = running;
        for (Tuple& x : c[size_t(s)][size_t(g)]) x = comb.select(hasPrev, comb.combine(before, x, hasPrev), x);
      }
  } else if (bits.lanes > 0 && groups > 1) {
    // The block's total is its last lane's inclusive prefix.
    Reg src = e.reg(RegClass::B32);
    const int64_t field = ((int64_t(1) << bits.lanes) - 1) << bits.laneFirst;
    e.inst("and.b32", {src, cg.lane(), ~field & 31});
    if (!reverse) e.inst("or.b32", {src, src, field});
    for (auto& perRow : blockTotals)
      for (Tuple& t : perRow) t = comb.shuffle(ptx::ShflMode::Idx, t, ptx::Operand(src));
  }

  // 4. The repeats along the axis: each block after the first adds the total of the blocks before it.
  for (int32_t s = 0; s < rows && groups > 1; ++s) {
    Tuple carry;
    for (int32_t step = 0; step < groups; ++step) {
      const int32_t g = inOrder(step, groups);
      const Tuple& total = blockTotals[size_t(g)][size_t(s)];
      if (step > 0)
        for (Tuple& x : c[size_t(s)][size_t(g)]) x = comb.combine(carry, x);
      carry = step == 0 ? total : comb.combine(carry, total);
    }
  }

  for (size_t k = 0; k < in.regs.size(); ++k) {
    std::vector<Reg> out(in.regs[k].size());
    for (size_t r = 0; r < out.size(); ++r) {
      RegisterParts p = registerParts(bits, int32_t(r));
      out[r] = c[size_t(p.row)][size_t(p.group)][size_t(p.low)][k];
    }
    cg.bind(op.result(unsigned(k)), std::move(out));
  }
}

}  // namespace kiln::lower
