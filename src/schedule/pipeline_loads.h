// Which loads of a `for` loop the pipeline pass takes (schedule/pipeline.cpp): a pure walk over the GPU
// IR, no decisions about shared memory yet.
#pragma once
#include <vector>

#include "ir/ir.h"

namespace kiln::schedule {

// A block argument of the loop body that the body yields back advanced by a loop-invariant amount that
// is the same for every element: ptr_add(arg, step) or add(arg, step).
struct Advancing {
  const ir::Value* arg = nullptr;
  const ir::Value* step = nullptr;
  bool pointer = false;
};

struct PipelineCandidate {
  const ir::Op* load = nullptr;
  // Its only user, a convert_layout to a dot operand (read from the slot by the dot), or the load itself
  // when dots read it in its own layout, or null: the load is read back into its own registers where
  // it stands (loops with an explicit num_stages).
  const ir::Op* convert = nullptr;
  // A permute between the load and its convert (or the dots): `b.T` of a tile loaded K-contiguous. The
  // slot holds the tile as loaded; the dots read it through a shared_permute view of the slot.
  const ir::Op* permute = nullptr;
  std::vector<const ir::Op*> slice;        // body ops its pointer and mask depend on, in body order
  // A tensor-descriptor load carrying its TMA description (docs/ir.md, "load") whose coordinates the
  // slice also computes: the pipeline may copy it with TMA instead.
  bool tmaCoords = false;
};

struct LoopLoads {
  std::vector<PipelineCandidate> loads;
  std::vector<Advancing> advancing;  // every advancing argument a slice reads
  bool readsInductionVariable = false;
};

// The dots that can drive a loop's synchronisation: when every load in `loads` is read by one dot at
// the top level of the body (through its convert_layout, as operand a or b), the last of those dots in
// body order (it drives) and the first (the loads it reads carry their first k-slice over the back
// edge). Both null otherwise. A matmul loop has one dot; attention's has q @ k and p @ v.
struct DrivingDots {
  const ir::Op* last = nullptr;
  const ir::Op* first = nullptr;
};
DrivingDots drivingDots(const ir::Op& forOp, const LoopLoads& loads);

// The loads of `forOp`'s body whose pointer and mask are computed in the body from loop invariants,
// the induction variable and advancing arguments only, and whose result either only feeds tl.dot
// through a convert_layout (with `other` absent or zero; a 2-d permute may come first) or, when the
// loop has an explicit num_stages attribute, is used in any way.
LoopLoads findPipelineLoads(const ir::Op& forOp);

// The pipelining depth of `forOp`: its num_stages attribute (tl.range), else `defaultStages`.
int pipelineStages(const ir::Op& forOp, int defaultStages);

}  // namespace kiln::schedule
