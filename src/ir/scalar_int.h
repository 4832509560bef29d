// Integer element helpers shared by scalar_convert.cpp and scalar_eval.cpp: the mask of a type's width
// and the wrap of a 64-bit pattern to that width, re-extended by the type's signedness.
#pragma once
#include <cstdint>

#include "ir/scalar_eval.h"

namespace kiln::ir::detail {

inline uint64_t widthMask(Scalar t) {
  int w = bitWidth(t);
  return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
}

inline Elem wrapInt(Scalar t, uint64_t bits) {
  int w = bitWidth(t);
  Elem e;
  if (w >= 64) {
    e.u = bits;
  } else {
    bits &= widthMask(t);
    if (isSigned(t) && (bits >> (w - 1)) & 1) bits |= ~widthMask(t);
    e.u = bits;
  }
  return e;
}

}  // namespace kiln::ir::detail
