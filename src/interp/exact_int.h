// Integer ops evaluated as if integers had no width: the overflow oracle compares these exact
// results with the wrapped ones of scalar_eval (docs/semantics.md, "Integer overflow checks").
#pragma once
#include <string>

#include "interp/machine.h"

namespace kiln::interp {

// Wide enough for any product of two 64-bit values; results are clamped to +-2^120, far past every
// address, so chains of products cannot overflow it.
using Wide = __int128;

// The value an element holds, read by its type (signed types sign-extended, the rest zero-extended).
inline Wide wideOf(ir::Scalar t, ir::Elem e) { return ir::isSigned(t) ? Wide(e.i) : Wide(e.u); }
// The element that `v` wraps to in type `t` (two's complement, as scalar_eval wraps).
ir::Elem wrapTo(ir::Scalar t, Wide v);
// The widths the oracle checks: i32 and u32.
inline bool isChecked(ir::Scalar t) { return t == ir::Scalar::I32 || t == ir::Scalar::U32; }
// Whether `v` is a value of type `t` (always true for the types that are not checked).
bool fitsIn(ir::Scalar t, Wide v);
std::string wideStr(Wide v);

// The exact result of `in` (an element-wise integer op, a cast or bitcast between integers or
// pointers, or ptr_add) on exact operands x (select: x[0] is the condition). False when the op has no
// exact form here: a float operand or result, division by zero, umulhi, `not` on an unsigned type.
bool exactResult(const Inst& in, ir::Scalar operandType, ir::Scalar resultType, uint64_t pointeeBytes,
                 const Wide* x, Wide& out);

// How a message shows the op on these operands: "2097152 * 1024", "-x", "cast of i64 3000000000".
std::string exactOpText(const Inst& in, ir::Scalar operandType, const Wide* x, int numOperands);

}  // namespace kiln::interp
