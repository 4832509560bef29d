// The printf format of a `print` op's lines, one place for the interpreter (snprintf) and the GPU
// (vprintf) so both print the same text: Triton's device_print format, docs/language.md.
#pragma once
#include <cstddef>
#include <string>

#include "ir/types.h"

namespace kiln::ir {

// How an element travels as a printf argument (C's variadic promotions, as Triton passes them): 8- and
// 16-bit integers widened to 32 bits by their signedness, f16/bf16/f32/fp8 to double, pointers as 64-bit
// addresses; with hex, every element as its bits (zero-extended floats, sign-extended signed integers).
enum class PrintArg { U32, I32, U64, I64, F64, Ptr };
PrintArg printArgOf(const Type& t, bool hex);
int printArgBytes(PrintArg a);  // 4 or 8

// The format of each line of operand `operand` (of `numOperands`) of type `t`:
//   pid (%u, %u, %u) idx (%Nu, ...)<prefix>[(operand k) ]<value>
// each index padded to the digits of its dimension's size; no operands: "pid (%u, %u, %u)<prefix>".
std::string printFormat(const Type& t, const std::string& prefix, bool hex, size_t operand, size_t numOperands);
std::string printFormatNoOperands(const std::string& prefix);

}  // namespace kiln::ir
