// The extension's view of Python launch arguments: the process-wide hooks into torch and NumPy found on
// first use, and the conversion of one Python object into a kiln::LaunchArg (args.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/launcher.h"

namespace kiln::python {

namespace py = pybind11;

// What the extension keeps for the life of the process: one kiln::Runtime (the driver and the cubin
// cache) and what it learned about torch (its Tensor type, dtypes, current-stream getter). Created on
// first use and never destroyed, so nothing runs during interpreter shutdown.
struct ModuleState {
  kiln::Runtime runtime;
  bool torchChecked = false;
  PyObject* torchTensorType = nullptr;  // torch.Tensor, once torch is imported
  PyObject* currentRawStream = nullptr;  // torch._C._cuda_getCurrentRawStream(device) -> int
  std::unordered_map<PyObject*, const char*> torchDtypes;  // torch.float32 -> "fp32"
  PyObject* ndarrayType = nullptr;     // numpy.ndarray, once numpy is imported
  PyObject* fallback = nullptr;        // kiln._args.convert: other objects (DLPack, numpy scalars, ...)
  // Interned attribute names.
  PyObject* sDataPtr = nullptr;
  PyObject* sGetDevice = nullptr;
  PyObject* sDtype = nullptr;
  PyObject* sCai = nullptr;
  PyObject* sAi = nullptr;
};

ModuleState& state();

// Looks torch up in sys.modules (never imports it) and, once found, caches its hooks.
void findTorch(ModuleState& s);

// Converts `obj` to a launch argument. `keep` receives objects that must stay alive until the launch
// is done (strings, converted arrays). Throws py::type_error naming the argument ("kernel 'add':
// argument 0 ('x_ptr') ...").
struct ArgSite {
  const std::string& kernel;
  const std::string& param;
  size_t index;
  std::string str() const;
};
LaunchArg toLaunchArg(PyObject* obj, const ArgSite& site, std::vector<py::object>& keep);

// Raises kiln.ArgumentError (a TypeError) with `message` (module.cpp).
[[noreturn]] void raiseArgumentError(const std::string& message);

// The CUstream PyTorch launches on for `device` (its current stream), or 0 without torch.
void* currentStream(int device);

}  // namespace kiln::python
