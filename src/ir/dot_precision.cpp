#include "ir/dot_precision.h"

namespace kiln::ir {

bool isSplitPrecision(std::string_view p) { return p == "tf32x3" || p == "bf16x3" || p == "bf16x6"; }

bool awaitsSplit(const Op& dot) {
  return dot.operand(0)->type.elem == Scalar::F32 && dot.operand(1)->type.elem == Scalar::F32 &&
         isSplitPrecision(dot.strAttrOr("input_precision", "tf32"));
}

}  // namespace kiln::ir
