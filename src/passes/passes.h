// Target-independent Tile IR passes. One pass, one file, one name: the function, the file
// (passes/<name>.cpp), the kiln-opt flag (--pass=<name>), the golden test and the dump label agree.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

void canonicalize(ir::Function& fn);  // constant folding and algebraic simplification
void cse(ir::Function& fn);           // common subexpression elimination
void dce(ir::Function& fn);           // dead code elimination
void licm(ir::Function& fn);          // loop-invariant code motion out of `for`/`while`
void unroll(ir::Function& fn);        // `for` loops with loop_unroll_factor = k: k iterations per trip
void contract(ir::Function& fn);      // float mul + add/sub -> fma (Triton's enable_fp_fusion)
void dotAccumulate(ir::Function& fn); // add(c, dot(a, b, 0)) -> dot(a, b, c), as Triton combines them
void remat(ir::Function& fn);         // cheap tiles read after a loop are computed again there
void splitDots(ir::Function& fn);     // tf32x3/bf16x3/bf16x6 dots -> the tf32/bf16 dots that emulate them

// The pass called `name` ("canonicalize", "cse", "dce", "licm", "contract", "dot_accumulate", "remat",
// "split_dots"); false if there is none.
bool runPass(std::string_view name, ir::Function& fn);
std::vector<std::string> passNames();

}  // namespace kiln::passes
