// kiln's Python exceptions (errors.h): the types, made once at import, and raising them.
#include "errors.h"

namespace kiln::python {

namespace {

// kiln's exceptions, created at module init: KilnError and one subclass per LaunchErrorKind.
struct Exceptions {
  PyObject* base = nullptr;            // KilnError(Exception)
  PyObject* compilation = nullptr;     // CompilationError(KilnError)
  PyObject* argument = nullptr;        // ArgumentError(KilnError, TypeError)
  PyObject* outOfResources = nullptr;  // OutOfResources(KilnError)
  PyObject* execution = nullptr;       // KernelError(KilnError, RuntimeError): the interpreter stopped the kernel
  PyObject* device = nullptr;          // DeviceError(KilnError, RuntimeError)
};
Exceptions& exceptions() {
  static Exceptions e;
  return e;
}

}  // namespace

void defineExceptions(py::module_& m) {
  Exceptions& ex = exceptions();
  ex.base = PyErr_NewExceptionWithDoc("kiln.KilnError", "Base class of kiln's errors.", PyExc_Exception, nullptr);
  ex.compilation = PyErr_NewExceptionWithDoc(
      "kiln.CompilationError", "The kernel does not compile: str(e) shows file:line:col and the source line.",
      ex.base, nullptr);
  py::tuple argBases = py::make_tuple(py::handle(ex.base), py::handle(PyExc_TypeError));
  ex.argument = PyErr_NewExceptionWithDoc("kiln.ArgumentError", "Wrong number, type or place of launch arguments.",
                                          argBases.ptr(), nullptr);
  ex.outOfResources = PyErr_NewExceptionWithDoc(
      "kiln.OutOfResources", "The configuration needs more shared memory or registers than the GPU has.", ex.base,
      nullptr);
  py::tuple rtBases = py::make_tuple(py::handle(ex.base), py::handle(PyExc_RuntimeError));
  ex.execution = PyErr_NewExceptionWithDoc(
      "kiln.KernelError", "The interpreter stopped the kernel (out-of-bounds access, failed device_assert).",
      rtBases.ptr(), nullptr);
  ex.device = PyErr_NewExceptionWithDoc("kiln.DeviceError", "No usable GPU, or a CUDA call failed.", rtBases.ptr(),
                                        nullptr);
  m.attr("KilnError") = py::handle(ex.base);
  m.attr("CompilationError") = py::handle(ex.compilation);
  m.attr("ArgumentError") = py::handle(ex.argument);
  m.attr("OutOfResources") = py::handle(ex.outOfResources);
  m.attr("KernelError") = py::handle(ex.execution);
  m.attr("DeviceError") = py::handle(ex.device);
}

void raise(const LaunchStatus& s) { raise(s.kind, *s.error); }

void raise(LaunchErrorKind kind, const Error& e) {
  const Exceptions& ex = exceptions();
  PyObject* type = ex.device;
  switch (kind) {
    case LaunchErrorKind::Compile: type = ex.compilation; break;
    case LaunchErrorKind::Argument: type = ex.argument; break;
    case LaunchErrorKind::OutOfResources: type = ex.outOfResources; break;
    case LaunchErrorKind::Execution: type = ex.execution; break;
    case LaunchErrorKind::Device: type = ex.device; break;
  }
  py::object exc = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", e.text.c_str()));
  if (!exc) throw py::error_already_set();
  exc.attr("message") = e.message;
  exc.attr("file") = e.file;
  exc.attr("line") = e.line;
  exc.attr("col") = e.col;
  exc.attr("internal") = e.internal;
  PyErr_SetObject(type, exc.ptr());
  throw py::error_already_set();
}

void raiseArgumentError(const std::string& message) {
  PyErr_SetString(exceptions().argument, message.c_str());
  throw py::error_already_set();
}

}  // namespace kiln::python
