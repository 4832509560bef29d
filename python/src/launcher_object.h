// kernel[grid]: the Launcher object that JitFunction.__getitem__ returns, a plain CPython type called
// through vectorcall, so that creating and calling it (the hot path of every launch) skips pybind11.
#pragma once
#include <Python.h>

namespace kiln::python {

// The kiln._kiln.Launcher type, created on first use (null with a Python error set if that failed).
PyTypeObject* launcherType();

// JitFunction.__getitem__ (kernel[grid]) as a plain METH_O function: a new Launcher holding the kernel
// object `self` and the grid. pybind11's dispatch would cost more than the rest of the binding.
PyObject* jitGetItem(PyObject* self, PyObject* grid);

}  // namespace kiln::python
