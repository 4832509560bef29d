// kiln's Python exceptions: KilnError and one subclass per kiln::LaunchErrorKind, under Triton's
// TritonError and InterpreterError, created when the extension is imported, and raised from a
// LaunchStatus (or an argument problem found while binding).
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "kiln/launcher.h"

namespace kiln::python {

namespace py = pybind11;

// Creates TritonError, InterpreterError, KilnError, CompilationError, ArgumentError, OutOfResources,
// KernelError and DeviceError, and the warning categories CompilationWarning and LongLaunchWarning, and
// adds them to m.
void defineExceptions(py::module_& m);
PyObject* compilationWarning();
PyObject* longLaunchWarning();

// Raises the exception of s.kind with str(e) = the error's text and e.message, e.file, e.line, e.col,
// e.internal set from it; a CompilationError or KernelError has e.__cause__ = the same type with the
// bare message (Triton's errors are raised `from` the error behind them).
[[noreturn]] void raise(const LaunchStatus& s);
[[noreturn]] void raise(LaunchErrorKind kind, const Error& e);

// Raises kiln.ArgumentError (a TypeError) with `message`.
[[noreturn]] void raiseArgumentError(const std::string& message);

}  // namespace kiln::python
