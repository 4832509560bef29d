// The _kiln extension module: kiln::JitFunction for Python (binding launch arguments to parameters,
// the grid, the launch options, PyTorch's current stream), compiled kernels with their stages and
// resources, and kiln's exceptions. The hot path `kernel[grid](*args)` is C++ from end to end.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <structmember.h>

#include <algorithm>
#include <memory>
#include <span>
#include <type_traits>
#include <unordered_map>

#include "args.h"
#include "kiln/launcher.h"
#include "sema/ops_common.h"

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

[[noreturn]] void raise(const LaunchStatus& s) {
  const Exceptions& ex = exceptions();
  PyObject* type = ex.device;
  switch (s.kind) {
    case LaunchErrorKind::Compile: type = ex.compilation; break;
    case LaunchErrorKind::Argument: type = ex.argument; break;
    case LaunchErrorKind::OutOfResources: type = ex.outOfResources; break;
    case LaunchErrorKind::Execution: type = ex.execution; break;
    case LaunchErrorKind::Device: type = ex.device; break;
  }
  const Error& e = *s.error;
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

}  // namespace

void raiseArgumentError(const std::string& message) {
  PyErr_SetString(exceptions().argument, message.c_str());
  throw py::error_already_set();
}

namespace {

// Launch options Triton accepts as keywords; kiln uses num_warps and num_stages and checks num_ctas.
bool isLaunchOption(std::string_view k) {
  return k == "num_warps" || k == "num_stages" || k == "num_ctas" || k == "maxnreg" || k == "enable_fp_fusion" ||
         k == "launch_cooperative_grid" || k == "launch_pdl" || k == "debug" || k == "sanitize_overflow" ||
         k == "num_buffers_warp_spec" || k == "num_consumer_groups" || k == "reg_dec_producer" ||
         k == "reg_inc_consumer" || k == "stream" || k == "device";
}

int optionInt(PyObject* v, const char* name) {
  if (!PyLong_Check(v) || PyBool_Check(v)) raiseArgumentError(std::string(name) + " must be an int");
  return int(PyLong_AsLong(v));
}

class PyJit;

// A vector with room for N elements inline: the per-launch arrays of a kernel with up to N parameters
// take no heap allocation. Only for trivial element types (PyObject*, LaunchArg).
template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector&) = delete;
  SmallVector& operator=(const SmallVector&) = delete;

  void assign(size_t n, const T& value) {
    if (n > N) {
      heap_.assign(n, value);
      data_ = heap_.data();
    } else {
      data_ = reinterpret_cast<T*>(inline_);
      std::uninitialized_fill_n(data_, n, value);
    }
    size_ = n;
  }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  alignas(T) unsigned char inline_[N * sizeof(T)];
  std::vector<T> heap_;
  T* data_ = nullptr;
  size_t size_ = 0;
};

constexpr size_t kInlineArgs = 16;

// A call's keyword arguments: a dict, or (vectorcall) a tuple of names whose values follow the positionals.
struct Keywords {
  PyObject* dict = nullptr;
  PyObject* names = nullptr;
  PyObject* const* values = nullptr;

  template <class F>
  void each(F&& f) const {
    if (dict) {
      PyObject *key, *value;
      Py_ssize_t pos = 0;
      while (PyDict_Next(dict, &pos, &key, &value)) f(key, value);
    } else if (names) {
      for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(names); i < n; ++i) f(PyTuple_GET_ITEM(names, i), values[i]);
    }
  }
};

// The arguments of one call, bound to the kernel's parameters.
struct Bound {
  SmallVector<PyObject*, kInlineArgs> values;  // borrowed, one per parameter
  LaunchOptions options;
  py::object extra;  // a dict of launch-option keywords for the grid's meta dict; null when none
};

class PyJit {
 public:
  PyJit(const std::string& text, const std::string& file, const std::string& kernel,
        std::vector<std::string> doNotSpecialize, py::dict defaults) {
    Result<JitFunction> f = JitFunction::create(state().runtime, Source::fromString(text, file), kernel,
                                                std::move(doNotSpecialize));
    if (!f) {
      LaunchStatus s;
      s.error = f.error();
      s.kind = LaunchErrorKind::Compile;
      raise(s);
    }
    fn_.emplace(f.value());
    for (const KernelParameter& p : fn_->parameters()) {
      names_.push_back(py::reinterpret_steal<py::object>(PyUnicode_InternFromString(p.name.c_str())));
      py::object d;
      if (defaults.contains(p.name.c_str())) d = defaults[p.name.c_str()];
      defaults_.push_back(d);
    }
  }

  const JitFunction& fn() const { return *fn_; }

  py::list params() const {
    py::list out;
    for (const KernelParameter& p : fn_->parameters()) out.append(py::make_tuple(p.name, p.isConstexpr, p.hasDefault));
    return out;
  }

  void bind(PyObject* const* args, size_t nargs, const Keywords& kw, Bound& b) const {
    const std::vector<KernelParameter>& params = fn_->parameters();
    const size_t n = params.size();
    if (nargs > n)
      raiseArgumentError("kernel '" + fn_->name() + "' takes " + std::to_string(n) + " arguments, but " +
                           std::to_string(nargs) + " were given");
    b.values.assign(n, nullptr);
    for (size_t i = 0; i < nargs; ++i) b.values[i] = args[i];
    kw.each([&](PyObject* key, PyObject* value) {
      size_t i = 0;
      while (i < n && names_[i].ptr() != key) ++i;  // interned: usually the same object
      if (i == n)
        for (i = 0; i < n && PyUnicode_Compare(names_[i].ptr(), key) != 0; ++i) {
        }
      Py_ssize_t len = 0;
      const char* k = PyUnicode_AsUTF8AndSize(key, &len);
      if (!k) throw py::error_already_set();
      std::string_view name(k, size_t(len));
      // The options kiln reads; they also bind a parameter of that name. Other options only matter
      // when no parameter takes the name.
      if (name == "num_warps") b.options.num_warps = optionInt(value, k);
      else if (name == "num_stages") b.options.num_stages = optionInt(value, k);
      else if (name == "num_ctas" && optionInt(value, k) != 1)
        raiseArgumentError("kernel '" + fn_->name() + "': kiln launches one CTA per program (num_ctas=1)");
      if (i == n) {
        if (!isLaunchOption(name))
          raiseArgumentError("kernel '" + fn_->name() + "' got an unexpected keyword argument '" +
                             std::string(name) + "'");
        if (!b.extra) b.extra = py::dict();
        b.extra[key] = value;
        return;
      }
      if (b.values[i])
        raiseArgumentError("kernel '" + fn_->name() + "' got multiple values for argument '" + params[i].name + "'");
      b.values[i] = value;
    });
    for (size_t i = 0; i < n; ++i) {
      if (b.values[i]) continue;
      if (!defaults_[i])
        raiseArgumentError("kernel '" + fn_->name() + "' missing required argument '" + params[i].name + "' (" +
                             std::to_string(i) + ")");
      b.values[i] = defaults_[i].ptr();
    }
  }

  // The grid as up to three ints; a callable is called with the meta-parameters (every argument by name).
  Grid grid(PyObject* g, const Bound& b) const {
    py::object holder;
    if (PyCallable_Check(g)) {
      py::object meta = py::reinterpret_steal<py::object>(PyDict_New());
      if (!meta) throw py::error_already_set();
      for (size_t i = 0; i < names_.size(); ++i)
        if (PyDict_SetItem(meta.ptr(), names_[i].ptr(), b.values[i]) < 0) throw py::error_already_set();
      if (b.extra && PyDict_Update(meta.ptr(), b.extra.ptr()) < 0) throw py::error_already_set();
      holder = py::reinterpret_steal<py::object>(PyObject_CallOneArg(g, meta.ptr()));
      if (!holder) throw py::error_already_set();
      g = holder.ptr();
    }
    uint32_t dims[3] = {1, 1, 1};
    auto dim = [&](PyObject* v, int i) {
      py::object index;
      if (!PyLong_Check(v)) {
        index = py::reinterpret_steal<py::object>(PyNumber_Index(v));
        if (!index) {
          PyErr_Clear();
          raiseArgumentError("kernel '" + fn_->name() + "': grid entries must be ints, got " + Py_TYPE(v)->tp_name);
        }
        v = index.ptr();
      }
      long long x = PyLong_AsLongLong(v);
      if (x < 0 || x > UINT32_MAX)
        raiseArgumentError("kernel '" + fn_->name() + "': grid dimension " + std::to_string(i) + " is " +
                              std::to_string(x) + "; it must be in [0, 2^32)");
      dims[i] = uint32_t(x);
    };
    if (PyTuple_Check(g) || PyList_Check(g)) {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(g);
      if (n < 1 || n > 3)
        raiseArgumentError("kernel '" + fn_->name() + "': the grid has " + std::to_string(n) +
                              " dimensions; it must have 1 to 3");
      PyObject** items = PySequence_Fast_ITEMS(g);
      for (Py_ssize_t i = 0; i < n; ++i) dim(items[i], int(i));
    } else {
      dim(g, 0);
    }
    return Grid{dims[0], dims[1], dims[2]};
  }

  // kernel[grid](*args, **kwargs): bind, convert, launch; returns the compiled kernel that ran.
  py::object launch(PyObject* g, PyObject* const* args, size_t nargs, const Keywords& kw, bool interpret) {
    Bound b;
    b.options.interpret = interpret;
    bind(args, nargs, kw, b);
    SmallVector<LaunchArg, kInlineArgs> la;
    std::vector<py::object> keep;
    convert(b, la, keep);
    Grid gr = grid(g, b);
    std::shared_ptr<const CompiledKernel> used;
    LaunchStatus s = fn_->launch(gr, la.span(), b.options, &used);
    if (!s) raise(s);
    return compiledObject(used);
  }

  // The same up to the cache lookup, without running (for measuring the binding's own cost).
  py::object bindOnly(PyObject* g, PyObject* const* args, size_t nargs, const Keywords& kw) {
    Bound b;
    bind(args, nargs, kw, b);
    SmallVector<LaunchArg, kInlineArgs> la;
    std::vector<py::object> keep;
    convert(b, la, keep);
    grid(g, b);
    std::shared_ptr<const CompiledKernel> used;
    LaunchStatus s = fn_->compile(la.span(), b.options, false, &used);
    if (!s) raise(s);
    return compiledObject(used);
  }

  py::object warmup(PyObject* const* args, size_t nargs, const Keywords& kw, bool gpu) {
    Bound b;
    bind(args, nargs, kw, b);
    SmallVector<LaunchArg, kInlineArgs> la;
    std::vector<py::object> keep;
    convert(b, la, keep, /*signatureStrings=*/true);
    for (const LaunchArg& a : la)
      if (a.kind == LaunchArg::Kind::Pointer && !a.host && a.device >= 0) b.options.device = a.device;
    std::shared_ptr<const CompiledKernel> out;
    LaunchStatus s = fn_->compile(la.span(), b.options, gpu, &out);
    if (!s) raise(s);
    return compiledObject(out);
  }

  std::string signature(PyObject* const* args, size_t nargs, const Keywords& kw) {
    Bound b;
    bind(args, nargs, kw, b);
    SmallVector<LaunchArg, kInlineArgs> la;
    std::vector<py::object> keep;
    convert(b, la, keep, true);
    Result<std::string> sig = fn_->signature(la.span());
    if (!sig) {
      LaunchStatus s;
      s.error = sig.error();
      s.kind = LaunchErrorKind::Argument;
      raise(s);
    }
    return sig.value();
  }

  size_t cacheSize() const { return fn_->cacheSize(); }

 private:
  void convert(Bound& b, SmallVector<LaunchArg, kInlineArgs>& la, std::vector<py::object>& keep,
               bool signatureStrings = false) {
    const std::vector<KernelParameter>& params = fn_->parameters();
    la.assign(params.size(), LaunchArg{});
    bool device = false;
    for (size_t i = 0; i < params.size(); ++i) {
      LaunchArg a = toLaunchArg(b.values[i], ArgSite{fn_->name(), params[i].name, i}, keep);
      // warmup("*fp32:16", ...): a string for a runtime parameter is its signature entry.
      if (signatureStrings && a.kind == LaunchArg::Kind::String && !params[i].isConstexpr)
        a.kind = LaunchArg::Kind::Signature;
      if (a.kind == LaunchArg::Kind::Pointer && !a.host && !device) {
        device = true;
        if (a.device >= 0) b.options.device = a.device;
      }
      la[i] = a;
    }
    if (device && !b.options.interpret) {
      b.options.stream = currentStream(b.options.device);
      if (PyErr_Occurred()) throw py::error_already_set();
    }
  }

  py::object compiledObject(const std::shared_ptr<const CompiledKernel>& c) {
    if (c.get() == lastCompiled_) return lastCompiledObject_;  // launches in a loop: the same kernel
    auto it = compiled_.find(c.get());
    py::object o;
    if (it != compiled_.end()) {
      o = it->second;
    } else {
      o = py::cast(std::const_pointer_cast<CompiledKernel>(c));
      compiled_.emplace(c.get(), o);
    }
    lastCompiled_ = c.get();
    lastCompiledObject_ = o;
    return o;
  }

  std::optional<JitFunction> fn_;
  const CompiledKernel* lastCompiled_ = nullptr;  // kept alive by compiled_
  py::object lastCompiledObject_;
  std::vector<py::object> names_;     // interned parameter names
  std::vector<py::object> defaults_;  // null: no default
  std::unordered_map<const CompiledKernel*, py::object> compiled_;
};

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
    return l->jit->launch(l->grid, args, nargs, kw, false).release().ptr();
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

// JitFunction.__getitem__ (kernel[grid]) as a plain METH_O method: pybind11's dispatch would cost more
// than the rest of the binding.
PyObject* jitGetItem(PyObject* self, PyObject* grid) {
  return withPythonErrors([&] { return newLauncher(self, &pyJitOf(self), grid); });
}

py::object optionalInt(int v) { return v < 0 ? py::object(py::none()) : py::object(py::int_(v)); }

PyObject* const* items(const py::tuple& t) { return PySequence_Fast_ITEMS(t.ptr()); }
size_t size(const py::tuple& t) { return size_t(PyTuple_GET_SIZE(t.ptr())); }

py::dict asmOf(const CompiledKernel& c) {
  py::dict d;
  for (const char* stage : {"ast", "ir-before-passes", "ir"}) d[stage] = c.kernel.stage(stage);
  d["ttir"] = d["ir"];
  for (const char* stage : {"gpu-ir", "ptx"}) {
    Result<std::string> text = c.stage(stage);
    if (text) d[stage] = text.value();
  }
  if (d.contains("gpu-ir")) d["ttgir"] = d["gpu-ir"];
  if (!c.cubin.empty()) d["cubin"] = py::bytes(reinterpret_cast<const char*>(c.cubin.data()), c.cubin.size());
  return d;
}

}  // namespace

}  // namespace kiln::python

using namespace kiln;
using namespace kiln::python;

PYBIND11_MODULE(_kiln, m) {
  m.doc() = "kiln's C++ core: compile, specialize, cache and launch Triton-language kernels";
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

  m.def("set_fallback", [](py::object f) { state().fallback = f.release().ptr(); },
        "Sets the converter for launch arguments the extension does not know (kiln._args.convert).");
  m.def("has_gpu", [] {
    std::string why;
    bool ok = state().runtime.hasGpu(&why);
    return py::make_tuple(ok, why);
  });
  m.def("device_count", [] { return state().runtime.deviceCount(); });
  m.def("device_arch", [](int device) { return state().runtime.arch(device); });
  m.def("device_properties", [](int device) -> py::object {
    std::optional<DeviceProperties> p = state().runtime.properties(device);
    if (!p) return py::none();
    py::dict d;
    d["name"] = p->name;
    d["arch"] = p->arch;
    d["multiprocessor_count"] = p->smCount;
    d["warpSize"] = p->warpSize;
    d["max_threads_per_block"] = p->maxThreadsPerBlock;
    d["max_shared_mem"] = p->maxSharedPerBlock;
    d["max_num_regs"] = 65536;  // per SM on every target kiln supports (sm_80, sm_90)
    d["total_memory"] = p->totalMemoryBytes;
    return d;
  });
  // The builtins kernels can call, from the compiler's own table: "tl", "math" or "triton".
  m.def("builtin_names", [](const std::string& ns) {
    unsigned where = ns == "tl" ? sema::kTl : ns == "math" ? sema::kMath : ns == "triton" ? sema::kTriton : 0u;
    return where ? sema::builtinNames(where) : std::vector<std::string>();
  });

  py::class_<CompiledKernel, std::shared_ptr<CompiledKernel>>(m, "CompiledKernel")
      .def_property_readonly("name", [](const CompiledKernel& c) { return c.kernel.name(); })
      .def_readonly("signature", &CompiledKernel::signature)
      .def_readonly("key", &CompiledKernel::key)
      .def_readonly("num_warps", &CompiledKernel::numWarps)
      .def_readonly("num_stages", &CompiledKernel::numStages)
      .def_readonly("arch", &CompiledKernel::arch)
      .def_property_readonly("n_regs", [](const CompiledKernel& c) { return optionalInt(c.numRegs); })
      .def_property_readonly("n_spills", [](const CompiledKernel& c) { return optionalInt(c.spillBytes); })
      .def_property_readonly("shared", [](const CompiledKernel& c) { return optionalInt(c.sharedBytes); })
      .def_property_readonly("params", [](const CompiledKernel& c) {
        py::list out;
        for (const Param& p : c.kernel.params()) out.append(py::make_tuple(p.name, p.type));
        return out;
      })
      .def("stage", [](const CompiledKernel& c, const std::string& name, const std::string& arch) {
        Result<std::string> text = c.stage(name, arch);
        if (!text) {
          LaunchStatus s;
          s.error = text.error();
          s.kind = LaunchErrorKind::Compile;
          raise(s);
        }
        return text.value();
      }, py::arg("name"), py::arg("arch") = "sm_90a")
      .def("dynamic_shared_bytes", [](const CompiledKernel& c, const std::string& arch) {
        Result<int64_t> n = c.dynamicSharedBytes(arch);
        if (!n) {
          LaunchStatus s;
          s.error = n.error();
          s.kind = LaunchErrorKind::Compile;
          raise(s);
        }
        return n.value();
      }, py::arg("arch") = "sm_90a")
      .def_property_readonly("asm", &asmOf)
      .def("__repr__", [](const CompiledKernel& c) {
        return "<kiln.CompiledKernel " + c.kernel.name() + " [" + c.signature + "] num_warps=" +
               std::to_string(c.numWarps) + " num_stages=" + std::to_string(c.numStages) + ">";
      });

  if (!launcherType()) throw py::error_already_set();
  m.attr("Launcher") = py::handle(reinterpret_cast<PyObject*>(launcherType()));

  py::class_<PyJit> jitClass(m, "JitFunction", py::dynamic_attr());
  jitClass
      .def(py::init<const std::string&, const std::string&, const std::string&, std::vector<std::string>, py::dict>(),
           py::arg("source"), py::arg("file"), py::arg("name"), py::arg("do_not_specialize"), py::arg("defaults"))
      .def_property_readonly("params", &PyJit::params)
      .def_property_readonly("cache_size", &PyJit::cacheSize)
      // The methods below take the call's arguments as a tuple and a dict, so no kernel parameter name
      // can clash with theirs.
      .def("_launch", [](PyJit& j, py::object grid, bool interpret, py::tuple args, py::dict kwargs) {
        return j.launch(grid.ptr(), items(args), size(args), Keywords{kwargs.ptr()}, interpret);
      })
      .def("_bind_only", [](PyJit& j, py::object grid, py::tuple args, py::dict kwargs) {
        return j.bindOnly(grid.ptr(), items(args), size(args), Keywords{kwargs.ptr()});
      })
      .def("_warmup", [](PyJit& j, bool gpu, py::tuple args, py::dict kwargs) {
        return j.warmup(items(args), size(args), Keywords{kwargs.ptr()}, gpu);
      })
      .def("_signature", [](PyJit& j, py::tuple args, py::dict kwargs) {
        return j.signature(items(args), size(args), Keywords{kwargs.ptr()});
      });
  static PyMethodDef getItem = {"__getitem__", reinterpret_cast<PyCFunction>(&jitGetItem), METH_O,
                                "kernel[grid]: a callable that launches the kernel with that grid."};
  py::object getItemDescr = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(jitClass.ptr()), &getItem));
  if (!getItemDescr || PyObject_SetAttrString(jitClass.ptr(), "__getitem__", getItemDescr.ptr()) < 0)
    throw py::error_already_set();
}
