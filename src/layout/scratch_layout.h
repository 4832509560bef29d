// The shared-memory layout a layout conversion goes through: chosen among plain and XOR-swizzled tiles
// by counting the shared-memory wavefronts (bank conflicts) of its stores and loads, then the widest
// accesses. Pure functions over layouts, unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "layout/ldmatrix.h"
#include "layout/linear_layout.h"

namespace kiln::layout {

// Shared-memory wavefronts warp 0 needs for the accesses `offsets` describes ((register, lane, warp) ->
// offset in elements of `elemBytes`), `vec` consecutive registers per access: per instruction, lanes
// are served in phases of 128 bytes (32 lanes of <= 4 bytes, 16 of 8, 8 of 16) and each phase takes as
// many wavefronts as the most distinct 32-bit words any bank holds.
// Only lanes below `lanes` access memory (ldmatrix.x1/x2 read the addresses of 8/16 lanes).
int64_t sharedWavefronts(const LinearLayout& offsets, int32_t vec, int elemBytes, int lanes = 32);

struct ScratchPlan {
  LinearLayout shared;   // offset -> dims: the tile in shared memory
  LinearLayout storeOffsets, loadOffsets;  // (compact register, lane, warp) -> offset
  int32_t storeVec = 1, loadVec = 1;  // elements per st.shared / ld.shared
  std::optional<LdmatrixPlan> ldmatrix;  // loads with ldmatrix instead (16- and 32-bit elements)
  std::optional<LdmatrixPlan> stmatrix;  // stores with stmatrix instead (16-bit elements, sm_90): ldmatrix's
                                         // inverse, so the same plan (its rows are the stores' addresses)
  int64_t wavefronts = 0;             // stores + loads, warp 0
};

// A conversion staged in rounds to bound its scratch: coordinate bits that each side holds in exactly one
// register bit (no other input bit touches them) split the tile; round c moves the elements whose split
// bits equal c through a tile without those bits. Empty when the whole tile fits in `maxElements`.
struct ScratchRounds {
  LinearLayout src, dst;      // the compact layouts without the split bits (registers and coordinates)
  std::vector<int> srcBits, dstBits;  // the split register bits of each side, round bit i first
  std::vector<int> outBits;           // the split coordinate bits (flattened, dim0's bits lowest)
  int numRounds() const { return 1 << srcBits.size(); }
  // The register index of a full compact layout for register r of the reduced one in round c.
  static int32_t expand(int32_t r, int32_t c, const std::vector<int>& bits);
};
ScratchRounds splitIntoRounds(const LinearLayout& srcUnique, const LinearLayout& dstUnique,
                              int64_t maxElements);

// The scratch layout for moving registers of `src` to `dst` (same tile); `srcUnique` and `dstUnique`
// are the layouts without duplicated registers (uniqueRegisters(..).compact), which are what is stored
// and loaded. Fewest wavefronts first, then fewest instructions (ldmatrix where it applies, and stmatrix
// where `stmatrix` allows it: sm_90 and later).
ScratchPlan planScratch(const LinearLayout& srcUnique, const LinearLayout& dstUnique, int elemBytes,
                        bool stmatrix = false);

// The plan for a given shared layout (a GPU IR buffer's: local_store, local_load, async_copy): the widest
// stores and loads it allows, ldmatrix where the loads fit it, and stmatrix (where `stmatrix`) the stores.
ScratchPlan planWithShared(const LinearLayout& shared, const LinearLayout& srcUnique,
                           const LinearLayout& dstUnique, int elemBytes, bool stmatrix = false);

}  // namespace kiln::layout
