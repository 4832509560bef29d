// The text form of Tile IR (docs/ir.md): a printer and a parser that round-trip, and the verifier.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "ir/ir.h"
#include "support/diagnostic.h"

namespace kiln::ir {

std::string print(const Module& m);
std::string print(const Function& f);

// Parses IR text; throws CompileError at the offending file:line:col.
std::unique_ptr<Module> parseModule(std::shared_ptr<const SourceFile> file);

// Checks the structural and type rules of every op (arity, attributes, types, terminators,
// dominance of operands). Returns the first problem found, located at the offending op.
std::optional<Diagnostic> verify(const Function& f);

}  // namespace kiln::ir
