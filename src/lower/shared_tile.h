// Tiles in shared memory laid out by a ScratchPlan (scratch_layout.h): storing registers into them and
// reading them back into the registers of a layout, with ldmatrix where the plan has it. Conversions
// through shared memory use both halves; a pipelined load (lower/pipeline.h) fills the tile with cp.async
// and reads it here, lazily, so that tl.dot loads each k-slice's fragments right before its mma.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "layout/ldmatrix.h"
#include "layout/linear_layout.h"
#include "lower/codegen.h"
#include "lower/linear_emit.h"
#include "layout/scratch_layout.h"

namespace kiln::lower {

// The global side of a cp.async copy of a pointer tile into shared memory: its pointers (base +
// offsets, or one register each) and its mask's registers (a scalar mask: the same one for each).
struct CopySource {
  CopySource(Codegen& cg, const ir::Value* ptr, const ir::Value* mask);
  std::optional<Codegen::PtrTile> tile;
  std::vector<ptx::Reg> plain, mask;
  size_t n = 0;  // registers of the pointer tile
};
// cp.async of the source's registers, `vec` at a time (copyBytes each), to the shared addresses storeAt
// gives for `storeOffsets`: a masked-off run reads nothing and fills zeros; `guard` skips a copy.
void copyToShared(Codegen& cg, const CopySource& src, SharedAddresses& storeAt, const layout::LinearLayout& storeOffsets,
                  int32_t vec, int copyBytes, ptx::Guard guard);

// Stores (or loads) the registers `regs` (compact register order of `offsets`), `vec` at a time.
void accessShared(Codegen& cg, bool store, ir::Scalar t, SharedAddresses& addrs, const layout::LinearLayout& offsets,
                  int32_t vec, const std::vector<ptx::Reg>& regs);

// Stores every element of the register tile `value` at `base` (.b32 shared address) in the arrangement
// `shared` (offset -> coordinates), the widest st.shared the two layouts allow, or stmatrix on sm_90
// where it takes fewer wavefronts or instructions (16-bit elements). Threads holding the same
// element (duplicated lanes or warps) store the same bytes: harmless. No barrier.
void storeTile(Codegen& cg, ptx::Reg base, const layout::LinearLayout& shared, const ir::Value* value);
// The same with `regs` in place of the value's registers (one per register of its layout).
void storeTile(Codegen& cg, ptx::Reg base, const layout::LinearLayout& shared, const ir::Value* value,
               const std::vector<ptx::Reg>& regs);

// Loads the registers `regs` (compact destination registers) with the ldmatrix plan: instruction q fills
// registers [q * E, (q + 1) * E), 32-bit word j of it holding the next 32 / bits of them.
void loadWithLdmatrix(Codegen& cg, ir::Scalar t, SharedAddresses& addrs, const layout::LdmatrixPlan& lm,
                      const std::vector<ptx::Reg>& regs);

// The offsets a plan's stores take their addresses from: stmatrix's row offsets, or the st.shared ones.
const layout::LinearLayout& storeOffsetsOf(const ScratchPlan& plan);
// Stores the registers `regs` (compact source registers) as the plan says: with stmatrix (sm_90, 16-bit
// elements; `addrs` built on storeOffsetsOf(plan)), else st.shared storeVec at a time.
void storeWithPlan(Codegen& cg, ir::Scalar t, SharedAddresses& addrs, const ScratchPlan& plan,
                   const std::vector<ptx::Reg>& regs);

// The registers of layout `to` from those of its distinct registers `loaded` (compact order of `dst`):
// duplicated registers read the distinct register holding the same element.
std::vector<ptx::Reg> withDuplicates(const ir::Op& op, const UniqueRegisters& dst, const layout::LinearLayout& to,
                                     const std::vector<ptx::Reg>& loaded);

// Reads the tile `plan` put at `base` (.b32 shared address) into the registers of layout `to` (element
// type t), one load instruction (ldmatrix or ld.shared of plan.loadVec elements) at a time, each when a
// register it fills is first asked for. No barrier: the caller orders the reads after the writes.
class SharedTileReader {
 public:
  // threadOffset: threadOffsetOf(cg, plan) computed before (a loop reading the same plan in every
  // iteration computes it once, ahead of the loop), or invalid to compute it here.
  SharedTileReader(Codegen& cg, const ir::Op& op, ScratchPlan plan, ptx::Reg base, ir::Scalar t,
                   const layout::LinearLayout& to, ptx::Reg threadOffset = {});
  // This thread's part of the plan's read offsets (.b32 elements).
  static ptx::Reg threadOffsetOf(Codegen& cg, const ScratchPlan& plan);
  ptx::Reg at(int32_t r);       // register r of `to`
  std::vector<ptx::Reg> all();  // every register of `to`, in order

  // The load groups (one ldmatrix or ld.shared each) that fill a register of `to` whose coordinates
  // (registerCoords) satisfy `pred`, in increasing order.
  std::vector<int32_t> groupsWhere(const std::function<bool(const std::vector<int32_t>&)>& pred) const;
  // Loads group g now, into fresh registers (returned), whatever was loaded before.
  std::vector<ptx::Reg> loadGroupNow(int32_t g);
  // Group g is already in `regs` (loaded by another reader of the same plan: a pipelined loop carries
  // its dot's first k-slice over from the previous iteration).
  void adopt(int32_t g, const std::vector<ptx::Reg>& regs);

 private:
  void loadGroup(int32_t g);

  Codegen& cg_;
  const ir::Op& op_;
  ScratchPlan plan_;
  ir::Scalar t_;
  layout::LinearLayout to_;
  UniqueRegisters dst_;
  SharedAddresses addrs_;
  int32_t groupSize_;
  std::vector<int32_t> compactOf_;  // per register of `to`
  std::vector<ptx::Reg> compact_;   // invalid until loaded
};

}  // namespace kiln::lower
