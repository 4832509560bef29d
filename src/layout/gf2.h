// Internal to src/layout: Gaussian elimination over GF(2) on 64-bit vectors, remembering which original
// vectors each basis vector combines (so a membership test also yields a preimage), and the error helper.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <string>

#include "support/diagnostic.h"

namespace kiln::layout {

// A broken precondition of the layout algebra is a kiln bug, never the kernel author's fault.
[[noreturn]] inline void layoutBug(const std::string& message) {
  throw InternalError(SourceLoc{}, "layout: " + message);
}

class EchelonBasis {
 public:
  struct Reduced {
    uint64_t residual;  // 0 iff the vector lies in the span
    uint64_t tag;       // XOR of the tags of the basis vectors used
  };

  // Reduces v against the basis. Each stored vector has a distinct highest bit (its pivot), so
  // clearing pivots from the top down terminates and leaves no pivot bit set in the residual; the
  // residuals form a complement of the span, which makes v -> tag linear.
  Reduced reduce(uint64_t v) const {
    uint64_t tag = 0;
    while (uint64_t hit = v & pivots_) {
      int p = 63 - std::countl_zero(hit);
      v ^= vec_[p];
      tag ^= tag_[p];
    }
    return {v, tag};
  }

  // Adds v, labelled `tag` (a bit mask naming the original vector); false when v is already in the span.
  bool add(uint64_t v, uint64_t tag) {
    Reduced r = reduce(v);
    if (r.residual == 0) return false;
    int p = 63 - std::countl_zero(r.residual);
    vec_[p] = r.residual;
    tag_[p] = tag ^ r.tag;
    pivots_ |= uint64_t(1) << p;
    return true;
  }

  bool contains(uint64_t v) const { return reduce(v).residual == 0; }
  int rank() const { return std::popcount(pivots_); }

 private:
  std::array<uint64_t, 64> vec_{};
  std::array<uint64_t, 64> tag_{};
  uint64_t pivots_ = 0;
};

}  // namespace kiln::layout
