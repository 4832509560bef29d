// What inline_asm's constraints and pack mean, shared by sema (user errors), the verifier and the PTX
// lowering: how many PTX registers an operand or result takes per asm invocation and of which kind.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/types.h"

namespace kiln::ir {

// One comma-separated entry of the constraint string: "=r" (an output) or "r" (an input); `letter` is
// the register kind: r .b32, l .b64, h .b16, f .f32, d .f64.
struct AsmConstraint {
  bool output = false;
  char letter = 'r';
};
int asmConstraintBits(char letter);  // 32, 64, 16, 32, 64; 0 for a letter kiln does not know

// Elements of type `t` (its element type) that share one register when `pack` elements go to one asm
// invocation: elements narrower than 32 bits are packed (4 x i8, 2 x f16) up to `pack`, others take a
// register each (Triton's rule; i1 counts as a byte, pointers as 64 bits).
int asmElemsPerReg(const Type& t, int64_t pack);
int asmElemBits(const Type& t);

// The constraints of an inline_asm with these operand and result types, checked against them: "" and
// `out` filled, or the message of the first problem (unknown letter, an input before an output, a count
// that differs from what the operands and pack need, a register too narrow for its value, `$N` in the
// text past the last operand; "$$" is a literal "$").
std::string parseInlineAsm(const std::string& asmText, const std::string& constraints, int64_t pack,
                           const std::vector<Type>& operands, const std::vector<Type>& results,
                           std::vector<AsmConstraint>& out);

}  // namespace kiln::ir
