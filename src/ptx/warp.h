// Thread-index registers, CTA barriers, warp shuffles of any dtype and mma.sync tensor-core
// instructions (fragment registers in, fragment registers out).
#pragma once
#include <span>

#include "ir/types.h"
#include "ptx/builder.h"
#include "support/source.h"

namespace kiln::ptx {

enum class SpecialReg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId,  // %tid.x & 31 (kiln launches one-dimensional CTAs)
  WarpId,  // %tid.x >> 5
};
// A fresh .b32 register holding the value.
Reg readSpecial(Entry& e, SpecialReg r);

// bar.sync id{, threads}: all threads of the CTA (threads = 0) or `threads` (a multiple of 32).
void barSync(Entry& e, int id = 0, int threads = 0);
// bar.arrive id, threads: the executing threads count towards barrier `id` (of `threads`, a multiple
// of 32) and go on without waiting; the barrier completes when bar.sync and bar.arrive brought them all.
void barArrive(Entry& e, int id, int threads);

enum class ShflMode : uint8_t { Bfly, Idx, Up, Down };
// dst = src of another lane of the full warp: lane ^ lane (Bfly), lane (Idx), lane - delta (Up),
// lane + delta (Down), inside segments of `width` lanes (a power of two <= 32); a lane whose
// source falls outside its segment keeps its own value. `lane` is an immediate or a .b32
// register. Any scalar type: 64-bit values move as two halves, 16-bit ones widened, i1 as 0/1.
void shuffle(Entry& e, ShflMode mode, ir::Scalar t, Reg dst, Reg src, Operand lane, int width = 32);

// mma.sync.aligned shapes of sm_80 (fp8 needs sm_89). Fragments as in PTX-NOTES §8: A and B are
// .b32 registers of packed elements, C/D are .f32 (f32 accumulators) or .b32 (s32, f16x2).
enum class MmaKind : uint8_t {
  F16_F32,   // m16n8k16 f16 x f16 + f32
  BF16_F32,  // m16n8k16 bf16 x bf16 + f32
  F16_F16,   // m16n8k16 f16 x f16 + f16 (C/D: 2 x f16x2)
  TF32_F32,  // m16n8k8 tf32 x tf32 + f32 (operands: f32 bit patterns, read truncated)
  S8_S32,    // m16n8k32 s8 x s8 + s32 (wraps)
  U8_S32,    // m16n8k32 u8 x u8 + s32
  E4M3_F32,  // m16n8k32 e4m3 x e4m3 + f32 (sm_89+)
  E5M2_F32,  // m16n8k32 e5m2 x e5m2 + f32 (sm_89+)
};
struct MmaShape {
  int m, n, k;
  int aRegs, bRegs, cRegs;
  RegClass accClass;
  int minSm;
  const char* types;  // ".f32.f16.f16.f32"
};
const MmaShape& mmaShape(MmaKind k);
// D = A * B + C; d may be the same registers as c. CompileError (at loc) below the shape's minSm.
void mma(Entry& e, MmaKind kind, std::span<const Reg> d, std::span<const Reg> a, std::span<const Reg> b,
         std::span<const Reg> c, const SourceLoc& loc = {});

// dst (.b32) = src (.f32) truncated to tf32 (the 13 low mantissa bits cleared): the value the tensor
// cores read from src's bit pattern, which mma and wgmma take as it is.
void truncateToTf32(Entry& e, Reg dst, Reg src);

}  // namespace kiln::ptx
