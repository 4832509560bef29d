"""kiln.compiler: the names of triton.compiler that host code uses (CompiledKernel, CompilationError)."""
import types

from ._kiln import CompilationError, CompiledKernel

errors = types.ModuleType("kiln.compiler.errors")
errors.CompilationError = CompilationError

__all__ = ["CompilationError", "CompiledKernel", "errors"]
