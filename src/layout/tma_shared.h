// The shared-memory arrangement TMA copies write (cp.async.bulk.tensor into shared memory, PTX-NOTES §10):
// a tile of `shape` filled by boxes of `shape` with the contiguous dim cut to `boxInner` elements, one
// box after another along that dim, each box row-major, the 16-byte chunks of each 128-byte line XORed
// with the line index when the map swizzles (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B, on absolute address bits).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

struct TmaTile {
  std::vector<int64_t> shape;  // the slot, outermost first (rank 1..5), powers of two
  int64_t boxInner = 0;        // the box's contiguous extent in elements; divides shape.back()
  int elemBytes = 2;
  int swizzle = 0;             // 0, 32, 64 or 128 bytes
  int64_t boxBytes() const;    // one box: the bytes between successive boxes
  // The alignment the slot's first byte needs: 128 bytes (TMA's), or the swizzle pattern's repeat
  // (8 lines of 128 bytes cycle through `swizzle / 16` XOR values: 256, 512, 1024 bytes).
  int64_t alignment() const;
  // "" when the copies can write this tile, else why not (a sentence).
  std::string unsupported() const;
};

// Offset (elements) -> coordinates of the tile in that arrangement. The tile must be supported
// (unsupported() == "") and its first byte aligned as alignment() says.
LinearLayout tmaShared(const TmaTile& t);

}  // namespace kiln::layout
