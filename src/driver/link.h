// Linking a kernel's module with what it takes from other Python modules (kiln::ModuleImports): the
// @jit functions of other files and constants the binding found through the functions' __globals__
// join the kernel's parsed module under names that cannot clash, so that sema lowers them as usual.
#pragma once
#include <string_view>

#include "frontend/ast.h"
#include "kiln/launcher.h"

namespace kiln {

// Completes `main` (the parsed module holding `kernel`) in place. Starting from the kernel, every
// function and global reachable from it is visited: a name listed in `imports` for its file becomes
// that @jit function (linked as "module.function"), constant or Triton name; inside linked functions,
// the names of their own module are renamed "module:name" (its globals, @jit functions, plain
// functions and imports come along). Throws CompileError at the use of a name that resolves to
// something a kernel cannot use (ModuleImports::Name::Kind::Unsupported).
void linkImports(ast::Module& main, std::string_view kernel, const ModuleImports& imports);

// kiln::compile of `source` linked with `imports` first.
Result<Kernel> compileLinked(const Source& source, const ModuleImports& imports, std::string_view kernel,
                             std::string_view signature, const CompileOptions& options);

}  // namespace kiln
