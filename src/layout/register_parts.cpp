// What the registers of a distributed layout hold (see register_parts.h).
#include "layout/register_parts.h"

namespace kiln::layout {

int32_t inDimSize(const LinearLayout& l, std::string_view dim) { return l.hasInDim(dim) ? l.getInDimSize(dim) : 1; }

std::vector<int32_t> registerCoords(const LinearLayout& l, int32_t r) {
  std::vector<int32_t> c;
  for (int j = 0; j < int(l.outs().size()); ++j) c.push_back(registerPart(l, r, j));
  return c;
}

std::vector<uint64_t> registerImages(const LinearLayout& l) {
  if (!l.hasInDim(kRegister)) return {0};
  const InDim& d = l.ins()[size_t(l.inDimIndex(kRegister))];
  // Coordinates are in range, so flattening is linear: an image is the XOR of its set bits' images.
  std::vector<uint64_t> out(size_t(1) << d.bases.size(), 0);
  for (size_t b = 0; b < d.bases.size(); ++b) {
    const uint64_t bit = l.flattenOut(d.bases[b]);
    const size_t step = size_t(1) << b;
    for (size_t r = step; r < 2 * step; ++r) out[r] = out[r - step] ^ bit;
  }
  return out;
}

int32_t registerPart(const LinearLayout& l, int32_t r, int out) {
  if (!l.hasInDim(kRegister)) return 0;
  const InDim& d = l.ins()[size_t(l.inDimIndex(kRegister))];
  int32_t v = 0;
  for (size_t b = 0; b < d.bases.size(); ++b)
    if (r >> b & 1) v ^= d.bases[b][size_t(out)];
  return v;
}

int32_t threadMask(const LinearLayout& l, int out) {
  int32_t m = 0;
  for (std::string_view dim : {kLane, kWarp}) {
    if (!l.hasInDim(dim)) continue;
    for (const Basis& b : l.ins()[size_t(l.inDimIndex(dim))].bases) m |= b[size_t(out)];
  }
  return m;
}

UniqueRegisters uniqueRegisters(const LinearLayout& l) {
  if (!l.hasInDim(kRegister)) return {l, {0}};
  int32_t freeMask = l.getFreeVariableMasks().get(kRegister);
  std::vector<InDim> ins = l.ins();
  InDim& reg = ins[size_t(l.inDimIndex(kRegister))];
  std::vector<int> kept;
  std::vector<Basis> bases;
  for (size_t b = 0; b < reg.bases.size(); ++b)
    if (!(freeMask >> b & 1)) {
      kept.push_back(int(b));
      bases.push_back(reg.bases[b]);
    }
  reg.bases = std::move(bases);
  UniqueRegisters u{LinearLayout(std::move(ins), l.outs()), {}};
  for (int32_t c = 0; c < (int32_t(1) << kept.size()); ++c) {
    int32_t r = 0;
    for (size_t i = 0; i < kept.size(); ++i)
      if (c >> i & 1) r |= int32_t(1) << kept[i];
    u.original.push_back(r);
  }
  return u;
}

}  // namespace kiln::layout
