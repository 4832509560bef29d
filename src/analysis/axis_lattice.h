// The lattice under the axis-info analysis: power-of-two arithmetic, the join of two facts, and
// the helpers the transfer rules (axis_rules.cpp) share. Internal to src/analysis.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"

namespace kiln::analysis::lattice {

// The largest power of two dividing v (as 64 bits), capped at kMaxDivisibility; 0 gives the cap.
int64_t pow2Divisor(int64_t v);
// a * b for powers of two, capped at kMaxDivisibility.
int64_t capMul(int64_t a, int64_t b);
// The longest run that tiles a dim of `size` elements: the largest power of two dividing it.
int64_t runCap(int64_t size);
// Number of fact entries of a type (1 for scalars) and the size of dim d (1 for scalars).
int dimsOf(const ir::Type& t);
int64_t dimSize(const ir::Type& t, int d);
// Bytes between consecutive values that count as "contiguous": the pointee size for pointers
// (at least 1), 1 for integers.
int64_t unitOf(const ir::Type& t);

// Divisibility of x's elements along d at every index that is a multiple of c (a power of two):
// x's own divisibility where c is a multiple of its contiguity, else what survives inside a run
// (start + k * unit for k a multiple of c).
int64_t divAt(const AxisInfo& x, int d, int64_t c, int64_t unit);
// Divisibility of every element (the largest over dims of divAt(x, d, 1)).
int64_t elementDivisibility(const AxisInfo& x, int64_t unit);

// All ones: true of any value.
AxisInfo conservative(const ir::Type& t);
// A value that is the same everywhere (constancy = size), of the given divisibility.
AxisInfo uniform(const ir::Type& t, int64_t divisibility, bool nonNegative);
// The splat of an integer constant (already normalised to the type).
AxisInfo constantOf(const ir::Type& t, int64_t value);
// The facts of a scalar splat over `t`'s shape.
AxisInfo splat(const AxisInfo& scalar, const ir::Type& t);
// Facts true of a value that is either a or b.
AxisInfo join(const AxisInfo& a, const AxisInfo& b, const ir::Type& t);
// Clamps the facts to the type (powers of two, C and K within the dims, floats C = D = 1) and makes
// a known constant's facts exact.
void finish(AxisInfo& x, const ir::Type& t);

}  // namespace kiln::analysis::lattice
