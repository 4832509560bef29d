// Passes over GPU IR that decide the schedule (docs/gpu-ir.md, docs/pipeline.md). One pass, one file,
// one name: the function, the file (schedule/<name>.cpp), the kiln-opt flag (--pass=<name>), the golden
// test (tests/lit/schedule/<name>.tir) and the --dump-after label agree. They run after layout
// assignment, in the order of the driver's pipeline (src/driver/compile.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"
#include "ptx/builder.h"

namespace kiln::schedule {

// What a GPU pass may ask about the code it schedules.
struct GpuContext {
  ptx::Target target;
  int numWarps = 4;
  int numStages = 1;  // the pipelining depth of loops without their own num_stages (below 2: none)
  bool warpSpecialize = false;  // CompileOptions::warp_specialize: the first loop nest that can take it
  bool tmaPointerTiles = true;  // CompileOptions::tma_pointer_tiles: pointer-built wgmma tiles and result stores through TMA
  bool persistent = false;      // CompileOptions::persistent: the body loops over the launch's programs
};

// The parameters a persistent kernel takes after its own (persistent.cpp): the logical grid, which the
// launcher passes while it launches fewer programs (a suffix is added when a parameter has the name).
constexpr const char* kPersistentGridNames[3] = {"grid_x", "grid_y", "grid_z"};

// When asked (ctx.persistent), runs the kernel's body in a loop over the programs of the logical grid,
// passed as three parameters after the kernel's own, each launched program taking programs p, p + n,
// p + 2n, ... of it (n launched): program_id and num_programs read the logical grid
// (schedule/persistent.cpp). Not for a kernel that prints.
void makePersistent(ir::Function& fn, const GpuContext& ctx);

// On sm_90a, rotates a loop whose body chains two wgmma dots (attention's Q K^T, softmax, P V) by one
// iteration, so the second dot of iteration j - 1 is issued right after the first dot of iteration j and
// runs while j's softmax does (schedule/overlap_dots.cpp).
void overlapDots(ir::Function& fn, const GpuContext& ctx);
// Software-pipelines the loads of `for` loops that feed tl.dot (every loop) or that the loop asks for
// (its num_stages attribute): shared buffers of num_stages slots filled by cp.async ahead of the
// iteration that reads them, with their waits and barriers; the dots reading them split into k-slice
// mmas with the copies between (schedule/pipeline.cpp).
void pipelineLoops(ir::Function& fn, const GpuContext& ctx);
// Moves each wait for a wgmma's result down to the first op that reads it, `pending` counting the wgmma
// groups issued after it by then (schedule/defer_mma_waits.cpp).
void deferMmaWaits(ir::Function& fn, const GpuContext& ctx);
// Runs a top-level loop that asks for warp specialization (its warp_specialize attribute) and whose slots
// the pipeline fills with TMA on two warp partitions: the consumers (num_warps warps, the loop's dots and
// everything else) and a producer warpgroup issuing the copies, with an "empty" mbarrier per slot for
// the consumers to release it and setmaxnreg budgets (schedule/warp_specialize.cpp). sm_90a only.
void warpSpecialize(ir::Function& fn, const GpuContext& ctx);
// Whether code for `ctx` can be warp-specialized: sm_90a or later arch-specific targets (setmaxnreg), the
// consumers in whole warpgroups and room for the producer's warpgroup in a CTA of 32 warps.
bool warpSpecializable(const GpuContext& ctx);
// Splits every dot and whole mma on mma.sync into one `mma` per k-slice, each slice's operands read one
// slice ahead of its mmas (chained dots: right before them), the slices accumulating in place
// (schedule/split_mma.cpp). wgmma issues whole; an f16 accumulator's dot stays one op.
void splitMma(ir::Function& fn, const GpuContext& ctx);
// Stores each loop-invariant A operand of a wgmma `mma` in a loop (attention's Q) once into a shared
// buffer before the loop, which the mmas then read through matrix descriptors instead of holding the
// tile in registers for the whole loop (schedule/stage_operands.cpp). sm_90a only.
void stageOperands(ir::Function& fn, const GpuContext& ctx);
// On sm_90a, lets the two warpgroups of an 8-warp CTA take turns at the tensor cores in a pipelined
// wgmma loop (attention): named barriers order their dots, and the pipeline's CTA barrier in the loop
// becomes "full" and "empty" mbarriers per slot, so one warpgroup's softmax runs while the other's dots
// do (schedule/pingpong.cpp).
void pingpong(ir::Function& fn, const GpuContext& ctx);
// Gives every shared_alloc an offset: buffers whose live ranges overlap get disjoint bytes, others
// may share them; each starts on a 128-byte boundary. Too much shared memory is a compile error. Then
// every op that stages data through shared memory its scratch (`scratch = [offset, bytes]`,
// scratch_size.h), above the buffers live at the op.
void allocateShared(ir::Function& fn, const GpuContext& ctx);
// Inserts a CTA `barrier` before every shared-memory access that another thread's earlier access to
// the same bytes could race (a read after a write, a write after a read or a write), across `if`,
// `for`, `while` and warp partitions. Needs the offsets of allocate_shared.
void insertBarriers(ir::Function& fn, const GpuContext& ctx);

// Rewrites each tensor-descriptor store that carries a TMA description into a TMA store on sm_90 and
// later (a shared buffer in TMA's arrangement, every thread's local_store into it, fence_async_shared, a
// barrier, one thread's tma_store and its tma_store_wait), when the tensor is one the launcher can encode
// and TMA copy and the buffer fits beside the others; every other store drops its TMA description
// (schedule/tma_stores.cpp).
void tmaStores(ir::Function& fn, const GpuContext& ctx);
// The bytes the buffers need at once, placed as allocateShared places them (without setting offsets).
int64_t sharedBufferBytes(const ir::Function& fn);
// The bytes of shared memory the kernel would need with its buffers and every op's scratch placed, as
// allocateShared places them (without setting offsets): what the launch asks for.
int64_t sharedBytesOnceAllocated(const ir::Function& fn, const GpuContext& ctx);

// The GPU pass called `name` ("persistent", "overlap_dots", "pipeline", "defer_mma_waits", "warp_specialize", "split_mma", "stage_operands", "tma_stores", "allocate_shared",
// "insert_barriers"); false if
// there is none.
bool runGpuPass(std::string_view name, ir::Function& fn, const GpuContext& ctx);
std::vector<std::string> gpuPassNames();  // in the order the driver runs them

// The most shared memory one block may use on `target` (the opt-in limit).
int64_t maxSharedPerBlock(const ptx::Target& target);
// The bytes of shared memory the schedule leaves beside its buffers for ops' scratch when it sizes them
// (the pipeline's slots, stage_operands' buffers).
constexpr int64_t kScratchRoom = 16 * 1024;

}  // namespace kiln::schedule
