// torch.Tensor -> kiln::LaunchArg (torch_tensor.h). Tensors are read with the CPython API so the
// per-launch cost stays a few attribute reads: for plain torch.Tensor objects, direct calls of torch's C
// getters (TensorAttr), found again whenever torch.Tensor changes.
#include "torch_tensor.h"

#include "errors.h"

namespace kiln::python {

namespace {

// Where torch.Tensor's C implementation of one attribute is, or nothing (then it is read as usual).
void findTensorAttr(PyTypeObject* type, TensorAttr& a) {
  Py_CLEAR(a.descr);
  a.get = nullptr;
  a.closure = nullptr;
  a.noargs = nullptr;
  PyObject* d = _PyType_Lookup(type, a.name);  // borrowed; through the MRO (torch._C.TensorBase)
  // The calls below skip the descriptor's own check that the object is of its type: checked here once.
  if (!d || (Py_TYPE(d) != &PyGetSetDescr_Type && Py_TYPE(d) != &PyMethodDescr_Type) ||
      !PyType_IsSubtype(type, PyDescr_TYPE(d)))
    return;
  if (!a.method && Py_TYPE(d) == &PyGetSetDescr_Type) {
    PyGetSetDef* def = reinterpret_cast<PyGetSetDescrObject*>(d)->d_getset;
    a.get = def->get;
    a.closure = def->closure;
  } else if (a.method && Py_TYPE(d) == &PyMethodDescr_Type) {
    PyMethodDef* def = reinterpret_cast<PyMethodDescrObject*>(d)->d_method;
    constexpr int kCallFlags = METH_VARARGS | METH_KEYWORDS | METH_NOARGS | METH_O | METH_FASTCALL | METH_METHOD;
    if ((def->ml_flags & kCallFlags) == METH_NOARGS) {
      a.noargs = def->ml_meth;
    } else {
      Py_INCREF(d);
      a.descr = d;
    }
  }
}

// Whether obj's attributes can be read through the TensorAttr accessors: it is a torch.Tensor (not a
// subclass, which may override them) and the type has not been changed since they were found (a
// monkeypatched torch.Tensor.data_ptr changes its version tag, and the accessors are found again).
bool plainTensor(ModuleState& s, PyObject* obj) {
  auto* type = reinterpret_cast<PyTypeObject*>(s.torchTensorType);
  if (Py_TYPE(obj) != type || type->tp_version_tag == 0) return false;  // 0: no tag now (just modified)
  if (type->tp_version_tag == s.tensorTypeVersion) return true;
  for (TensorAttr* a : {&s.tensorDtype, &s.tensorDataPtr, &s.tensorGetDevice}) findTensorAttr(type, *a);
  s.tensorTypeVersion = type->tp_version_tag;
  return s.tensorTypeVersion != 0;
}

// A new reference to the attribute (or the method's result), or null with a Python error set.
PyObject* readTensorAttr(const TensorAttr& a, PyObject* obj, bool plain) {
  if (plain) {
    if (a.get) return a.get(obj, a.closure);
    if (a.noargs) return a.noargs(obj, nullptr);
    if (a.descr) return PyObject_Vectorcall(a.descr, &obj, 1, nullptr);
  }
  return a.method ? PyObject_CallMethodNoArgs(obj, a.name) : PyObject_GetAttr(obj, a.name);
}

// Called with the error data_ptr() raised: a sparse (or otherwise non-strided) tensor has no data
// pointer, and torch's message would not say which argument; kiln's does. Other errors pass through.
[[noreturn]] void refuseLayout(PyObject* obj, const ArgSite& site) {
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  PyObject* layout = PyObject_GetAttrString(obj, "layout");
  std::string name;
  if (layout) {
    name = py::str(layout).cast<std::string>();
    Py_DECREF(layout);
  } else {
    PyErr_Clear();
  }
  if (!name.empty() && name != "torch.strided") {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    argError(site, "is a tensor of layout " + name + ", which kiln kernels cannot take (they index dense, "
                   "strided memory): pass t.to_dense()");
  }
  PyErr_Restore(type, value, trace);
  throw py::error_already_set();
}

// `pointee`: the element type the kernel sees (a TensorWrapper's), or null for the tensor's own.
}  // namespace

LaunchArg fromTorch(ModuleState& s, PyObject* obj, const ArgSite& site, const char* pointee) {
  const bool plain = plainTensor(s, obj);
  const char* dtypeName = pointee;
  if (!dtypeName) {
    py::object dtype = check(readTensorAttr(s.tensorDtype, obj, plain));
    for (const auto& [object, name] : s.torchDtypes)
      if (object == dtype.ptr()) {
        dtypeName = name;
        break;
      }
    if (!dtypeName) argError(site, "is a tensor of " + py::str(dtype).cast<std::string>() +
                                       ", which kiln kernels cannot take");
  }
  PyObject* address = readTensorAttr(s.tensorDataPtr, obj, plain);
  if (!address) refuseLayout(obj, site);
  py::object ptr = py::reinterpret_steal<py::object>(address);
  py::object dev = check(readTensorAttr(s.tensorGetDevice, obj, plain));
  long device = PyLong_AsLong(dev.ptr());
  if (device == -1 && PyErr_Occurred()) throw py::error_already_set();
  LaunchArg a = LaunchArg::devicePointer(toAddress(ptr.ptr()), dtypeName, int(device));
  if (device >= 0) {
    a.what = "a CUDA tensor";
    return a;
  }
  // A CPU tensor: a host buffer from its first element to the end of its storage.
  py::handle h(obj);
  py::object storage = h.attr("untyped_storage")();
  uint64_t begin = storage.attr("data_ptr")().cast<uint64_t>();
  size_t nbytes = storage.attr("nbytes")().cast<size_t>();
  a.host = true;
  a.device = -1;
  a.bytes = a.address >= begin && a.address <= begin + nbytes ? size_t(begin + nbytes - a.address) : 0;
  a.what = "a CPU tensor";
  return a;
}


}  // namespace kiln::python
