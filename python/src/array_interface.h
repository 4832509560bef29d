// Arrays described by the array protocols (NumPy's __array_interface__, __cuda_array_interface__) as
// launch arguments, with what kiln cannot take refused by name: foreign byte order, strides that are
// negative or not whole elements, read-only memory (marked so, and refused only where a kernel stores).
#pragma once
#include <pybind11/pybind11.h>

#include "args.h"
#include "kiln/launcher.h"

namespace kiln::python {

// An object with __array_interface__ (`cuda` false: host memory, the interpreter) or
// __cuda_array_interface__ (`cuda` true); `interface` is that dict. `pointee`: the element type the
// kernel sees (a TensorWrapper's), or null for the array's own. Raises ArgumentError naming `site`.
LaunchArg fromInterface(PyObject* obj, PyObject* interface, bool cuda, const ArgSite& site,
                        const char* pointee = nullptr);

}  // namespace kiln::python
