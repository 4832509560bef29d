// Memory instruction selection: predicated vector loads/stores of global and shared memory in any
// dtype (packing 8/16-bit elements into 32-bit words where PTX needs it), cache hints, cp.async,
// ldmatrix and stmatrix. Registers follow regClassOf (ptx/isel.h).
#pragma once
#include <optional>
#include <span>

#include "ir/ir.h"
#include "ptx/builder.h"

namespace kiln::ptx {

enum class Space : uint8_t { Global, Shared };  // global: .b64 addresses; shared: .b32 (shared window)

// Cache operators (PTX "Cache Operators"); loads take ca cg cs lu cv, stores wb cg cs wt.
enum class CacheOp : uint8_t { None, CA, CG, CS, LU, CV, WB, WT };
enum class Evict : uint8_t { None, First, Last };  // L1 eviction priority

struct MemHints {
  CacheOp cache = CacheOp::None;
  Evict evict = Evict::None;
  bool isVolatile = false;  // ld.volatile: no cache operator or eviction hint
};
// The hints of a load/store op from its "cache", "evict" and "volatile" attributes (the values
// sema writes: "ca", "cg", ...; "evict_first", "evict_last"). InternalError for unknown values.
MemHints memHintsOf(const ir::Op& op);

// Loads n = dst.size() consecutive elements of type t from [addr + offset] with one vector access
// of n * size(t) bytes (a power of two, at most 16; the address must be aligned to it; i1 elements
// are bytes != 0). Under a mask, masked-off lanes touch no memory and get `other` (registers of t,
// one per element) or 0 when `other` is empty: the fill is written first and the load predicated.
void loadVector(Entry& e, Space space, ir::Scalar t, std::span<const Reg> dst, Reg address, int64_t offset,
                const MemHints& hints = {}, Guard mask = {}, std::span<const Reg> other = {});
// Stores n = src.size() consecutive elements the same way (i1 as bytes 0/1); a masked-off lane
// stores nothing.
void storeVector(Entry& e, Space space, ir::Scalar t, std::span<const Reg> src, Reg address, int64_t offset,
                 const MemHints& hints = {}, Guard mask = {});

// Two 16-bit values into one .b32 (lo in bits 15:0) and back.
Reg pack16x2(Entry& e, Reg lo, Reg hi);
void unpack16x2(Entry& e, Reg word, Reg lo, Reg hi);

// cp.async (sm_80): copies `bytes` (4, 8 or 16) from global `src` to shared `dst` (.b32) + dstOffset
// without registers. `srcBytes` (immediate or .b32 register) < bytes reads only that many and zero-fills
// the rest: 0 masks the copy off. 16-byte copies bypass L1 (.cg) unless `cacheL1`. `guard` skips the
// copy altogether.
void cpAsync(Entry& e, Reg dst, Reg src, int bytes, std::optional<Operand> srcBytes = std::nullopt,
             bool cacheL1 = false, int64_t dstOffset = 0, Guard guard = {});
void cpAsyncCommit(Entry& e);
void cpAsyncWait(Entry& e, int pendingGroups);  // waits until at most N of this thread's groups pend

// ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16: dst.size() (1, 2 or 4) .b32 registers,
// this lane's row address in `addr` (.b32 shared).
void ldmatrix(Entry& e, std::span<const Reg> dst, Reg addr, bool trans);
// stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 (sm_90): ldmatrix's inverse, src.size() .b32
// registers of 16-bit pairs stored to the rows whose addresses the lanes give.
void stmatrix(Entry& e, Reg addr, std::span<const Reg> src, bool trans);

}  // namespace kiln::ptx
