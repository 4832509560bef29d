// The choices behind dotLayout, shared by layout assignment and the code generator: whether a dot runs
// on mma.sync and with which instruction and warp grid, and the FMA layouts otherwise.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "layout/wgmma_shared.h"
#include "ptx/builder.h"
#include "ptx/warp.h"
#include "ptx/wgmma.h"

namespace kiln::lower {

struct MmaConfig {
  ptx::MmaKind kind;
  int bitWidth = 16;  // bits of one operand element in the fragments (8, 16 or 32)
  int kTile = 16;     // the instruction's K
  std::vector<int32_t> warpsPerCTA;  // [along M, along N]; their product is numWarps
  // sm_90a's warpgroup MMA (wgmma.mma_async m64 x instrN x 16) instead of mma.sync: warpsPerCTA[0] is
  // then a multiple of 4 (each warpgroup's four warps along M).
  bool wgmma = false;
  int32_t instrN = 0;
};

// The mma.sync instruction for a dot, or nullopt for the FMA path: rank 2; f16/bf16 x f16/bf16 + f32,
// f32 x f32 + f32 at tf32 precision, i8/u8 x i8/u8 + i32/u32, f16 or fp8 (sm_89+) + f32 or f16 (an f16
// accumulator sums in f32, rounded once at the end); M >= 16, N >= 8, K >= the instruction's K.
// Warps: an mma op's `warps` attribute, else mmaWarpsPerCTA, or along M first for chained dots.
// On sm_90a a dot wgmmaConfig accepts runs on wgmma; the rest stays on mma.sync.
std::optional<MmaConfig> mmaConfig(const ir::Op& dot, int numWarps, const ptx::Target& target);

// The layouts the dot lowering needs for its operands and accumulator (used by layout assignment,
// so both sides agree): an mma.sync layout when the types and shape allow it on `target`, else the
// FMA layouts. opIdx 0 = a [M, K], 1 = b [K, N], 2 = acc/result [M, N]. Also for GPU IR's `mma`.
layout::LinearLayout dotLayout(int opIdx, const ir::Op& dot, int numWarps, const ptx::Target& target);

// Whether data flows between this dot and another of its function, or a GPU IR mma (one's result into
// the other's a or b): chained dots put their warps along M first, so the first's accumulator is the
// second's A without moving data.
bool isChainedDot(const ir::Op& dot);

// Warps over an [M, N] accumulator of 16x8 tiles: doubling along whichever side leaves each warp more
// tiles (M on ties), as Triton's mma v2 does; extra warps past the tiles repeat along M.
std::vector<int32_t> mmaWarpsPerCTA(int64_t m, int64_t n, int numWarps);

// The wgmma instruction and warpgroup grid for a dot, or nullopt: warpgroups along M first (all of them
// for a chained dot, so that its accumulator is the next dot's A in registers), the rest along N; instrN
// = N per warpgroup, at most 256. Operand types (both the same): f16 / bf16 with an f32 accumulator,
// f32 read as tf32 with f32 (where markTf32Wgmma marked the dot), fp8 e4m3 / e5m2 with f32, i8 / u8
// with i32 / u32; M a multiple of 64, K of the instruction's K (kTile).
std::optional<MmaConfig> wgmmaConfig(const ir::Op& dot, int numWarps, const ptx::Target& target);

// The wgmma operand kind of an element type (f32: tf32), or nullopt.
std::optional<ptx::WgmmaInput> wgmmaInput(ir::Scalar elem);

// Where a wgmma dot's operand in registers is staged for the instruction to read (lower_wgmma.cpp), or
// nullopt when it is read where it is: an operand in a slot, or an f16 / bf16 A (register fragments).
// The tile is K-major, except an f16 / bf16 B with N at least 32 bytes wide (N-major: the transpose flag).
std::optional<layout::WgmmaTile> wgmmaStagedTile(const ir::Op& dot, int opIdx);

// The scratch bytes a wgmma dot needs for its staged operands: each tile aligned to its swizzle repeat
// (8 rows of swizzleBytes), A's first.
int64_t wgmmaStagingBytes(const ir::Op& dot);
int64_t wgmmaStagedTileBytes(const layout::WgmmaTile& t);  // the tile and its alignment slack

// Whether a dot's f32 operands are truncated to tf32 (input_precision "tf32" or absent), which is how
// mma.sync and wgmma read an f32 (bench/results/2026-12-05-h200-tf32-probe.md).
bool truncatesToTf32(const ir::Op& dot);

// The FMA operand layout for accumulator layout `acc` ([.., M, N]): opIdx 0 = A [.., M, K] holding, for
// each of the thread's accumulator rows, the whole K row in registers (register bits: K first, then the
// accumulator's register bits that move along M); opIdx 1 = B [.., K, N] likewise with its columns.
// Lane and warp bases are the accumulator's with the other matrix dim dropped.
layout::LinearLayout fmaOperandLayout(int opIdx, const layout::LinearLayout& acc, int64_t k);

// The FMA accumulator layout of an [.., M, N] tile.
layout::LinearLayout fmaAccumulatorLayout(const std::vector<int64_t>& shape, int numWarps);

}  // namespace kiln::lower
