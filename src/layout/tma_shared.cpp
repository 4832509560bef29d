// The arrangement TMA copies write into shared memory (layout/tma_shared.h).
#include "layout/tma_shared.h"

#include <algorithm>
#include <bit>

#include "layout/gf2.h"

namespace kiln::layout {

int64_t TmaTile::boxBytes() const {
  int64_t n = boxInner * elemBytes;
  for (size_t d = 0; d + 1 < shape.size(); ++d) n *= shape[d];
  return n;
}

int64_t TmaTile::alignment() const { return swizzle ? std::max<int64_t>(128, 8 * int64_t(swizzle)) : 128; }

std::string TmaTile::unsupported() const {
  if (shape.empty() || shape.size() > 5) return "a TMA tile has 1 to 5 dims";
  for (int64_t s : shape)
    if (s < 1 || !std::has_single_bit(uint64_t(s))) return "the tile's dims must be powers of two";
  if (boxInner < 1 || !std::has_single_bit(uint64_t(boxInner)) || shape.back() % boxInner)
    return "the box's contiguous extent must be a power of two dividing the tile's";
  if (elemBytes < 1 || elemBytes > 8 || !std::has_single_bit(unsigned(elemBytes))) return "odd element size";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) return "swizzle must be 0, 32, 64 or 128";
  if (swizzle && boxInner * elemBytes != swizzle)
    return "with a " + std::to_string(swizzle) + "-byte swizzle the box's contiguous dim must span exactly " +
           std::to_string(swizzle) + " bytes, not " + std::to_string(boxInner * elemBytes);
  return "";
}

LinearLayout tmaShared(const TmaTile& t) {
  if (std::string why = t.unsupported(); !why.empty()) layoutBug("tmaShared: " + why);
  const size_t rank = t.shape.size(), inner = rank - 1;
  // The unswizzled arrangement, offset bit by offset bit: the box's contiguous run, its other dims
  // innermost first, then the boxes along the contiguous dim.
  std::vector<Basis> plain;
  auto unit = [&](size_t dim, int64_t v) {
    Basis b(rank, 0);
    b[dim] = int32_t(v);
    return b;
  };
  for (int64_t v = 1; v < t.boxInner; v *= 2) plain.push_back(unit(inner, v));
  for (size_t d = inner; d-- > 0;)
    for (int64_t v = 1; v < t.shape[d]; v *= 2) plain.push_back(unit(d, v));
  for (int64_t v = t.boxInner; v < t.shape[inner]; v *= 2) plain.push_back(unit(inner, v));
  auto plainAt = [&](int64_t elemOffset) {
    Basis x(rank, 0);
    for (size_t bit = 0; bit < plain.size(); ++bit)
      if (elemOffset >> bit & 1)
        for (size_t d = 0; d < rank; ++d) x[d] ^= plain[bit][d];
    return x;
  };
  // Physical byte a holds the byte the unswizzled arrangement puts at a ^ (((a >> 7) & (swizzle/16 - 1)) << 4):
  // the swizzle is an involution on address bits, linear over GF(2).
  const int64_t lineMask = t.swizzle ? t.swizzle / 16 - 1 : 0;
  InDim offset{std::string(kOffset), {}};
  for (size_t bit = 0; bit < plain.size(); ++bit) {
    const int64_t a = int64_t(t.elemBytes) << bit;
    const int64_t logical = a ^ (((a >> 7) & lineMask) << 4);
    offset.bases.push_back(plainAt(logical / t.elemBytes));
  }
  std::vector<OutDim> outs;
  for (size_t d = 0; d < rank; ++d) outs.push_back({dimName(int(d)), int32_t(t.shape[d])});
  return LinearLayout({offset}, std::move(outs));
}

}  // namespace kiln::layout
