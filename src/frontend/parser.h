// The front end's entry point: Python source -> ast::Module (imports, module constants, @jit functions).
#pragma once
#include <memory>

#include "frontend/ast.h"
#include "support/source.h"

namespace kiln::frontend {

// Parses a Python source file: imports, module-level constants and @jit functions; other top-level
// code (host code) is skipped without failing. Throws CompileError at file:line:col.
//
// Limits that keep every later recursive walk of the AST safe: nesting inside one expression
// (brackets, unary operators, `**`, conditional expressions) at most 100 deep ("expression nested
// too deeply"); statement blocks at most 100 deep counting the function body ("too many nested
// blocks"); any expression tree at most 1000 nodes deep ("expression too complex").
std::unique_ptr<ast::Module> parseModule(std::shared_ptr<const SourceFile> file);

}  // namespace kiln::frontend
