// ValueBudget: counts a compile-time value's nodes and text, stopping at the first bound passed.
#include "sema/value_bounds.h"

namespace kiln::sema {

bool ValueBudget::take(const SValue& v) {
  if (nodes == 0) return false;
  --nodes;
  if (v.str.size() > bytes) {
    textRanOut = true;
    return false;
  }
  bytes -= v.str.size();
  for (const SValue& e : v.elts)
    if (!take(e)) return false;
  return true;
}

std::string ValueBudget::whyNot(const SValue& v) const {
  if (textRanOut)
    return std::string(v.kind == SValue::Kind::Str ? "string" : "tuple") + " too large (more than " +
           std::to_string(kMaxConstexprBytes) + " bytes of text)";
  return "tuple too large (more than " + std::to_string(kMaxTupleNodes) + " values, nested ones included)";
}

}  // namespace kiln::sema
