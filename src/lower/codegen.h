// The per-thread code generator: turns a GPU IR function (Tile IR whose tile types carry register
// layouts, see docs/layouts.md) into one PTX entry. Each tile value becomes the registers its layout
// gives a thread (register index r of the layout -> regs(v)[r]); scalars are one register, computed
// redundantly and identically by every thread. The op families live in lower_<family>.cpp; this
// header is the contract between them.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "layout/scratch_layout.h"
#include "ptx/builder.h"
#include "support/step_times.h"

namespace kiln::lower {

// What the runtime must know to launch the entry.
struct EntryInfo {
  std::string name;
  int numWarps = 4;
  int64_t sharedBytes = 0;  // dynamic shared memory the launch must provide
  // Runs persistently (schedule/persistent.cpp): takes the logical grid (three u32) after its parameters
  // and before its tensor maps, and may be launched on fewer programs than the grid has.
  bool persistent = false;
};

class Codegen;
class SharedTileReader;

class Codegen {
 public:
  Codegen(ptx::Entry& entry, const ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps);

  ptx::Entry& e;
  const ir::Function& fn;
  const analysis::AxisInfoAnalysis& axis;
  // The warps running the code being lowered: the CTA's, or a partition's inside warp_partition.
  int numWarps;

  // ---- values
  // The registers of `v` in this thread: one per register index of its layout (scalars: one). A
  // pointer tile held as base + offsets (below) is turned into pointers here, by fresh instructions at
  // the point of the call each time (the reference stays valid while the Codegen lives).
  const std::vector<ptx::Reg>& regs(const ir::Value* v);
  ptx::Reg reg(const ir::Value* v) const;  // the single register of a scalar
  void bind(const ir::Value* v, std::vector<ptx::Reg> regs);


  // A pointer tile kept as one pointer every thread holds plus an integer element offset per
  // register index (what ptr_add(splat(p), offsets) makes): loads and stores form the addresses they
  // need, and a loop that advances the tile by a scalar carries the 64-bit base alone.
  struct PtrTile {
    ptx::Reg base;                  // .b64
    std::vector<ptx::Reg> offsets;  // one per register index, registers of offsetType; empty: all 0
    ir::Scalar offsetType = ir::Scalar::I32;
    int elemBytes = 1;              // of the pointee
  };
  // v's base + offsets form; null when v is bound to plain registers.
  const PtrTile* ptrTile(const ir::Value* v) const;
  void bindPtrTile(const ir::Value* v, PtrTile t);
  // The pointer of register index r: base + offsets[r] * elemBytes (a fresh .b64; the base itself when
  // there are no offsets).
  ptx::Reg ptrAddress(const PtrTile& t, size_t r);

  // What a value is bound to, to lower some ops again with other inputs and put everything back.
  struct Binding {
    const ir::Value* value = nullptr;
    std::optional<std::vector<ptx::Reg>> regs;
    std::optional<PtrTile> tile;
  };
  Binding binding(const ir::Value* v) const;
  void restore(const Binding& b);
  // Fresh registers of the class of `t`'s element type, as many as t's layout has register indices;
  // register indices that hold the same element (duplicated data) share one register, so that a loop
  // carrying a row statistic in a broadcast layout keeps one copy of it live, not one per index.
  std::vector<ptx::Reg> newRegs(const ir::Type& t);
  // How many registers a value of type t has in each thread: its layout's register count (scalars: 1).
  static int numRegs(const ir::Type& t);

  // ---- thread indices (.b32, computed once at the top of the entry)
  ptx::Reg tid();
  ptx::Reg lane();
  ptx::Reg warp();

  // The coordinate along each out dim (dim0, dim1, ...) of the element that register index `r` of
  // layout `l` holds in this thread, as .b32 registers (the lane and warp contributions are computed
  // once per layout and out dim and reused).
  std::vector<ptx::Reg> coords(const layout::LinearLayout& l, int32_t r);
  // The same coordinates before they are combined: `thread` (the lane and warp contribution, a .b32
  // register; invalid when no lane or warp bit moves along the dim) XOR `constant` (the register
  // index's contribution). `disjoint`: no bit the thread part can take is set in `constant`, so the
  // XOR is also a sum (an arange folds its start into one add).
  struct CoordPart {
    ptx::Reg thread;
    int32_t constant = 0;
    bool disjoint = true;
  };
  std::vector<CoordPart> coordParts(const layout::LinearLayout& l, int32_t r);
  // coordParts of the register indices begin .. end - 1 of `l`, the thread parts found once.
  std::vector<std::vector<CoordPart>> coordPartsOf(const layout::LinearLayout& l, int32_t begin, int32_t end);

  // A .pred true in exactly one of the threads that hold each element of layout `l` (the one whose lane
  // and warp bits that only duplicate data are 0); an invalid Reg when no two threads share an element.
  // Stores use it so that broadcast copies are written once.
  ptx::Reg ownerPredicate(const layout::LinearLayout& l);
  // A .pred true in thread 0 only: the one thread that performs a scalar store.
  ptx::Reg firstThread();
  // A .pred true in every warp but the first (of the code: the CTA's, or the warp partition's): uniform
  // over each warp, for a branch around what thread 0 alone does.
  ptx::Reg otherWarps();

  // ---- shared memory
  // An op that stages data through shared memory (schedule/scratch_size.h) uses the bytes allocate_shared
  // placed for it (its `scratch = [offset, bytes]`); `bytes` is what the lowering needs, at most those.
  // insert_barriers put the barrier before it where earlier accesses could race its writes; the op
  // passes its own between its writes and its reads. `address` is the .b32 shared-window address of the
  // first byte.
  struct Scratch {
    ptx::Reg address;
    int64_t begin = 0, end = 0;  // bytes of the dynamic shared memory
  };
  Scratch scratch(const ir::Op& op, int64_t bytes);
  int64_t scratchBytes() const { return scratchBytes_; }
  // A shared buffer (GPU IR's shared_alloc, placed by allocate_shared): the entry's shared memory covers it.
  void reserveBuffer(const ir::Op& alloc);
  // The .b32 shared-window address of byte `offset` of the dynamic shared memory (a fresh register).
  ptx::Reg sharedAddress(int64_t offset);
  // layout::planWithShared(shared, c, c, elemBytes) with c the compact registers of `regs`
  // (uniqueRegisters), planned once per distinct arguments: every k-slice of a dot reads its slots
  // alike, and a loop's slot offsets are planned ahead of its loads (shared_tile.cpp).
  const layout::ScratchPlan& sharedPlan(const layout::LinearLayout& shared, const layout::LinearLayout& regs,
                                        int elemBytes);
  void barrier();  // bar.sync 0 (in a warp partition: its named barrier, of its threads)
  // Lane + warp contribution of layout `l` along out dim `dim`, computed once per region (invalid when
  // the lanes and warps contribute nothing).
  ptx::Reg threadCoord(const layout::LinearLayout& l, int dim);

  // Registers known to hold `base + constant` (base invalid: the constant alone), with the sum never
  // wrapping (arange's coordinates): an address base + x * size can then be formed once for `base`
  // and take the constant as an immediate offset.
  struct Sum {
    ptx::Reg base;
    int64_t constant = 0;
  };
  void noteSum(ptx::Reg r, ptx::Reg base, int64_t constant);
  std::optional<Sum> sumOf(ptx::Reg r) const;

  // The generic address (.b64) of each tensor map, by its index (declareTensorMaps, at entry).
  std::vector<ptx::Reg> tensorMaps;

  // Lowers every op of a block in order (dispatching on ops.def's family, no default:).
  void lowerBlock(const ir::Block& b);
  // Lowers `b` as the code of warps [firstWarp, firstWarp + warps) alone (a warp partition): the thread
  // and warp indices, numWarps and the cached coordinates are those of the partition inside it.
  // Its barriers are named barrier `barrierId` of the partition's threads.
  void lowerPartitionBlock(const ir::Block& b, int firstWarp, int warps, int barrierId);
  void lowerOp(const ir::Op& op);
  // Lowers `ops` again, in order, as code on one side of a branch (lower_guarded_select.cpp): their
  // results are bound to the new registers while `use` runs, and afterwards the bindings and the
  // coordinate cache are what they were, so nothing computed there is read after the join.
  void relowerOnOneSide(const std::vector<const ir::Op*>& ops, const std::function<void()>& use);

 private:
  std::unordered_map<const ir::Value*, std::vector<ptx::Reg>> regs_;
  std::unordered_map<const ir::Value*, PtrTile> ptrTiles_;
  std::deque<std::vector<ptx::Reg>> materialized_;  // what regs() returned for PtrTile values
  ptx::Reg tid_, lane_, warp_;
  // Registers computed once and reused by later ops: what they are (a layout's lane + warp part along
  // out dim `dim`, its owner predicate, thread 0's predicate) and the layout they are for. Found by a
  // hash of (kind, dim, layout bases), then compared in full: much cheaper than keys of layout text.
  // Scoped: lowerBlock drops what a region added, since a register first set inside a branch or loop
  // body holds nothing on the paths that skip it.
  enum class Cached { ThreadCoord, Owner, FirstThread, OtherWarps };
  struct CachedRegs {
    Cached kind;
    int dim;
    layout::LinearLayout layout;
    std::vector<ptx::Reg> regs;
  };
  std::unordered_map<size_t, std::vector<CachedRegs>> coordCache_;
  struct SharedPlan {
    layout::LinearLayout shared, regs;
    int elemBytes;
    layout::ScratchPlan plan;
  };
  std::deque<SharedPlan> sharedPlans_;  // sharedPlan's (a deque: the references it returns stay valid)
  static size_t cacheHash(Cached kind, int dim, const layout::LinearLayout& l);
  const std::vector<ptx::Reg>* findCached(Cached kind, int dim, const layout::LinearLayout& l) const;
  void addCached(Cached kind, int dim, const layout::LinearLayout& l, std::vector<ptx::Reg> regs);
  // `setp` of the thread or warp index `index` against 0, computed once per scope (kind: what it is).
  ptx::Reg comparedWithZero(Cached kind, const char* setp, ptx::Reg index);
  int64_t scratchBytes_ = 0;  // the highest byte of shared memory used
  std::unordered_map<int, Sum> sums_;  // by .b32 register id
  int barrierId_ = 0;  // the named barrier of the warps running the code (0: the CTA's)
  int depth_ = 0;  // region nesting of lowerBlock (bounded: the input is user-controlled)
};

// A broken GPU IR contract at `op`: a kiln bug (InternalError), never a user error.
[[noreturn]] void codegenBug(const ir::Op& op, const std::string& msg);

// ---- op families, each in its own file (lower_<family>.cpp)
void lowerElementwise(Codegen& cg, const ir::Op& op);  // arithmetic, math, cmp, select, cast, bitcast, constant
// A select in a loop on a mask that scalar terms can prove all true: the selects behind a branch on them
// (lower_guarded_select.cpp); false when it does not apply.
bool lowerGuardedSelect(Codegen& cg, const ir::Op& op);
void lowerShape(Codegen& cg, const ir::Op& op);        // splat, broadcast, expand_dims, reshape, permute, arange,
                                                       // program_id, num_programs, multiple_of, max_contiguous
void lowerMemory(Codegen& cg, const ir::Op& op);       // load, store, ptr_add
void lowerAtomic(Codegen& cg, const ir::Op& op);       // atomic_rmw, atomic_cas (lower_atomic.cpp; via lowerMemory)
void lowerControl(Codegen& cg, const ir::Op& op);      // for, if, while, yield, condition, return, assert, print
void lowerConvert(Codegen& cg, const ir::Op& op);      // convert_layout (registers, shuffles or shared memory)
void lowerReduce(Codegen& cg, const ir::Op& op);       // reduce: in-thread, shuffles, shared memory across warps;
                                                       // hands reduce_combine, scan and sort to those below
void lowerReduceCombine(Codegen& cg, const ir::Op& op);  // reduce_combine: the combine region in axis order
void lowerScan(Codegen& cg, const ir::Op& op);         // scan: in-thread, shfl.up, shared memory across warps
void lowerSort(Codegen& cg, const ir::Op& op);         // sort: compare-exchange in-thread, shfl.bfly, shared memory
void lowerDot(Codegen& cg, const ir::Op& op);          // dot: mma.sync or FMA
void lowerExchange(Codegen& cg, const ir::Op& op);     // gather, histogram: through shared memory
void lowerTensorCore(Codegen& cg, const ir::Op& op);   // mma, mma_wait (lower_dot.cpp)
void lowerSchedule(Codegen& cg, const ir::Op& op);     // shared buffers, async copies, barriers, mbarriers
// This thread's part of the offsets of every slot access in `body`, computed once where the kernel starts
// (a loop reads its slots in every iteration; lower_schedule.cpp).
void precomputeSlotOffsets(Codegen& cg, const ir::Block& body);
void lowerTma(Codegen& cg, const ir::Op& op);          // tensor_map, tma_load (lower_tma.cpp; via lowerSchedule)
// One `.param .align 128 .b8 <entry>_tmap<k>[128]` per tensor_map, after the runtime parameters, and
// its generic address in cg.tensorMaps[k]; a CompileError below sm_90 (lower_tma.cpp).
void declareTensorMaps(Codegen& cg);
void lowerPartition(Codegen& cg, const ir::Op& op);    // warp_partition
void lowerInlineAsm(Codegen& cg, const ir::Op& op);    // inline_asm: the user's PTX in a { } scope per pack
void lowerPrint(Codegen& cg, const ir::Op& op);        // print: vprintf per element (lower_print.cpp; via lowerControl)


// Emits the PTX module text for a GPU IR function (one entry named after it).
// maxNReg: the entry's .maxnreg (0: none). `times`, when given, receives the wall time of each step
// (stage "ptx": axis info, lowering the ops, dead code, module text).
std::string emitPtx(const ir::Function& gpuFn, const ptx::Target& target, int numWarps, EntryInfo& info,
                    int maxNReg = 0, StepTimes* times = nullptr);

}  // namespace kiln::lower
