// Software pipelining of the loads that feed tl.dot in a `for` loop (num_stages = S). Unpipelined, each
// iteration loads its tiles from global memory into registers, stores them to shared memory and reads
// them back with ldmatrix, so every iteration waits for the full global latency. Pipelined, each such
// load owns S shared-memory slots and cp.async copies the tile of iteration i + S - 1 while iteration i
// reads its own slot, hiding the latency behind S - 1 iterations of tensor-core work:
//
//   prologue     copy iterations 0 .. S-2 into slots 0 .. S-2, one commit group per iteration
//   iteration i  cp.async.wait_group S-2 (iteration i's group has landed), bar.sync (where every load
//                feeds a dot at the top of the body, inside the previous iteration's last dot:
//                LoopPipeline::beforeLastSlice);
//                copy iteration i+S-1 into slot (i-1) mod S, read in iteration i-1 before the barrier:
//                between the k-slices of the iteration's dot (Codegen::deferUntilMma), else at the load;
//                at its convert_layout: read slot i mod S; at the end: commit the group
//   after        cp.async.wait_group 0, bar.sync (the slots are free again)
//
// The copy for a later iteration is the load's address and mask computation lowered again with the
// induction variable and the values the loop advances by a fixed step moved ahead. Copies of iterations
// past the end are skipped; masked-off elements are zero-filled (so `other` must be absent or zero).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "lower/codegen.h"
#include "lower/scratch_layout.h"
#include "lower/shared_tile.h"

namespace kiln::lower {

// ---- the IR side: which loads of a loop pipeline (pure, no codegen)

// A block argument of the loop body that the body yields back advanced by a loop-invariant amount that
// is the same for every element: ptr_add(arg, step) or add(arg, step).
struct Advancing {
  const ir::Value* arg = nullptr;
  const ir::Value* step = nullptr;
  bool pointer = false;
};

struct PipelineCandidate {
  const ir::Op* load = nullptr;
  // Its only user, a convert_layout to a dot operand (read from the slot by the dot), or null: the load
  // is read back into its own registers where it stands (loops with an explicit num_stages).
  const ir::Op* convert = nullptr;
  std::vector<const ir::Op*> slice;        // body ops its pointer and mask depend on, in body order
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
// through a convert_layout (with `other` absent or zero) or, when the loop has an explicit num_stages
// attribute, is used in any way.
LoopLoads findPipelineLoads(const ir::Op& forOp);

// The pipelining depth of `forOp`: its num_stages attribute (tl.range), else `defaultStages`.
int pipelineStages(const ir::Op& forOp, int defaultStages);


// ---- the code generation side

// The loop counter as forLoop lowers it.
struct LoopCounter {
  ptx::Reg lb, ub, step;
  ir::Scalar type = ir::Scalar::I32;
  std::string cmpType;  // ".s32", ".u32", ".s64"
};

class LoopPipeline;

// One pipelined load: its slots and the plan of the tile in them.
class PipelinedLoad {
 public:
  PipelinedLoad(LoopPipeline& loop, const PipelineCandidate& c, ScratchPlan plan, int32_t vec, int64_t slotBytes,
                int64_t offset);
  // At the load op in the body: copies iteration i + S - 1 into the slot iteration i - 1 read (a load
  // that feeds a dot defers the copy to that dot's k-slices), and, for a load that feeds no dot, binds
  // its result to this iteration's slot read back into registers (`other` where the mask is off).
  void atLoad(Codegen& cg);
  bool feedsDot() const { return c_.convert != nullptr; }
  // At its convert_layout: a reader of this iteration's slot (the dot loads fragments as it needs them).
  std::shared_ptr<SharedTileReader> read(Codegen& cg, const ir::Op& convert);

 private:
  friend class LoopPipeline;
  // Copies the tile whose operands are bound now into the slot at `slotBase`, when `valid`.
  void copy(Codegen& cg, ptx::Reg slotBase, ptx::Reg valid);

  LoopPipeline& loop_;
  PipelineCandidate c_;
  ScratchPlan plan_;
  int32_t vec_;        // elements per cp.async
  int64_t slotBytes_;  // one iteration's tile
  int64_t offset_;     // of slot 0 in the dynamic shared memory
  ptx::Reg readBase_, writeBase_;  // this iteration's slots (.b32 shared addresses)
  // This thread's parts of the slot's store and read offsets: they depend on the thread alone, so the
  // prologue computes them once for every iteration (before any copy).
  ptx::Reg storeThread_, readThread_;
  // In a loop its dot drives: the dot operand's k dimension, the load groups of the dot's first k-slice,
  // the registers that carry them into the iteration, and those the last slice preloads them into.
  int kDim_ = -1, kTile_ = 16;  // -1: not carried (a load of a later dot, or no driving dot)
  std::vector<int32_t> firstGroups_;
  std::vector<std::vector<ptx::Reg>> carried_, next_;
};

class LoopPipeline : public DotDriver {
 public:
  // The pipeline for `forOp`, or null when nothing in it pipelines (or the slots do not fit).
  static std::unique_ptr<LoopPipeline> create(Codegen& cg, const ir::Op& forOp, const LoopCounter& counter);
  ~LoopPipeline() override;

  // Before the loop, with the loop's initial values bound: the copies of iterations 0 .. S-2.
  void prologue(Codegen& cg);
  // At the top of each iteration, with the body's arguments bound.
  void beginIteration(Codegen& cg);
  // At the end of each iteration, before the loop-carried values move.
  void endIteration(Codegen& cg);
  // After the loop, on every path out of it.
  void finish(Codegen& cg);

  // A loop whose loads all feed dots at the top of its body (drivingDots) lets the last of them
  // synchronise it: before the mmas of its last k-slice, the iteration's copies are committed, the next
  // iteration's slot is waited for (wait_group S-2, bar.sync) and the next iteration's first k-slice of
  // the first dot's loads is loaded into registers; after them those registers move to the ones the
  // next iteration's first dot starts from. The barrier then falls
  // while the previous slice's mmas are still in flight, and the next iteration's first mmas need no
  // ldmatrix, instead of every warp waiting at the loop head for the barrier and then for ldmatrix.
  void beforeLastSlice(Codegen& cg) override;
  void afterLastSlice(Codegen& cg) override;

  int stages() const { return stages_; }

 private:
  friend class PipelinedLoad;
  LoopPipeline(Codegen& cg, const ir::Op& forOp, const LoopCounter& counter, LoopLoads loads, int stages);
  // Lowers the slice of load `c` again with the induction variable and the advancing arguments moved
  // `ahead` iterations past their initial values (fromInits; ivBase = lb) or their values in this
  // iteration (ivBase = the induction variable), runs use(valid) with the load's operands bound that way
  // (valid: that iteration runs), then restores every binding.
  template <class F>
  void atIteration(Codegen& cg, const PipelineCandidate& c, bool fromInits, ptx::Reg ivBase, int64_t ahead, F&& use);
  ptx::Reg advance(Codegen& cg, ptx::Reg base, const ir::Value* step, ir::Scalar type, int64_t times, int elemBytes);

  Codegen& cg_;
  const ir::Op& forOp_;
  LoopCounter counter_;
  LoopLoads loads_;
  int stages_;
  int64_t reservedBytes_ = 0;
  std::vector<std::unique_ptr<PipelinedLoad>> pipelined_;
  ptx::Reg slot_;  // i mod S (.b32), a loop-carried register
  const ir::Op* dot_ = nullptr;  // the dot that drives the loop, if any
  bool driven_ = false;          // beforeLastSlice ran in this iteration
  // (i + 1) mod S into `dst`, i mod S being slot_.
  void nextSlotInto(Codegen& cg, ptx::Reg dst);
  // Loads the driven dot's first k-slice of the slot at `base` (into fresh registers).
  std::vector<std::vector<ptx::Reg>> loadFirstSlice(Codegen& cg, PipelinedLoad& p, ptx::Reg base);
};

}  // namespace kiln::lower
