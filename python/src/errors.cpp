// kiln's Python exceptions (errors.h): the types, made once at import, and raising them.
#include "errors.h"

namespace kiln::python {

namespace {

// kiln's exceptions, created at module init: KilnError and one subclass per LaunchErrorKind, under
// Triton's two base classes, so `except triton.TritonError` and `pytest.raises(InterpreterError)`
// written for Triton catch kiln's errors.
struct Exceptions {
  PyObject* triton = nullptr;          // TritonError(Exception): Triton's base of all its errors
  PyObject* interpreter = nullptr;     // InterpreterError(TritonError)
  PyObject* base = nullptr;            // KilnError(TritonError)
  // CompilationError(KilnError, InterpreterError): Triton's interpreter reports what its compiler
  // would call a compilation error as an InterpreterError; kiln compiles for both, so it is both.
  PyObject* compilation = nullptr;
  PyObject* argument = nullptr;        // ArgumentError(KilnError, TypeError)
  PyObject* outOfResources = nullptr;  // OutOfResources(KilnError)
  // KernelError(KilnError, InterpreterError, RuntimeError): the interpreter stopped the kernel
  PyObject* execution = nullptr;
  PyObject* device = nullptr;          // DeviceError(KilnError, RuntimeError)
  PyObject* compilationWarning = nullptr;  // CompilationWarning(UserWarning): Kernel::warnings()
  PyObject* longLaunchWarning = nullptr;   // LongLaunchWarning(UserWarning): an interpreter run of minutes
};
Exceptions& exceptions() {
  static Exceptions e;
  return e;
}

}  // namespace

void defineExceptions(py::module_& m) {
  Exceptions& ex = exceptions();
  ex.triton = PyErr_NewExceptionWithDoc("kiln.TritonError", "Base class of the errors of Triton's API (kiln's too).",
                                        PyExc_Exception, nullptr);
  ex.interpreter = PyErr_NewExceptionWithDoc(
      "kiln.InterpreterError", "Triton's error of a kernel run on the interpreter; kiln's CompilationError and "
      "KernelError derive from it.", ex.triton, nullptr);
  ex.base = PyErr_NewExceptionWithDoc("kiln.KilnError", "Base class of kiln's errors.", ex.triton, nullptr);
  py::tuple compileBases = py::make_tuple(py::handle(ex.base), py::handle(ex.interpreter));
  ex.compilation = PyErr_NewExceptionWithDoc(
      "kiln.CompilationError", "The kernel does not compile: str(e) shows file:line:col and the source line.",
      compileBases.ptr(), nullptr);
  py::tuple argBases = py::make_tuple(py::handle(ex.base), py::handle(PyExc_TypeError));
  ex.argument = PyErr_NewExceptionWithDoc("kiln.ArgumentError", "Wrong number, type or place of launch arguments.",
                                          argBases.ptr(), nullptr);
  ex.outOfResources = PyErr_NewExceptionWithDoc(
      "kiln.OutOfResources", "The configuration needs more shared memory or registers than the GPU has.", ex.base,
      nullptr);
  py::tuple rtBases = py::make_tuple(py::handle(ex.base), py::handle(PyExc_RuntimeError));
  py::tuple kernelBases = py::make_tuple(py::handle(ex.base), py::handle(ex.interpreter), py::handle(PyExc_RuntimeError));
  ex.execution = PyErr_NewExceptionWithDoc(
      "kiln.KernelError", "The interpreter stopped the kernel (out-of-bounds access, failed device_assert).",
      kernelBases.ptr(), nullptr);
  ex.device = PyErr_NewExceptionWithDoc("kiln.DeviceError", "No usable GPU, or a CUDA call failed.", rtBases.ptr(),
                                        nullptr);
  ex.compilationWarning = PyErr_NewExceptionWithDoc(
      "kiln.CompilationWarning", "The kernel compiles, but the compiler found something likely wrong in it "
      "(a 32-bit offset that can pass 2^31); shown at the kernel's line.", PyExc_UserWarning, nullptr);
  ex.longLaunchWarning = PyErr_NewExceptionWithDoc(
      "kiln.LongLaunchWarning", "An interpreter launch whose grid will take more than a minute at the speed "
      "its first programs ran.", PyExc_UserWarning, nullptr);
  m.attr("CompilationWarning") = py::handle(ex.compilationWarning);
  m.attr("LongLaunchWarning") = py::handle(ex.longLaunchWarning);
  m.attr("TritonError") = py::handle(ex.triton);
  m.attr("InterpreterError") = py::handle(ex.interpreter);
  m.attr("KilnError") = py::handle(ex.base);
  m.attr("CompilationError") = py::handle(ex.compilation);
  m.attr("ArgumentError") = py::handle(ex.argument);
  m.attr("OutOfResources") = py::handle(ex.outOfResources);
  m.attr("KernelError") = py::handle(ex.execution);
  m.attr("DeviceError") = py::handle(ex.device);
}

PyObject* compilationWarning() { return exceptions().compilationWarning; }
PyObject* longLaunchWarning() { return exceptions().longLaunchWarning; }

void raise(const LaunchStatus& s) { raise(s.kind, *s.error); }

void raise(LaunchErrorKind kind, const Error& e) {
  // The stop request that ended the run left Python's error (KeyboardInterrupt, or whatever a signal
  // handler raised) pending: that error is the one to raise.
  if (kind == LaunchErrorKind::Interrupted) {
    if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  const Exceptions& ex = exceptions();
  PyObject* type = ex.device;
  switch (kind) {
    case LaunchErrorKind::Compile: type = ex.compilation; break;
    case LaunchErrorKind::Argument: type = ex.argument; break;
    case LaunchErrorKind::OutOfResources: type = ex.outOfResources; break;
    case LaunchErrorKind::Execution: type = ex.execution; break;
    case LaunchErrorKind::Device: type = ex.device; break;
    case LaunchErrorKind::Interrupted: break;  // raised above
  }
  py::object exc = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", e.text.c_str()));
  if (!exc) throw py::error_already_set();
  exc.attr("message") = e.message;
  exc.attr("file") = e.file;
  exc.attr("line") = e.line;
  exc.attr("col") = e.col;
  exc.attr("internal") = e.internal;
  // The bare message as the error's __cause__: where Triton raises CompilationError (or, on its
  // interpreter, InterpreterError) `from` the exception its front end hit, code written for it reads
  // the message from e.__cause__ (test_core's invalid-axis tests do).
  if ((kind == LaunchErrorKind::Compile || kind == LaunchErrorKind::Execution) && !e.message.empty() &&
      e.message != e.text) {
    PyObject* cause = PyObject_CallFunction(type, "s", e.message.c_str());
    if (!cause) throw py::error_already_set();
    PyException_SetCause(exc.ptr(), cause);  // steals `cause`
  }
  PyErr_SetObject(type, exc.ptr());
  throw py::error_already_set();
}

void raiseArgumentError(const std::string& message) {
  PyErr_SetString(exceptions().argument, message.c_str());
  throw py::error_already_set();
}

}  // namespace kiln::python
