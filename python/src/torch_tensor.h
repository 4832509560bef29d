// torch.Tensor objects as launch arguments: dtype, data pointer and device read through torch's own C
// getters for plain tensors (TensorAttr), a CPU tensor's storage bounds, and a sparse tensor refused.
#pragma once
#include <pybind11/pybind11.h>

#include "args.h"

namespace kiln::python {

// `obj` is a torch.Tensor (or subclass). `pointee`: the element type the kernel sees (a TensorWrapper's),
// or null for the tensor's own. Raises ArgumentError naming `site`.
LaunchArg fromTorch(ModuleState& s, PyObject* obj, const ArgSite& site, const char* pointee = nullptr);

}  // namespace kiln::python
