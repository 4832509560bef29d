// wgmma's shared-memory tiles (layout/wgmma_shared.h).
#include "layout/wgmma_shared.h"

#include <algorithm>
#include <bit>
#include <string>

#include "layout/gf2.h"
#include "layout/named_layouts.h"

namespace kiln::layout {

int WgmmaTile::swizzleBytes() const {
  const int64_t bytes = shape.at(size_t(order.at(0))) * elemBytes;
  return bytes < 32 ? 0 : int(std::min<int64_t>(128, bytes));
}

int64_t WgmmaTile::byteOffset(const std::vector<int64_t>& coords) const {
  const int64_t c = coords.at(size_t(order[0])), r = coords.at(size_t(order[1])), e = elemsPerRow();
  return (c / e) * blockBytes() + r * swizzleBytes() + (c % e) * elemBytes;
}

LinearLayout wgmmaShared(const WgmmaTile& t) {
  if (t.shape.size() != 2 || t.order.size() != 2) layoutBug("wgmmaShared: a rank-2 tile");
  const int w = t.swizzleBytes();
  if (w == 0 || !std::has_single_bit(uint32_t(t.elemBytes)) || t.elemBytes > 16)
    layoutBug("wgmmaShared: the contiguous extent is below 32 bytes or the element size is odd");
  for (int64_t s : t.shape)
    if (!std::has_single_bit(uint64_t(s))) layoutBug("wgmmaShared: shape is not powers of two");
  if (t.rows() < 8) layoutBug("wgmmaShared: fewer than 8 rows");
  // The unswizzled arrangement: element offset bits -> coordinates.
  const int32_t c = t.order[0], r = t.order[1];
  const int64_t e = t.elemsPerRow();
  std::vector<Basis> plain;
  auto unit = [&](int32_t dim, int64_t v) {
    Basis b(2, 0);
    b[size_t(dim)] = int32_t(v);
    return b;
  };
  for (int64_t v = 1; v < e; v *= 2) plain.push_back(unit(c, v));
  for (int64_t v = 1; v < t.rows(); v *= 2) plain.push_back(unit(r, v));
  for (int64_t v = e; v < t.shape[size_t(c)]; v *= 2) plain.push_back(unit(c, v));
  // Physical byte address a holds the element the unswizzled arrangement puts at
  // a ^ (((a >> 7) & (w / 16 - 1)) << 4): the swizzle is an involution on address bits.
  auto plainAt = [&](int64_t elemOffset) {
    Basis x(2, 0);
    for (size_t bit = 0; bit < plain.size(); ++bit)
      if (elemOffset >> bit & 1)
        for (size_t d = 0; d < 2; ++d) x[d] ^= plain[bit][d];
    return x;
  };
  InDim offset{std::string(kOffset), {}};
  for (size_t bit = 0; bit < plain.size(); ++bit) {
    const int64_t a = int64_t(t.elemBytes) << bit;
    const int64_t logical = a ^ (((a >> 7) & (w / 16 - 1)) << 4);
    offset.bases.push_back(plainAt(logical / t.elemBytes));
  }
  std::vector<OutDim> outs{{dimName(0), int32_t(t.shape[0])}, {dimName(1), int32_t(t.shape[1])}};
  return LinearLayout({offset}, std::move(outs));
}

}  // namespace kiln::layout
