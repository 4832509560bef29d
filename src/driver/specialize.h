// Internal half of the launch API (include/kiln/launcher.h): a @jit function's parameters from its
// AST, and one signature entry per launch argument (specialize.cpp).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "kiln/launcher.h"

namespace kiln {

// The parameters of `kernel` in `m`; throws CompileError when there is no such @jit function.
std::vector<KernelParameter> parametersOf(const ast::Module& m, std::string_view kernel);

// Appends the signature entry of argument `a` for parameter `p` to `out` ("*fp32:16", "i32", "1",
// "1024", "'relu'", "(*fp32:16, None)"); `specialize` is false for do_not_specialize parameters. Returns why the argument
// cannot be passed to that parameter (the text after "argument N ('name') "), or nothing.
std::optional<std::string> appendSignatureEntry(std::string& out, const KernelParameter& p, const LaunchArg& a,
                                                bool specialize);

}  // namespace kiln
