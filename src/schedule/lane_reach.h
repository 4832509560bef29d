// Whether the lanes of a loaded tile past a bound reach memory, for TMA copies of wrapped pointer tiles
// (tma_versioning.h).
//
// The tutorial matmul reads rows (pid_m * BM + i) % M of A: in a program at the bottom edge the rows past
// M wrap round to the top of A. Row i of the product depends on row i of A alone, and the store writes
// row i only where its mask holds `pid_m * BM + i < M`; so what the wrapped rows hold never reaches
// memory, and a TMA copy may zero-fill them (TMA's extent M) instead of wrapping, with no check that the
// wrap is the identity. The same holds for B's columns past N.
//
// The lanes are followed from the load through element-wise ops, layout conversions and hints, dots (a
// lane of A's rows is the product's row, a lane of B's columns its column; A's columns or B's rows mix
// into every lane, so they may not be followed), reductions along another dim (a row sum of the
// product), expand_dims and broadcasts of other dims, loop-carried and yielded values, to stores whose
// mask has the conjunct `start + arange < bound` along each dim they are followed in, with the same
// start and bound. Any other use (a reduction along their dim, a transposition, a pointer, mask or
// scalar computed from them, an atomic) means they may reach memory.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "schedule/scalar_form.h"

namespace kiln::schedule {

class LaneReach {
 public:
  explicit LaneReach(const ir::Function& fn);

  // Whether the lanes i of `loaded` (a load's result in `loop`'s body) along `dim` where start + i >=
  // bound (forms over values defined before the loop) reach no global write.
  bool pastBoundUnwritten(const ir::Op& loop, const ir::Value& loaded, int dim, const ScalarForm& start,
                          const ScalarForm& bound) const;

 private:
  struct Use {
    const ir::Op* op;
    unsigned operand;
  };
  std::unordered_map<const ir::Value*, std::vector<Use>> uses_;
};

}  // namespace kiln::schedule
