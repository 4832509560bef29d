// The shared-memory tiles wgmma reads through matrix descriptors (PTX ISA "Shared Memory Matrix Layout",
// PTX-NOTES §9): rows of 32, 64 or 128 bytes along the contiguous dim, the 16-byte chunks of each
// 128-byte line XORed with the line index (the hardware swizzle on absolute address bits), the other dim
// row after row, and tiles wider than one row stored as column blocks one after another.
#pragma once
#include <cstdint>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

struct WgmmaTile {
  std::vector<int64_t> shape;  // [rows, cols] of the operand as the dot sees it
  std::vector<int32_t> order;  // order[0]: the contiguous dim
  int elemBytes = 2;
  // The row of one swizzle atom along order[0]: the contiguous extent in bytes, at most 128; 0 when
  // below 32 bytes (no swizzled canonical layout holds the tile).
  int swizzleBytes() const;
  int64_t rows() const { return shape[size_t(order[1])]; }
  int64_t elemsPerRow() const { return swizzleBytes() / elemBytes; }
  // Bytes between successive column blocks (each `rows` rows of swizzleBytes()).
  int64_t blockBytes() const { return rows() * swizzleBytes(); }
  // The byte offset of element (coords) of the unswizzled arrangement, the address a descriptor's
  // start takes for a sub-tile there: rows of 8 stay on their swizzle atom.
  int64_t byteOffset(const std::vector<int64_t>& coords) const;
};

// Offset (elements) -> coordinates of the tile in that arrangement, swizzle included. The buffer must
// start on a multiple of 8 x swizzleBytes() bytes (the pattern's repeat) so that the descriptors' base
// offset is 0.
LinearLayout wgmmaShared(const WgmmaTile& t);

}  // namespace kiln::layout
