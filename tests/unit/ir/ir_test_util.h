// Helpers shared by the IR text and verifier tests: a hand-built function that uses every opcode,
// parsing from a string, and a deep structural comparison of two functions.
#pragma once
#include <memory>
#include <string>

#include "ir/ir.h"

namespace kiln::ir::testing {

// A valid function using every opcode of ops.def, every type kind and every attribute kind,
// nested regions, and for/if/while with and without results.
std::unique_ptr<Module> buildEverything();

std::unique_ptr<Module> parseString(const std::string& text, const std::string& name = "test.tir");

// Same ops, types, attributes (floats compared bit for bit, NaN equal to NaN) and operand wiring.
// Returns "" when equal, else where they differ.
std::string structuralDiff(const Function& a, const Function& b);

}  // namespace kiln::ir::testing
