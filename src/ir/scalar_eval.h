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
// overflow to inf, fp8 e4m3 saturating to its max finite value as in the PTX cvt .satfinite form).
Elem normalize(Scalar t, Elem v);
// Numeric conversion from `from` to `to` (int<->int wraps; float->int truncates toward zero and
// saturates, NaN -> 0; int->float and float->float round to nearest even, or toward zero when
// `rtz`). Pointers convert to/from 64-bit integers by value.
Elem convert(Scalar from, Scalar to, Elem v, bool rtz = false);
// Reinterprets the bits of `v` (type `from`) as type `to` of the same width.
Elem bitcast(Scalar from, Scalar to, Elem v);

// Evaluates an element-wise op of ops.def on elements of scalar type `t` (the operand type; for
// Cmp the operand type too, result is 0/1). `attrOp` supplies attributes (pred, propagate_nan);
// it may be a partially built op, only its attrs are read. Returns false when the op is not
// element-wise. Sets `divByZero` for an integer div/rem by zero (undefined on the GPU: the
// interpreter reports it, folding declines to fold).
bool evalElementwise(const Op& attrOp, Scalar t, const Elem* operands, Elem& out, bool& divByZero);

// Float and half helpers used by both sides.
double roundToF16(double x);
double roundToBF16(double x);
double roundToF32(double x);
double roundToTF32(double x);  // round to 10 explicit mantissa bits, nearest, ties away (cvt.rna.tf32)

}  // namespace kiln::ir
