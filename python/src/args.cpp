// Python objects -> kiln::LaunchArg: torch tensors (torch_tensor.cpp; CUDA: device pointers, CPU: host
// buffers), NumPy arrays and __cuda_array_interface__ objects (array_interface.cpp), Python scalars and
// strings, tuples of them; anything else goes through kiln._args.convert (DLPack, NumPy scalars,
// tl.constexpr). A kiln.TensorWrapper (triton.reinterpret) is its base with the pointee replaced.
#include "args.h"

#include <cstring>

#include "array_interface.h"
#include "errors.h"
#include "torch_tensor.h"

namespace kiln::python {

namespace {

struct DtypeName {
  const char* torch;  // attribute of the torch module
  const char* kiln;   // Triton's spelling in signatures
};
constexpr DtypeName kTorchDtypes[] = {
    {"float32", "fp32"}, {"float16", "fp16"}, {"bfloat16", "bf16"},      {"float64", "fp64"},
    {"int8", "i8"},      {"int16", "i16"},    {"int32", "i32"},          {"int64", "i64"},
    {"uint8", "u8"},     {"uint16", "u16"},   {"uint32", "u32"},         {"uint64", "u64"},
    {"bool", "i1"},      {"float8_e4m3fn", "fp8e4nv"}, {"float8_e5m2", "fp8e5"},
    {"float8_e4m3fnuz", "fp8e4b8"}, {"float8_e5m2fnuz", "fp8e5b16"},
};

// A TensorWrapper's dtype by its short name (TensorWrapper._pointee, Triton's canonical names) -> the
// pointee in kiln's spelling (in DtypeName's fields: short name, kiln's): the element types kiln's
// compiler takes behind a pointer.
constexpr DtypeName kPointees[] = {
    {"fp32", "fp32"}, {"fp16", "fp16"}, {"bf16", "bf16"}, {"fp64", "fp64"},       {"u1", "i1"},
    {"i8", "i8"},     {"i16", "i16"},   {"i32", "i32"},   {"i64", "i64"},         {"u8", "u8"},
    {"u16", "u16"},   {"u32", "u32"},   {"u64", "u64"},   {"fp8e4nv", "fp8e4nv"}, {"fp8e5", "fp8e5"},
    {"fp8e4b15", "fp8e4b15"}, {"fp8e4b8", "fp8e4b8"}, {"fp8e5b16", "fp8e5b16"},
};


std::string typeName(PyObject* obj) { return Py_TYPE(obj)->tp_name; }

}  // namespace

[[noreturn]] void argError(const ArgSite& site, const std::string& message) {
  raiseArgumentError(site.str() + " " + message);
}

py::object check(PyObject* o) {
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

uint64_t toAddress(PyObject* o) {
  unsigned long long v = PyLong_AsUnsignedLongLong(o);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

std::string ArgSite::str() const {
  return "kernel '" + kernel + "': argument " + std::to_string(index) + " ('" + param + "')" +
         (element.empty() ? "" : ", element " + element);
}

ModuleState& state() {
  static ModuleState* s = [] {
    auto* st = new ModuleState();
    st->sDataPtr = PyUnicode_InternFromString("data_ptr");
    st->sGetDevice = PyUnicode_InternFromString("get_device");
    st->sDtype = PyUnicode_InternFromString("dtype");
    st->tensorDtype.name = st->sDtype;
    st->tensorDataPtr.name = st->sDataPtr;
    st->tensorDataPtr.method = true;
    st->tensorGetDevice.name = st->sGetDevice;
    st->tensorGetDevice.method = true;
    st->sCai = PyUnicode_InternFromString("__cuda_array_interface__");
    st->sAi = PyUnicode_InternFromString("__array_interface__");
    return st;
  }();
  return *s;
}

void findTorch(ModuleState& s) {
  if (s.torchTensorType) return;
  PyObject* modules = PyImport_GetModuleDict();  // borrowed
  PyObject* torch = PyDict_GetItemString(modules, "torch");
  if (!torch) return;
  py::handle t(torch);
  if (!py::hasattr(t, "Tensor") || !py::hasattr(t, "_C")) return;  // torch is still being imported
  py::object tensor = t.attr("Tensor");
  if (!PyType_Check(tensor.ptr())) return;
  s.torchDtypes.clear();
  for (const DtypeName& d : kTorchDtypes)
    if (py::hasattr(t, d.torch)) s.torchDtypes.emplace_back(py::object(t.attr(d.torch)).release().ptr(), d.kiln);  // kept for good
  try {
    py::object c = t.attr("_C");
    if (py::hasattr(c, "_cuda_getCurrentRawStream")) {
      PyObject* f = py::object(c.attr("_cuda_getCurrentRawStream")).release().ptr();
      s.currentRawStream = f;
      // A builtin taking one argument (torch's THCPModule_getCurrentStream_raw): called directly.
      if (PyCFunction_Check(f) && (PyCFunction_GET_FLAGS(f) & (METH_VARARGS | METH_KEYWORDS | METH_NOARGS | METH_O |
                                                               METH_FASTCALL | METH_METHOD)) == METH_O) {
        s.currentRawStreamFn = PyCFunction_GET_FUNCTION(f);
        s.currentRawStreamSelf = PyCFunction_GET_SELF(f);
      }
      if (py::hasattr(t, "cuda")) s.currentDevice = py::object(t.attr("cuda").attr("current_device")).release().ptr();
    }
  } catch (const py::error_already_set&) {
  }
  s.torchTensorType = tensor.release().ptr();
}

int currentDevice() {
  ModuleState& s = state();
  if (!s.torchTensorType) findTorch(s);
  if (!s.currentDevice) return 0;
  py::object d = check(PyObject_CallNoArgs(s.currentDevice));
  long device = PyLong_AsLong(d.ptr());
  if (device == -1 && PyErr_Occurred()) throw py::error_already_set();
  return int(device);
}

void* currentStream(int device) {
  ModuleState& s = state();
  if (!s.torchTensorType) findTorch(s);
  if (!s.currentRawStream) return nullptr;
  py::object d = check(PyLong_FromLong(device));
  py::object r = check(s.currentRawStreamFn ? s.currentRawStreamFn(s.currentRawStreamSelf, d.ptr())
                                            : PyObject_CallOneArg(s.currentRawStream, d.ptr()));
  return reinterpret_cast<void*>(toAddress(r.ptr()));
}

namespace {

// numpy.ndarray and numpy.float16, once numpy is imported (never imports it).
void findNumpy(ModuleState& s) {
  if (s.ndarrayType) return;
  PyObject* np = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");
  if (np && PyObject_HasAttrString(np, "ndarray") && PyObject_HasAttrString(np, "float16")) {
    s.numpyFloat16Type = PyObject_GetAttrString(np, "float16");
    s.ndarrayType = PyObject_GetAttrString(np, "ndarray");
  }
}

// kiln.TensorWrapper, found in sys.modules once kiln's Python package has defined it.
void findTensorWrapper(ModuleState& s) {
  PyObject* m = PyDict_GetItemString(PyImport_GetModuleDict(), "kiln._tensor_wrapper");
  if (m && PyObject_HasAttrString(m, "TensorWrapper")) s.tensorWrapperType = PyObject_GetAttrString(m, "TensorWrapper");
}

// A TensorWrapper: its base (a tensor or an array, or another wrapper) as a pointer to its dtype.
LaunchArg fromWrapper(ModuleState& s, PyObject* obj, const ArgSite& site) {
  py::object dtype = check(PyObject_GetAttrString(obj, "dtype"));
  py::object base = check(PyObject_GetAttrString(obj, "base"));
  while (PyObject_TypeCheck(base.ptr(), reinterpret_cast<PyTypeObject*>(s.tensorWrapperType)))
    base = check(PyObject_GetAttrString(base.ptr(), "base"));  // the outermost dtype counts
  std::string name = py::str(check(PyObject_GetAttrString(obj, "_pointee"))).cast<std::string>();
  const char* pointee = nullptr;
  for (const DtypeName& p : kPointees)
    if (name == p.torch) {
      pointee = p.kiln;
      break;
    }
  if (!pointee)
    argError(site, "is a TensorWrapper of dtype " + py::str(dtype).cast<std::string>() +
                       ", which kiln kernels cannot point to (kiln's pointers are to fp32, fp16, bf16, fp64, "
                       "fp8e4nv, fp8e5, fp8e4b15, fp8e4b8, fp8e5b16, i1, i8, i16, i32, i64, u8, u16, u32 or u64)");
  PyObject* b = base.ptr();
  if (!s.torchTensorType) findTorch(s);
  if (s.torchTensorType && PyObject_TypeCheck(b, reinterpret_cast<PyTypeObject*>(s.torchTensorType)))
    return fromTorch(s, b, site, pointee);
  if (PyObject_HasAttr(b, s.sCai)) {
    py::object cai = check(PyObject_GetAttr(b, s.sCai));
    return fromInterface(b, cai.ptr(), true, site, pointee);
  }
  findNumpy(s);
  if (s.ndarrayType && PyObject_TypeCheck(b, reinterpret_cast<PyTypeObject*>(s.ndarrayType))) {
    py::object ai = check(PyObject_GetAttr(b, s.sAi));
    return fromInterface(b, ai.ptr(), false, site, pointee);
  }
  argError(site, "is a TensorWrapper of " + typeName(b) + ", which kiln kernels cannot take (wrap a tensor or "
                 "an array)");
}

LaunchArg convert(PyObject* obj, const ArgSite& site, std::vector<py::object>& keep, bool allowFallback,
                  bool signatureStrings);

// A tuple: its elements converted one by one into an array kept alive with the launch. An element
// passed as tl.constexpr(v) is marked so (it specializes as a literal, as in Triton); a NamedTuple
// also carries its class and field names ("Tensor ptr shape stride"), part of its signature entry.
LaunchArg fromTuple(PyObject* obj, const ArgSite& site, std::vector<py::object>& keep, bool signatureStrings) {
  const Py_ssize_t n = PyTuple_GET_SIZE(obj);
  auto* elems = new LaunchArg[size_t(n > 0 ? n : 1)];
  keep.push_back(py::capsule(elems, [](void* p) { delete[] static_cast<LaunchArg*>(p); }));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(obj, i);
    ArgSite at{site.kernel, site.param, site.index, site.element + "[" + std::to_string(i) + "]"};
    const bool isConst = std::string_view(Py_TYPE(item)->tp_name) == "constexpr";
    elems[i] = convert(item, at, keep, true, signatureStrings && !isConst);
    elems[i].isConstexpr = isConst;
    if (signatureStrings && !isConst && elems[i].kind == LaunchArg::Kind::String)
      elems[i].kind = LaunchArg::Kind::Signature;
  }
  std::string named;
  if (PyObject* fields = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "_fields")) {
    py::object f = py::reinterpret_steal<py::object>(fields);
    if (PyTuple_Check(fields) && PyTuple_GET_SIZE(fields) == n) {
      named = Py_TYPE(obj)->tp_name;
      named = named.substr(named.rfind('.') + 1);  // a static type's "module.Class"
      for (Py_ssize_t i = 0; i < n; ++i) named += " " + py::str(PyTuple_GET_ITEM(fields, i)).cast<std::string>();
    }
  } else {
    PyErr_Clear();
  }
  std::string_view namedView;
  if (!named.empty()) {  // LaunchArg keeps a view: the text lives in a Python string kept for the launch
    keep.push_back(py::str(named));
    namedView = PyUnicode_AsUTF8(keep.back().ptr());
  }
  return LaunchArg::tuple(std::span<const LaunchArg>(elems, size_t(n)), namedView);
}

LaunchArg convert(PyObject* obj, const ArgSite& site, std::vector<py::object>& keep, bool allowFallback,
                  bool signatureStrings) {
  ModuleState& s = state();
  // Exact types first: they are what launches pass most.
  if (s.torchTensorType && Py_TYPE(obj) == reinterpret_cast<PyTypeObject*>(s.torchTensorType))
    return fromTorch(s, obj, site);
  if (PyBool_Check(obj)) return LaunchArg::boolean(obj == Py_True);
  if (PyLong_Check(obj)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      return LaunchArg::integer(v);
    }
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(obj);
      if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
        LaunchArg a = LaunchArg::integer(int64_t(u));
        a.kind = LaunchArg::Kind::UInt;
        return a;
      }
      PyErr_Clear();
    }
    argError(site, "is the integer " + py::str(obj).cast<std::string>() + ", outside the 64-bit range kernels take");
  }
  if (PyFloat_Check(obj)) return LaunchArg::real(PyFloat_AS_DOUBLE(obj));
  if (obj == Py_None) {
    LaunchArg a;
    a.kind = LaunchArg::Kind::None;
    return a;
  }
  if (PyTuple_Check(obj)) return fromTuple(obj, site, keep, signatureStrings);  // torch.Size, NamedTuples too
  if (PyList_Check(obj) || PyDict_Check(obj))
    argError(site, "is " + typeName(obj) + ", which kiln kernels cannot take (pass a tuple: kernels take "
                   "tuples of tensors, arrays, numbers, None and tuples)");
  if (!s.torchTensorType) findTorch(s);
  if (s.torchTensorType && PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(s.torchTensorType)))
    return fromTorch(s, obj, site);
  if (PyUnicode_Check(obj)) {
    Py_ssize_t n = 0;
    const char* text = PyUnicode_AsUTF8AndSize(obj, &n);
    if (!text) throw py::error_already_set();
    keep.push_back(py::reinterpret_borrow<py::object>(obj));
    return LaunchArg::string(std::string_view(text, size_t(n)));
  }
  if (PyObject_HasAttr(obj, s.sCai)) {
    py::object cai = check(PyObject_GetAttr(obj, s.sCai));
    return fromInterface(obj, cai.ptr(), true, site);
  }
  findNumpy(s);
  // A NumPy float16 scalar keeps its type: the parameter compiles as fp16 (other NumPy scalars take
  // the fallback: float32 and float64 are floats, fp32, as Python floats are).
  if (s.numpyFloat16Type && Py_TYPE(obj) == reinterpret_cast<PyTypeObject*>(s.numpyFloat16Type)) {
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return LaunchArg::real(v, "fp16");
  }
  if (s.ndarrayType && PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(s.ndarrayType))) {
    py::object ai = check(PyObject_GetAttr(obj, s.sAi));
    return fromInterface(obj, ai.ptr(), false, site);
  }
  if (!s.tensorWrapperType) findTensorWrapper(s);
  if (s.tensorWrapperType && PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(s.tensorWrapperType)))
    return fromWrapper(s, obj, site);
  // A dtype (tl.float16) for a constexpr parameter: the signature entry "tl.fp16".
  if (std::string_view(Py_TYPE(obj)->tp_name) == "dtype" && PyObject_HasAttrString(obj, "name")) {
    py::object name = check(PyObject_GetAttrString(obj, "name"));
    if (PyUnicode_Check(name.ptr())) {
      std::string n = name.cast<std::string>();
      // Triton's dtype names as kiln's signatures spell them: int32 -> i32, uint8 -> u8.
      if (n.rfind("uint", 0) == 0) n = "u" + n.substr(4);
      else if (n.rfind("int", 0) == 0) n = "i" + n.substr(3);
      // LaunchArg keeps a view: the text lives in a Python string kept alive for the launch.
      keep.push_back(py::str("tl." + n));
      LaunchArg a = LaunchArg::string(PyUnicode_AsUTF8(keep.back().ptr()));
      a.kind = LaunchArg::Kind::Signature;
      return a;
    }
  }
  // A @jit function passed as an argument, as kiln._args turned it: its signature entry ("@fn_3").
  if (std::string_view(Py_TYPE(obj)->tp_name) == "_FunctionArgument") {
    py::object sig = check(PyObject_GetAttrString(obj, "signature"));
    keep.push_back(sig);
    LaunchArg a = LaunchArg::string(PyUnicode_AsUTF8(sig.ptr()));
    a.kind = LaunchArg::Kind::Signature;
    s.functionArguments.emplace_back(a.s.substr(1));
    return a;
  }
  // Everything else: Python decides (DLPack capsules, NumPy scalars, tl.constexpr, @jit functions).
  if (s.fallback && allowFallback) {
    py::object converted = check(PyObject_CallOneArg(s.fallback, obj));
    if (converted.ptr() != obj && !converted.is_none()) {
      keep.push_back(converted);
      return convert(converted.ptr(), site, keep, false, signatureStrings);
    }
  }
  if (PyFunction_Check(obj) || PyCFunction_Check(obj))
    argError(site, "is a Python function, not a @jit function (decorate it with @triton.jit to pass it to a "
                   "kernel)");
  argError(site, "is " + typeName(obj) + ", which kiln kernels cannot take (pass a tensor, an array, an int, a "
                 "float, a bool or None)");
}

}  // namespace

LaunchArg toLaunchArg(PyObject* obj, const ArgSite& site, std::vector<py::object>& keep, bool signatureStrings) {
  return convert(obj, site, keep, true, signatureStrings);
}

int knownDevice(const LaunchArg& a) {
  if (a.kind == LaunchArg::Kind::Pointer) return a.host ? -1 : a.device;
  if (a.kind != LaunchArg::Kind::Tuple) return -1;
  for (uint32_t i = 0; i < a.count; ++i)
    if (int d = knownDevice(a.elems[i]); d >= 0) return d;
  return -1;
}

const LaunchArg* firstDevicePointer(const LaunchArg& a) {
  if (a.kind == LaunchArg::Kind::Pointer) return a.host ? nullptr : &a;
  if (a.kind != LaunchArg::Kind::Tuple) return nullptr;
  for (uint32_t i = 0; i < a.count; ++i)
    if (const LaunchArg* p = firstDevicePointer(a.elems[i])) return p;
  return nullptr;
}

}  // namespace kiln::python
