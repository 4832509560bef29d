// The compile-time half of the int32-overflow checks (docs/semantics.md, "Integer overflow checks"):
// 32-bit offsets that can pass 2^31 because a program-id-derived value is multiplied by a runtime
// argument. The interpreter's oracle (interp/overflow_oracle.h) catches the rest at run time.
#pragma once
#include <vector>

#include "ir/ir.h"
#include "support/warning.h"

namespace kiln::analysis {

// One warning per multiply (by source location) that computes, in i32 or u32, a value derived from
// program_id times a value derived from a runtime integer argument of the kernel, where neither operand
// is a constant (axis info) and the product flows into the offset of a ptr_add. Such an offset passes
// 2^31 once the tensor has 2^31 elements, and wraps. A multiply by a constexpr (`pid * BLOCK`) is not
// reported: that bound is the grid's, unknown here, and nearly every kernel would warn.
std::vector<CompilerWarning> offsetOverflowWarnings(const ir::Function& fn);

}  // namespace kiln::analysis
