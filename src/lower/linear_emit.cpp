// Per-thread arithmetic for linear layouts (see linear_emit.h).
#include "lower/linear_emit.h"

#include <bit>

#include "support/diagnostic.h"

namespace kiln::lower {

using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;

int memBytes(ir::Scalar t) { return t == ir::Scalar::I1 ? 1 : ir::bitWidth(t) / 8; }

Reg linearOf(Codegen& cg, Reg x, const std::vector<int32_t>& columns) {
  ptx::Entry& e = cg.e;
  Reg acc;
  auto accumulate = [&](Reg t) {
    if (!acc.valid()) {
      acc = t;
      return;
    }
    Reg s = e.reg(RegClass::B32);
    e.inst("xor.b32", {s, acc, t});
    acc = s;
  };
  size_t b = 0;
  while (b < columns.size()) {
    int32_t c = columns[b];
    if (c == 0) {
      ++b;
      continue;
    }
    Reg t = e.reg(RegClass::B32);
    if (std::has_single_bit(uint32_t(c))) {
      // A run of input bits landing on consecutive output bits moves with one mask and one shift.
      size_t n = 1;
      while (b + n < columns.size() && n < 30 && int64_t(columns[b + n]) == (int64_t(c) << n)) ++n;
      int s = std::countr_zero(uint32_t(c));
      e.inst("and.b32", {t, x, int64_t(((int64_t(1) << n) - 1) << b)});
      if (s > int(b)) e.inst("shl.b32", {t, t, s - int(b)});
      if (s < int(b)) e.inst("shr.u32", {t, t, int(b) - s});
      b += n;
    } else {
      e.inst("bfe.u32", {t, x, int(b), 1});
      e.inst("mul.lo.u32", {t, t, int64_t(c)});
      ++b;
    }
    accumulate(t);
  }
  if (!acc.valid()) {
    acc = e.reg(RegClass::B32);
    e.inst("mov.b32", {acc, 0});
  }
  return acc;
}

Reg threadPart(Codegen& cg, const LinearLayout& l, int out) {
  ptx::Entry& e = cg.e;
  Reg parts[2];
  int n = 0;
  for (std::string_view dim : {layout::kLane, layout::kWarp}) {
    if (!l.hasInDim(dim)) continue;
    std::vector<int32_t> columns;
    bool any = false;
    for (const layout::Basis& b : l.ins()[size_t(l.inDimIndex(dim))].bases) {
      columns.push_back(b[size_t(out)]);
      any = any || b[size_t(out)] != 0;
    }
    if (any) parts[n++] = linearOf(cg, dim == layout::kLane ? cg.lane() : cg.warp(), columns);
  }
  if (n == 0) return linearOf(cg, cg.lane(), {});
  if (n == 1) return parts[0];
  Reg s = e.reg(RegClass::B32);
  e.inst("xor.b32", {s, parts[0], parts[1]});
  return s;
}

SharedAddresses::SharedAddresses(Codegen& cg, Reg base, Reg threadOffset, int32_t threadMask, int bytes)
    : cg_(cg), base_(base), threadOffset_(threadOffset), threadMask_(threadMask), bytes_(bytes) {}

SharedAddresses::Address SharedAddresses::at(int64_t regOffset) {
  // threadOffset ^ regOffset == (threadOffset ^ (regOffset & mask)) + (regOffset & ~mask): one address
  // register per distinct overlapping part, the rest an immediate.
  ptx::Entry& e = cg_.e;
  const int64_t overlap = regOffset & threadMask_, rest = regOffset & ~int64_t(threadMask_);
  auto it = addresses_.find(overlap);
  if (it == addresses_.end()) {
    Reg t = threadOffset_;
    if (overlap != 0) {
      t = e.reg(RegClass::B32);
      e.inst("xor.b32", {t, threadOffset_, overlap});
    }
    Reg a = e.reg(RegClass::B32);
    e.inst("mad.lo.u32", {a, t, bytes_, base_});
    it = addresses_.emplace(overlap, a).first;
  }
  return {it->second, rest * bytes_};
}

}  // namespace kiln::lower
