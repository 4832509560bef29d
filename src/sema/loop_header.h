// Loop headers: what a `for` iterates over (range, tl.range, tl.static_range), how tl.range's and
// tl.static_range's keywords bind, and the loop options tl.range and tl.condition put on a loop.
#pragma once

#include <string>
#include <vector>

#include "sema/lower.h"

namespace kiln::sema {

enum class RangeKind { NotRange, Python, Tl, Static };
RangeKind rangeKind(const SValue& callee);

// Triton's tl.range and tl.static_range take (arg1, arg2=None, step=None): keywords move into
// place; with arg2 absent the range is 0..arg1. Other keywords stay (tl.range's loop options).
void bindRangeKeywords(std::vector<SValue>& args, Kwargs& kwargs, const std::string& what, const SourceLoc& loc);

// tl.range's loop options, kept as attributes of the `for` op.
inline constexpr const char* kLoopOptions[] = {"num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
                                               "flatten", "warp_specialize", "disable_licm"};

}  // namespace kiln::sema
