// Conversions staged in rounds (scratch_layout.h, ScratchRounds): the coordinate bits that split a tile
// too large for its scratch into rounds, and the layouts of one round.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "layout/scratch_layout.h"

namespace kiln::layout {

int32_t ScratchRounds::expand(int32_t r, int32_t c, const std::vector<int>& bits) {
  // c's bit k goes to position bits[k]; r's bits fill the other positions, low to high.
  int32_t out = 0;
  for (size_t k = 0; k < bits.size(); ++k)
    if (c >> k & 1) out |= int32_t(1) << bits[k];
  int i = 0;
  for (int pos = 0; pos < 31 && (r >> i) != 0; ++pos) {
    if (std::find(bits.begin(), bits.end(), pos) != bits.end()) continue;
    if (r >> i & 1) out |= int32_t(1) << pos;
    ++i;
  }
  return out;
}

namespace {

// The register bit of `l` whose flattened image is exactly out bit o, when no other input bit of `l`
// touches o; -1 otherwise.
int soleRegisterBit(const LinearLayout& l, int o) {
  int found = -1;
  for (const layout::InDim& d : l.ins())
    for (size_t b = 0; b < d.bases.size(); ++b) {
      uint64_t f = l.flattenOut(d.bases[b]);
      if (!(f >> o & 1)) continue;
      if (d.name != layout::kRegister || f != (uint64_t(1) << o) || found >= 0) return -1;
      found = int(b);
    }
  return found;
}

// `l` without the register bits `regBits` and the flattened out bits `outBits` (all split bits).
LinearLayout withoutBits(const LinearLayout& l, const std::vector<int>& regBits, const std::vector<int>& outBits) {
  std::vector<layout::OutDim> outs = l.outs();
  std::vector<int> dimOf, bitOf;  // flattened out bit -> (dim, bit within dim)
  for (size_t j = 0; j < outs.size(); ++j)
    for (int b = 0; (int32_t(1) << b) < outs[j].size; ++b) dimOf.push_back(int(j)), bitOf.push_back(b);
  auto isSplit = [&](int o) { return std::find(outBits.begin(), outBits.end(), o) != outBits.end(); };
  for (int o : outBits) outs[size_t(dimOf[size_t(o)])].size /= 2;
  auto reduce = [&](const layout::Basis& b) {
    uint64_t f = l.flattenOut(b);
    layout::Basis r(outs.size(), 0);
    std::vector<int> next(outs.size(), 0);
    for (int o = 0; o < int(dimOf.size()); ++o) {
      if (isSplit(o)) continue;
      size_t j = size_t(dimOf[size_t(o)]);
      if (f >> o & 1) r[j] |= int32_t(1) << next[j];
      ++next[j];
    }
    return r;
  };
  std::vector<layout::InDim> ins;
  for (const layout::InDim& d : l.ins()) {
    layout::InDim nd{d.name, {}};
    for (size_t b = 0; b < d.bases.size(); ++b) {
      if (d.name == layout::kRegister && std::find(regBits.begin(), regBits.end(), int(b)) != regBits.end()) continue;
      nd.bases.push_back(reduce(d.bases[b]));
    }
    ins.push_back(std::move(nd));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

}  // namespace

ScratchRounds splitIntoRounds(const LinearLayout& srcUnique, const LinearLayout& dstUnique, int64_t maxElements) {
  ScratchRounds r{srcUnique, dstUnique, {}, {}, {}};
  int64_t elements = srcUnique.totalOutSize();
  std::vector<int>& outBits = r.outBits;
  // Candidates from the highest bit of each dim down (the repeats of a tile, not its vectors or
  // fragments), every dim's bit k before any dim's bit k - 1.
  std::vector<std::pair<int, int>> order;  // (bit within its dim, flattened bit)
  int o0 = 0;
  for (const layout::OutDim& d : srcUnique.outs()) {
    int n = std::countr_zero(uint32_t(d.size));
    for (int b = 0; b < n; ++b) order.emplace_back(b, o0 + b);
    o0 += n;
  }
  std::stable_sort(order.begin(), order.end(), [](auto x, auto y) { return x.first > y.first; });
  for (auto [bit, o] : order) {
    if (elements <= maxElements) break;
    int s = soleRegisterBit(srcUnique, o), d = soleRegisterBit(dstUnique, o);
    if (s < 0 || d < 0) continue;
    outBits.push_back(o);
    r.srcBits.push_back(s);
    r.dstBits.push_back(d);
    elements /= 2;
  }
  if (outBits.empty()) return r;
  r.src = withoutBits(srcUnique, r.srcBits, outBits);
  r.dst = withoutBits(dstUnique, r.dstBits, outBits);
  return r;
}

}  // namespace kiln::layout
