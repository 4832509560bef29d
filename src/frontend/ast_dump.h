// The AST as text (`kiln compile --emit ast`): an indented tree, one node per line, each ending
// in `@line:col`. Children that play different roles are labelled (`test:`, `value:`, ...).
#pragma once
#include <string>

#include "frontend/ast.h"

namespace kiln::frontend {

std::string dump(const ast::FunctionDef& fn);
std::string dump(const ast::Expr& e);
// Aliases, globals (value or skip reason) and every function, in that order.
std::string dump(const ast::Module& m);

}  // namespace kiln::frontend
