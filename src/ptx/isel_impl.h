// Internal to the isel files: the per-family selectors selectElementwise dispatches to, and the
// small helpers they share (type predicates, error helpers, f32 bit-pattern constants).
#pragma once
#include <string>

#include "ptx/isel.h"
#include "support/diagnostic.h"

namespace kiln::ptx::detail {

inline bool isHalf(ir::Scalar t) { return t == ir::Scalar::F16 || t == ir::Scalar::BF16; }
inline bool isFp8(ir::Scalar t) { return ir::isFloat(t) && ir::bitWidth(t) == 8; }
inline bool isNarrowInt(ir::Scalar t) { return ir::isInt(t) && t != ir::Scalar::I1 && ir::bitWidth(t) < 32; }
// 64-bit integer-like (.b64 registers): i64, u64, ptr.
inline bool isWideInt(ir::Scalar t) {
  return t == ir::Scalar::I64 || t == ir::Scalar::U64 || t == ir::Scalar::Ptr;
}

[[noreturn]] inline void internal(const SourceLoc& loc, const std::string& msg) {
  throw InternalError(loc, "ptx isel: " + msg);
}
[[noreturn]] void notDefined(const ElementOp& op);  // the type rules forbid op on op.type

// Checks the register classes handed to a selector (a kiln bug when they are wrong).
void expectClass(const SourceLoc& loc, Reg r, RegClass c, const char* what);

std::string_view cmpName(CmpPred p);  // "eq", "ne", ...

// Families, each selecting the ops of one kind of operand type.
void selectPredOp(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s);   // i1
void selectIntOp(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s);    // i8..u64, ptr
void selectFloatOp(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s);  // fp8..f64
// f32/f64 math without a single instruction (isel_math.cpp); t is F32 or F64.
void selectFloatMath(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s);
// f64 exp, exp2, log, log2, sin, cos, tanh, erf (math_f64.cpp): d = f(x).
void selectF64Math(Entry& e, const ElementOp& op, Reg d, Reg x);
// expm1 .. pow (libdevice's functions, math_libdevice.cpp) on f32/f64: false for any other op.
bool selectLibdeviceMath(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s);

// x (.f64) rounded toward zero to a fresh .f32 with its last bit set when inexact ("round to
// odd"): a following rounding to a format of at most 22 significant bits equals one rounding of x.
Reg f64ToF32Odd(Entry& e, Reg x);

// Commonly used f32 bit patterns.
inline constexpr uint32_t kF32One = 0x3F800000, kF32Inf = 0x7F800000, kF32NaN = 0x7FFFFFFF;
inline constexpr uint64_t kF64Inf = 0x7FF0000000000000ull, kF64NaN = 0x7FFFFFFFFFFFFFFFull;

}  // namespace kiln::ptx::detail
