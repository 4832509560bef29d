// Semantic analysis: specializes one @jit kernel of a parsed module for a signature and lowers
// it to Tile IR (name binding, constexpr evaluation, type inference and promotion, inlining of
// @jit helpers, static_range unrolling, constexpr-if folding). Errors are thrown as CompileError.
#pragma once
#include <memory>
#include <string_view>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "sema/signature.h"

namespace kiln::sema {

// Returns a module holding one function named after the kernel. Its parameters are the kernel's
// non-constexpr parameters, in order (a parameter specialized to the constant 1 stays a parameter
// whose uses see the constant). `numWarps` is the compile's (tl.extra.cuda.num_warps reads it).
std::unique_ptr<ir::Module> lowerKernel(const ast::Module& module, std::string_view kernel,
                                        const Signature& signature, int numWarps = 4);

}  // namespace kiln::sema
