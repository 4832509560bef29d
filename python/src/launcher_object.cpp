// The Launcher type (launcher_object.h): kernel[grid] objects, their vectorcall into PyJit::launch,
// and finding a JitFunction object's PyJit without pybind11's casting machinery.
#include "launcher_object.h"

#include <pybind11/pybind11.h>
#include <structmember.h>

#include "jit.h"

namespace kiln::python {

namespace {

// kernel[grid]: a callable that launches with that grid. A plain CPython type with vectorcall (not a
// pybind11 class): creating and calling it is the hot path, and this keeps it to a few pointer moves.
struct LauncherObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* owner;  // the JitFunction (keeps jit alive)
  PyJit* jit;
  PyObject* grid;
};

// Runs `body` (returning a new reference) for a raw CPython entry point: a C++ or pybind11 exception
// becomes the pending Python exception and the result is null, as CPython expects.
template <class F>
PyObject* withPythonErrors(F&& body) {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* launcherCall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  size_t nargs = PyVectorcall_NARGS(nargsf);
  return withPythonErrors([&] {
    Keywords kw;
    kw.names = kwnames;
    kw.values = args + nargs;
    return l->jit->launch(l->owner, l->grid, args, nargs, kw, false).release().ptr();
  });
}

void launcherDealloc(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_XDECREF(l->owner);
  Py_XDECREF(l->grid);
  PyTypeObject* type = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(type);  // instances of a heap type hold a reference to it
}

PyObject* newLauncher(PyObject* owner, PyJit* jit, PyObject* grid) {
  auto* l = PyObject_New(LauncherObject, launcherType());
  if (!l) throw py::error_already_set();
  l->vectorcall = &launcherCall;
  Py_INCREF(owner);
  l->owner = owner;
  l->jit = jit;
  Py_INCREF(grid);
  l->grid = grid;
  return reinterpret_cast<PyObject*>(l);
}

// The PyJit of a JitFunction object (or of a Python subclass's): read straight from pybind11's
// instance when it has the simple layout, as kernel[grid] runs on every launch.
PyJit& pyJitOf(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  if (inst->simple_layout && inst->simple_holder_constructed && inst->simple_value_holder[0])
    return *static_cast<PyJit*>(inst->simple_value_holder[0]);
  return py::handle(self).cast<PyJit&>();  // other layouts; raises for an object not initialised
}

}  // namespace

PyTypeObject* launcherType() {
  static PyTypeObject* type = [] {
    static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(&launcherDealloc)},
                                  {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
                                  {Py_tp_doc, const_cast<char*>("kernel[grid]: call it with the kernel's arguments.")},
                                  {0, nullptr}};
    static PyMemberDef members[] = {
        {"__vectorcalloffset__", T_PYSSIZET, offsetof(LauncherObject, vectorcall), READONLY, nullptr},
        {nullptr, 0, 0, 0, nullptr}};
    static PyType_Slot withMembers[] = {slots[0], slots[1], slots[2], {Py_tp_members, members}, {0, nullptr}};
    static PyType_Spec spec = {"kiln._kiln.Launcher", sizeof(LauncherObject), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, withMembers};
    return reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  }();
  return type;
}

PyObject* jitGetItem(PyObject* self, PyObject* grid) {
  return withPythonErrors([&] { return newLauncher(self, &pyJitOf(self), grid); });
}

}  // namespace kiln::python
