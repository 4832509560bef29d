// KILN_MATH_OPCODE_CASES (ir.h) names exactly the opcodes of ops.def's Math family: a switch using it
// treats every math function, and only those, alike.
#include <gtest/gtest.h>

#include "ir/ir.h"

namespace kiln::ir {
namespace {

bool inMathCases(Opcode op) {
  switch (op) {
    KILN_MATH_OPCODE_CASES:
      return true;
    default:
      return false;
  }
}

TEST(OpGroups, MathCasesAreTheMathFamily) {
  int math = 0;
  for (int i = 0; i < numOpcodes(); ++i) {
    const Opcode op = Opcode(i);
    EXPECT_EQ(inMathCases(op), familyOf(op) == Family::Math) << info(op).spelling;
    math += familyOf(op) == Family::Math;
  }
  EXPECT_GT(math, 40);
}

}  // namespace
}  // namespace kiln::ir
