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

enum class WgmmaInput : uint8_t { F16, BF16 };

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

// One wgmma.mma_async m64 x n x k16, f32 accumulators d (n / 2 .f32 registers, added to in place:
// scale-d is true). A from a descriptor (aRegs empty; transA: A is M-major) or from four .b32 registers
// of packed pairs; B from a descriptor (transB: B is N-major).
void wgmmaF32(Entry& e, WgmmaInput in, int n, std::span<const Reg> d, Reg descA, std::span<const Reg> aRegs,
              Reg descB, bool transA, bool transB, const SourceLoc& loc = {});

}  // namespace kiln::ptx
