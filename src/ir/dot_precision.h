// tl.dot's split precisions (input_precision "tf32x3", "bf16x3", "bf16x6"): an f32 dot at one of them is
// rewritten by split_dots into tf32 or bf16 dots of its operands' parts (docs/semantics.md, dot) before
// anything runs, so the interpreter and everything below the Tile IR passes refuse one they meet.
#pragma once
#include <string_view>

#include "ir/ir.h"

namespace kiln::ir {

bool isSplitPrecision(std::string_view inputPrecision);

// Whether `dot` (a dot, or a GPU IR mma) multiplies f32 operands at a split precision: one split_dots
// rewrites (on other operand types the attribute means nothing).
bool awaitsSplit(const Op& dot);

}  // namespace kiln::ir
