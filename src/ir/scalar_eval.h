// Exact per-element semantics of element-wise ops, shared by the interpreter and constant folding
// (one definition of what `add` on i8 or `cast` f32->f16 means). Elements are held in an Elem:
// integers sign- or zero-extended to 64 bits after wrapping to their type, floats as a double
// already rounded to their type (f16, bf16, fp8 and f32 values are exactly representable).
#pragma once
#include <cstdint>
#include <string_view>

#include "ir/ir.h"

namespace kiln::ir {

union Elem {
  int64_t i;
  uint64_t u;  // also pointers (byte addresses)
  double f;
};

inline Elem intElem(int64_t v) { Elem e; e.i = v; return e; }
inline Elem floatElem(double v) { Elem e; e.f = v; return e; }

// Wraps an integer to `t`'s width and re-extends it; rounds a float to `t` (round to nearest even,
// overflow to inf, fp8 e4m3 and the fnuz fp8e4b8/fp8e5b16 saturating to their max finite value as in
// the PTX cvt .satfinite form; fp8e4b15 as roundToF8E4B15).
Elem normalize(Scalar t, Elem v);
// IEEE rounding directions, spelled as the `rounding` / `mode` attributes: rtne (to nearest, ties to
// even), rtz (toward zero), rtn (toward -inf), rtp (toward +inf).
enum class RoundMode : uint8_t { NearestEven, TowardZero, Down, Up };
bool roundModeFromName(std::string_view name, RoundMode& out);  // false when unknown
std::string_view roundModeName(RoundMode m);

// Numeric conversion from `from` to `to` (int<->int wraps; float->int truncates toward zero and
// saturates, NaN -> 0; int->float and float->float round to nearest even, or toward zero when
// `rtz`). Pointers convert to/from 64-bit integers by value.
Elem convert(Scalar from, Scalar to, Elem v, bool rtz = false);
// The same with any rounding direction for int->float and float->float (rtn/rtp: f32 and f64 results).
Elem convert(Scalar from, Scalar to, Elem v, RoundMode mode);

// The `rounded` op: fn on f32/f64 operands (exact values of t), rounded once to t in `mode`
// (scalar_rounded.cpp). rcp(x) = 1/x.
enum class RoundedFn : uint8_t { Add, Sub, Mul, Div, Fma, Sqrt, Rcp };
bool roundedFnFromName(std::string_view name, RoundedFn& out);  // false when unknown
std::string_view roundedFnName(RoundedFn fn);                  // "add", "sqrt", ...
int roundedArity(RoundedFn fn);                                 // operands: 1, 2 or 3
double roundedArith(Scalar t, RoundedFn fn, RoundMode mode, const double* x);
// Reinterprets the bits of `v` (type `from`) as type `to` of the same width.
Elem bitcast(Scalar from, Scalar to, Elem v);

// Evaluates an element-wise op of ops.def on elements of scalar type `t` (the operand type; for
// Cmp the operand type too, result is 0/1). `attrOp` supplies attributes (pred, propagate_nan);
// it may be a partially built op, only its attrs are read. Returns false when the op is not
// element-wise. Sets `divByZero` for an integer div/rem by zero (undefined on the GPU: the
// interpreter reports it, folding declines to fold).
// Cast and Bitcast are not handled here (they need two types): use convert() and bitcast().
// For Select, operands are (cond, a, b) and `t` is the type of a and b. Throws InternalError when
// the op is not defined on `t` (e.g. `and` on f32, `exp` on i32, a bad `pred`).
bool evalElementwise(const Op& attrOp, Scalar t, const Elem* operands, Elem& out, bool& divByZero);

// The same, decoded once (attributes read, operand type fixed) to evaluate many elements.
struct ElementwiseFn {
  Opcode op = Opcode::Add;
  Scalar t = Scalar::I32;
  uint8_t pred = 0;  // Cmp: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge
  bool propagateNan = false;
  RoundedFn roundedFn = RoundedFn::Add;  // Rounded: fn and mode
  RoundMode mode = RoundMode::NearestEven;
};
// False when the op is not element-wise (as above); throws InternalError when it is not defined on t.
bool decodeElementwise(const Op& attrOp, Scalar t, ElementwiseFn& out);
void evalElementwise(const ElementwiseFn& fn, const Elem* operands, Elem& out, bool& divByZero);

// The bit pattern of an element (the low bitWidth(t) bits; floats are rounded to t first) and the
// element a bit pattern encodes. NaN payloads survive fromBits -> toBits unchanged.
uint64_t toBits(Scalar t, Elem v);
Elem fromBits(Scalar t, uint64_t bits);

// bessel_j0 .. bessel_i1 of x, in double (scalar_bessel.cpp).
double besselOf(Opcode op, double x);
// erfc and the other one-operand special functions of x, in double (scalar_special.cpp).
double specialOf(Opcode op, double x);

// Float and half helpers used by both sides.
double roundToF16(double x);
double roundToBF16(double x);
double roundToF32(double x);
double roundToTF32(double x);     // round to 10 explicit mantissa bits, nearest, ties away (cvt.rna.tf32)
double truncateToTF32(double x);  // the same bits toward zero: how the tensor cores read an f32 as tf32
double roundToF8E4M3(double x);  // nearest even, saturating to +-448 (inf too); NaN stays NaN
double roundToF8E5M2(double x);  // nearest even, overflow to inf
// Triton's conversion to fp8e4b15 (its NVIDIA software conversion from f16): the magnitude clamped to
// 1.75 (inf and NaN too, keeping the sign), then rounded to nearest with ties away from zero.
double roundToF8E4B15(double x);
double roundTo(Scalar t, double x, bool rtz = false);  // float type t; rtz: round toward zero
double roundTo(Scalar t, double x, RoundMode mode);     // f32/f64 in any direction (f16.. : rtne/rtz)
// a*b+c rounded once to float type t.
double fmaTo(Scalar t, double a, double b, double c);

}  // namespace kiln::ir
