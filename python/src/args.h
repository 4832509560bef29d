// The extension's view of Python launch arguments: the process-wide hooks into torch and NumPy found on
// first use, and the conversion of one Python object into a kiln::LaunchArg (args.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "kiln/launcher.h"

namespace kiln::python {

namespace py = pybind11;

// An attribute of torch.Tensor read through its C implementation: the getter of a getset descriptor
// (`dtype`) or the function of a METH_NOARGS method (`data_ptr()`, `get_device()`), found once and
// called without the attribute lookup and call machinery. Used for tensors of type exactly torch.Tensor
// while the type is unchanged (its version tag); anything else reads the attribute the usual way.
struct TensorAttr {
  PyObject* name = nullptr;  // interned
  bool method = false;       // call it (data_ptr()) rather than read it (dtype)
  getter get = nullptr;      // a getset descriptor's getter, and its closure
  void* closure = nullptr;
  PyCFunction noargs = nullptr;  // a METH_NOARGS method's function
  PyObject* descr = nullptr;     // the descriptor (a reference held): other kinds of method are called through it
};

// What the extension keeps for the life of the process: one kiln::Runtime (the driver and the cubin
// cache) and what it learned about torch (its Tensor type, dtypes, current-stream getter). Created on
// first use and never destroyed, so nothing runs during interpreter shutdown.
struct ModuleState {
  kiln::Runtime runtime;
  bool torchChecked = false;
  PyObject* torchTensorType = nullptr;  // torch.Tensor, once torch is imported
  PyObject* currentRawStream = nullptr;  // torch._C._cuda_getCurrentRawStream(device) -> int
  PyCFunction currentRawStreamFn = nullptr;  // its C function when it is a METH_O builtin, and its self
  PyObject* currentRawStreamSelf = nullptr;
  PyObject* currentDevice = nullptr;  // torch.cuda.current_device, with currentRawStream (a CUDA build of torch)
  std::vector<std::pair<PyObject*, const char*>> torchDtypes;  // torch.float32 -> "fp32", commonest first
  unsigned tensorTypeVersion = 0;  // torch.Tensor's tp_version_tag when the accessors below were found
  TensorAttr tensorDtype, tensorDataPtr, tensorGetDevice;
  PyObject* ndarrayType = nullptr;     // numpy.ndarray, once numpy is imported
  PyObject* numpyFloat16Type = nullptr;  // numpy.float16 (its scalars specialize as fp16)
  PyObject* tensorWrapperType = nullptr;  // kiln.TensorWrapper (triton.reinterpret), once defined
  PyObject* fallback = nullptr;        // kiln._args.convert: other objects (DLPack, numpy scalars, ...)
  // The @jit functions the arguments being converted pass ("fn_3" of the entry "@fn_3"; kiln/_args.py).
  std::vector<std::string> functionArguments;
  // kiln.profiler's recorder while a profile is active: told of every launch (PyJit::launch); else null.
  PyObject* launchObserver = nullptr;
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
  std::string element = {};  // within a tuple argument: "[1][0]"
  std::string str() const;
};
// The converters' shared helpers (args.cpp, array_interface.cpp, torch_tensor.cpp):
// an ArgumentError naming the argument ("kernel 'add': argument 0 ('x') " + message);
[[noreturn]] void argError(const ArgSite& site, const std::string& message);
// a new reference, or a thrown error_already_set;
py::object check(PyObject* o);
// a Python int as a 64-bit address (a thrown error_already_set when it is not one).
uint64_t toAddress(PyObject* o);

// A tuple (or NamedTuple) becomes a LaunchArg::Tuple whose elements, converted the same way, live in an
// array `keep` holds. `signatureStrings` (warmup): strings among a tuple's elements are signature
// entries ("*fp32:16"), as they are for a runtime parameter.
LaunchArg toLaunchArg(PyObject* obj, const ArgSite& site, std::vector<py::object>& keep,
                      bool signatureStrings = false);

// The first device pointer among `a` and, for a tuple, its elements; null when there is none.
const LaunchArg* firstDevicePointer(const LaunchArg& a);
// The device of the first device pointer among `a` and its elements whose device is known; -1 if none is.
int knownDevice(const LaunchArg& a);

// PyTorch's current CUDA device (torch.cuda.current_device(): torch.cuda.set_device, `with
// torch.cuda.device(n)`), or 0 without a CUDA build of torch imported.
int currentDevice();
// The CUstream PyTorch launches on for `device` (its current stream), or 0 without torch.
void* currentStream(int device);

}  // namespace kiln::python
