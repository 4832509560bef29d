// The named layouts of kiln's GPU code generation, each built as a LinearLayout: blocked (coalesced
// register tiles), slices, mma.sync / wgmma fragments and (swizzled) shared-memory tiles.
// Register layouts map (register, lane, warp) -> (dim0, ..); shared layouts map (offset) -> (dim0, ..),
// with offsets counted in elements. "register" indexes elements a thread holds, not 32-bit registers.
// Bad arguments (not powers of two, wrong ranks) are kiln bugs and throw InternalError.
#pragma once
#include <cstdint>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout {

// [rank-1, ..., 0]: the last dim fastest, as a row-major tile in memory.
std::vector<int32_t> rowMajorOrder(int rank);

// Triton's BlockedEncoding: each thread owns a sizePerThread block, threadsPerWarp lanes and warpsPerCTA
// warps tile the CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA per dim); `order` lists dims
// fastest first and numbers lanes, warps and registers. Where the shape is larger than the CTA tile,
// registers repeat the tile; where smaller, coordinates wrap modulo the shape (duplicated data: broadcast
// bits). Registers number the per-thread block first, then the repeats, both in `order`.
LinearLayout blocked(const std::vector<int64_t>& shape, const std::vector<int32_t>& sizePerThread,
                     const std::vector<int32_t>& threadsPerWarp, const std::vector<int32_t>& warpsPerCTA,
                     const std::vector<int32_t>& order);

// The coalesced default: vecElems contiguous elements per thread along order[0] (fewer if the dim is
// smaller), then 32 lanes and then numWarps warps spread over the dims fastest first, each taking as
// many as the remaining extent allows; leftovers land on the slowest dim (broadcast).
LinearLayout defaultBlocked(const std::vector<int64_t>& shape, int32_t numWarps, int32_t vecElems,
                            const std::vector<int32_t>& order);

// The layout of a tile with dim `dim` removed (a reduction result, or the operand of x[:, None]):
// bases lose that coordinate, register bits left with a zero basis are dropped (lanes and warps keep
// theirs: they now hold copies), and the remaining out dims are renamed dim0, dim1, ...
LinearLayout sliceLayout(const LinearLayout& parent, int dim);

// The layout of the first `size` coordinates along `dim` of a tile whose layout `parent` holds every bit
// of that dim in a single input bit (a top-k result): the bases of the higher bits along `dim` become 0,
// register bits left with a zero basis are dropped, lanes and warps keep theirs (they now hold copies).
LinearLayout truncateDim(const LinearLayout& parent, int dim, int32_t size);
// Whether register bit `bit` of `parent` survives truncateDim (its basis stays nonzero).
bool keepsRegisterBit(const LinearLayout& parent, int dim, int32_t size, int bit);

// mma.sync m16n8k* accumulator (C/D) of a [M, N] tile: per warp a 16x8 tile, lane = 4g + t holds
// (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1) as registers 0..3. Warps: warp = wm * warpsPerCTA[1] + wn
// (row-major); tiles repeat along N first, then M. M >= 16 and N >= 8.
LinearLayout mmaV2Accumulator(const std::vector<int64_t>& shape, const std::vector<int32_t>& warpsPerCTA);

// mma.sync operand fragments for the accumulator layout with the same warpsPerCTA: opIdx 0 = A [M, K]
// (row), 1 = B [K, N] (col). bitWidth 16 (f16/bf16, m16n8k16), 32 (tf32, m16n8k8) or 8 (s8/u8/fp8,
// m16n8k32); registers are elements, 32/bitWidth of them packed per 32-bit register, lowest first.
// A is broadcast over the N warps and B over the M warps; tiles repeat along K first.
LinearLayout mmaV2Operand(int opIdx, const std::vector<int64_t>& shape, const std::vector<int32_t>& warpsPerCTA,
                          int bitWidth);

// wgmma (sm_90a) f32 accumulator of [M, N] for instructions m64 x instrN: the four warps of a warpgroup own
// 16 rows each; register i at (16w + g + 8((i>>1)&1), 8(i>>2) + 2t + (i&1)). warpsPerCTA[0] is a multiple
// of 4; warpgroups are numbered row-major over (warpsPerCTA[0] / 4, warpsPerCTA[1]).
LinearLayout wgmmaAccumulator(const std::vector<int64_t>& shape, int32_t instrN,
                              const std::vector<int32_t>& warpsPerCTA);

// wgmma's A operand in registers (16-bit elements, m64nNk16) for the accumulator with the same
// warpsPerCTA: per warp the mma.sync m16n8k16 A fragment, the four warps of a warpgroup 16 rows apart, A
// broadcast over the warpgroups along N; tiles repeat along K first, then M. Equal to the accumulator
// layout of an [M, K] tile with instrN = K, so a chained dot's result is the next dot's A in place.
LinearLayout wgmmaOperandA(const std::vector<int64_t>& shape, const std::vector<int32_t>& warpsPerCTA);

// Triton's SwizzledSharedEncoding: the tile is stored with order[0] contiguous; for row r (the order[1]
// coordinate) the `vec`-element chunks of the row are XORed with phase = (r / perPhase) % maxPhase.
// Maps offset -> coordinates.
LinearLayout sharedSwizzled(const std::vector<int64_t>& shape, int32_t vec, int32_t perPhase, int32_t maxPhase,
                            const std::vector<int32_t>& order);
LinearLayout sharedPlain(const std::vector<int64_t>& shape, const std::vector<int32_t>& order);
// sharedSwizzled's offset bits as numbers: each one's coordinates flattened (LinearLayout::flattenOut,
// dim0's bits lowest), without building the layout (planScratch weighs hundreds of candidates).
std::vector<uint64_t> sharedSwizzledBits(const std::vector<int64_t>& shape, int32_t vec, int32_t perPhase,
                                         int32_t maxPhase, const std::vector<int32_t>& order);

}  // namespace kiln::layout
