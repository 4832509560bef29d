// kiln.CompiledKernel: one specialization of a kernel for Python, with its stages (asm["ir"],
// asm["ptx"], ...), signature, key and, once it ran on a GPU, its registers, spills and shared memory.
#pragma once
#include <pybind11/pybind11.h>

namespace kiln::python {

namespace py = pybind11;

// Adds the CompiledKernel class (over kiln::CompiledKernel, held by shared_ptr) to m.
void defineCompiledKernel(py::module_& m);

}  // namespace kiln::python
