// Instruction selection for one thread's registers: element-wise ops of ops.def in every dtype,
// casts, constants and pointer arithmetic (isel_*.cpp). Callers hand in destination and source
// registers of regClassOf(type); the semantics are docs/semantics.md's, the choices docs/ptx.md's.
#pragma once
#include <span>

#include "ir/ir.h"
#include "ir/scalar_eval.h"
#include "ptx/builder.h"
#include "support/source.h"

namespace kiln::ptx {

// i1 -> Pred; i8..i32, u8..u32 -> B32 (sign- or zero-extended to 32 bits at all times);
// i64, u64, ptr -> B64; f16, bf16, fp8 -> B16 (fp8 in the low byte, high byte zero);
// f32 -> F32; f64 -> F64.
RegClass regClassOf(ir::Scalar t);
// The kernel parameter type for a scalar argument (i1 parameters: use Entry::addBoolParam).
ParamType paramTypeOf(ir::Scalar t);

enum class CmpPred : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// An element-wise op with the attributes that change its selection.
struct ElementOp {
  ir::Opcode op = ir::Opcode::Add;
  ir::Scalar type = ir::Scalar::I32;  // operand type (Cmp: of the compared operands; Select: of a, b)
  CmpPred pred = CmpPred::Eq;         // Cmp
  bool propagateNan = false;          // Min, Max: propagate_nan = 1
  bool ieee = false;                  // Div, Sqrt: rounding = "rn" (correctly rounded instruction)
  SourceLoc loc;                      // where a CompileError points
  ir::RoundedFn roundedFn = ir::RoundedFn::Add;     // Rounded: fn and mode
  ir::RoundMode mode = ir::RoundMode::NearestEven;
};

// selectElementwise handles exactly the ops ir::isElementwise names.
using ir::isElementwise;
// The ElementOp of `op` on operand type `type`, attributes read from the op. InternalError when
// the op is not element-wise or its attributes are malformed.
ElementOp elementOpOf(const ir::Op& op, ir::Scalar type);

// dst = op(src...): registers of regClassOf(op.type), except Cmp's dst (Pred) and Select's src[0]
// (Pred). dst may equal a source register. Throws CompileError (at op.loc) for what the GPU
// cannot do yet (fp8 arithmetic below sm_89), InternalError for ops the type rules forbid.
void selectElementwise(Entry& e, const ElementOp& op, Reg dst, std::span<const Reg> src);

// f32 division by a divisor several quotients share, exactly as div.full.f32 computes each of them:
// the divisor is brought into [2^-126, 2^126] by a power of two s (0.25, 1 or 2^24) and q = 1/(d s)
// taken once (prepareF32Divisor); each quotient is then (x s) q, two multiplies instead of three.
struct F32Divisor {
  Reg scale, reciprocal;
};
F32Divisor prepareF32Divisor(Entry& e, Reg d);
void divideByF32Divisor(Entry& e, Reg dst, Reg x, const F32Divisor& d);

// Numeric conversion (docs/semantics.md "Conversions"); rtz: round toward zero ("rtz" attribute).
void selectCast(Entry& e, ir::Scalar from, ir::Scalar to, bool rtz, Reg dst, Reg src, const SourceLoc& loc);
// The same in any rounding direction (rtn/rtp: to f32 or f64 only, as the verifier requires).
void selectCast(Entry& e, ir::Scalar from, ir::Scalar to, ir::RoundMode mode, Reg dst, Reg src, const SourceLoc& loc);
// Bit reinterpretation between types of one width (ptr <-> i64/u64 included).
void selectBitcast(Entry& e, ir::Scalar from, ir::Scalar to, Reg dst, Reg src);
// dst = the constant `v` of type t (v as ir::Elem: integers extended, floats as a double already
// rounded to t; NaN payloads are kept).
void selectConstant(Entry& e, ir::Scalar t, ir::Elem v, Reg dst);
// The immediate operand spelling of a constant of type t (for instructions taking immediates).
Operand constantOperand(ir::Scalar t, ir::Elem v);
// dst = ptr + offset * elemBytes (offset of integer type offsetType, extended by its signedness).
void selectPtrAdd(Entry& e, ir::Scalar offsetType, int elemBytes, Reg dst, Reg ptr, Reg offset);

// ---- helpers shared by the isel files (also useful to the lowering)

// The PTX type suffix of an integer scalar: ".s32", ".u32", ".s64", ".u64" (8/16-bit types use
// the 32-bit suffix: they live in .b32 registers).
std::string_view intSuffix(ir::Scalar t);
// Re-establishes the invariant of an 8/16-bit integer in a .b32 register (sign- or zero-extends
// its low bits in place); nothing for 32/64-bit types.
void normalizeInt(Entry& e, ir::Scalar t, Reg r);
// Widens an f16/bf16/fp8 value (B16) to a fresh F32 register, exactly.
Reg widenToF32(Entry& e, ir::Scalar t, Reg src, const SourceLoc& loc);
// Rounds an F32 value to f16/bf16/fp8 (B16 dst), nearest even or toward zero.
void narrowFromF32(Entry& e, ir::Scalar t, Reg dst, Reg src, bool rtz, const SourceLoc& loc);

}  // namespace kiln::ptx
