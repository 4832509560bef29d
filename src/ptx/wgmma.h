// Hopper warpgroup MMA (sm_90a, PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
// PTX-NOTES §9): the asynchronous wgmma.mma_async with operands read from shared memory through 64-bit
// matrix descriptors (A may come from registers), its fence / commit / wait, and the proxy fence that
// makes ordinary shared-memory writes visible to it.
#pragma once
#include <cstdint>
#include <span>

#include "ptx/builder.h"
#include "support/source.h"

namespace kiln::ptx {

// The operand types of wgmma.mma_async: f16 / bf16 (K 16, f32 accumulators), tf32 (f32 bit patterns,
// K 8, f32), fp8 e4m3 / e5m2 (K 32, f32) and s8 / u8 (K 32, s32 accumulators, wrapping). Every K is 32
// bytes of a row. Only f16 / bf16 take transpose flags or A from registers: the others read both
// operands K-major from shared memory.
enum class WgmmaInput : uint8_t { F16, BF16, TF32, E4M3, E5M2, S8, U8 };
int wgmmaK(WgmmaInput in);                  // the instruction's K: 16, 8 or 32
bool wgmmaTransposes(WgmmaInput in);        // f16 / bf16: transpose flags and A from registers
bool wgmmaIntegerSum(WgmmaInput in);        // s8 / u8: .s32 accumulators in .b32 registers

// The fixed fields of a matrix descriptor (everything but the start address): leading and stride
// dimension byte offsets and the swizzle (32, 64 or 128 bytes; 0: none).
struct WgmmaDescriptor {
  int64_t leadingBytes = 0, strideBytes = 0;
  int swizzleBytes = 128;
  uint64_t fixedBits() const;  // bits 16..63 of the descriptor
};

// desc (.b64) = fixed bits | ((address >> 4) & 0x3FFF), address a .b32 shared-window address.
Reg wgmmaDescriptor(Entry& e, Reg address, const WgmmaDescriptor& d);

// wgmma.fence.sync.aligned: before the first wgmma, and whenever other instructions touched the
// accumulator or A registers since.
void wgmmaFence(Entry& e, const SourceLoc& loc = {});
void wgmmaCommit(Entry& e);                 // wgmma.commit_group.sync.aligned
void wgmmaWait(Entry& e, int pending);      // wgmma.wait_group.sync.aligned pending
void fenceProxyAsyncShared(Entry& e);       // fence.proxy.async.shared::cta

// One wgmma.mma_async m64 x n x wgmmaK(in), accumulators d (n / 2 registers, .f32, or .b32 holding s32
// for s8 / u8): added to in place when addToD (scale-d true), else overwritten with the product (scale-d
// false: d's values are not read, so they need none). A from a descriptor (aRegs empty; transA: A is
// M-major) or, for f16 / bf16, from four .b32 registers of packed pairs; B from a descriptor (transB: B is
// N-major). The transpose flags exist for f16 / bf16 only: set for another type, an InternalError.
void wgmma(Entry& e, WgmmaInput in, int n, std::span<const Reg> d, Reg descA, std::span<const Reg> aRegs,
           Reg descB, bool transA, bool transB, const SourceLoc& loc = {}, bool addToD = true);

}  // namespace kiln::ptx
