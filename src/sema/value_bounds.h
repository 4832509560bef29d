// Bounds on the size of compile-time values. They are copied on assignment, so `t = t + t` or
// `t = (t, t)` in an unrolled loop doubles them: a tuple holds at most kMaxTupleNodes values (nested
// ones included), and a value at most kMaxConstexprBytes of str text (a str's own, or a tuple's strs).
#pragma once
#include <cstddef>
#include <string>

#include "sema/value.h"

namespace kiln::sema {

inline constexpr size_t kMaxTupleNodes = size_t(1) << 16;
inline constexpr size_t kMaxConstexprBytes = size_t(1) << 20;

struct ValueBudget {
  size_t nodes = kMaxTupleNodes, bytes = kMaxConstexprBytes;
  bool textRanOut = false;
  // Takes v's values and text from the budget; false once either runs out (counting stops there).
  bool take(const SValue& v);
  // The error when take() failed: "tuple too large (more than 65536 values, nested ones included)", or
  // "... (more than 1048576 bytes of text)" for a str or a tuple of strs.
  std::string whyNot(const SValue& v) const;
};

}  // namespace kiln::sema
