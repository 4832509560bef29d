// The binding of one kernel for Python: kiln::JitFunction with the call's arguments bound to its
// parameters (positionals, keywords, defaults), converted to LaunchArgs, the grid evaluated, and the
// launch options read; launch, warmup and signature on top. No Python objects are made on this path
// beyond what the caller's grid and arguments need.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kiln/launcher.h"

namespace kiln::python {

namespace py = pybind11;

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
  bool devicePointers = false;  // some argument is a device pointer (convert): the launch may go to the GPU
};

// (modules, names) from kiln/_resolve.py as the driver's ModuleImports.
ModuleImports importsOf(py::handle r);

class PyJit {
 public:
  // Empty until define(): a kernel is read and checked on its first use, not when it is decorated.
  PyJit() = default;
  // Raises CompilationError when `kernel` is not a @jit function of `text`, or do_not_specialize
  // names no parameter. `defaults`: parameter name -> default value. `imports`: what the names the
  // kernel's text reads from outside resolve to, (modules, names) as kiln/_resolve.py gives them.
  void define(const std::string& text, const std::string& file, bool block, const std::string& kernel,
              std::vector<std::string> doNotSpecialize, py::dict defaults, py::object imports);
  bool defined() const { return fn_.has_value(); }
  // The names the kernel's text reads from outside, anew (kiln/_resolve.py's (modules, names)): for the
  // specializations compiled from now on.
  void setImports(py::object imports) { fn_->setImports(importsOf(imports)); }
  // Defines the kernel on first use through the Python object's _define_now() (kiln/jit.py).
  void ensureDefined(PyObject* self) {
    if (!fn_) defineThrough(self);
  }

  const JitFunction& fn() const { return *fn_; }
  // The overflow check of this kernel's interpreter runs (jit(check_overflow=...), KILN_CHECK_OVERFLOW).
  void setCheckOverflow(OverflowCheck c) { checkOverflow_ = c; }
  py::list params() const;  // [(name, is_constexpr, has_default)]
  size_t cacheSize() const { return fn_->cacheSize(); }

  // Binds a call's arguments to the parameters (raising ArgumentError as Python would for a function).
  void bind(PyObject* const* args, size_t nargs, const Keywords& kw, Bound& b) const;
  // The grid as up to three ints; a callable is called with the meta-parameters (every argument by name).
  Grid grid(PyObject* g, const Bound& b) const;

  // The methods below take `self`, the Python JitFunction object: on first use they ask it to define
  // the kernel (ensureDefined).

  // kernel[grid](*args, **kwargs): bind, convert, launch; returns the compiled kernel that ran.
  py::object launch(PyObject* self, PyObject* g, PyObject* const* args, size_t nargs, const Keywords& kw,
                    bool interpret);
  // The same up to the cache lookup, without running (for measuring the binding's own cost).
  py::object bindOnly(PyObject* self, PyObject* g, PyObject* const* args, size_t nargs, const Keywords& kw);
  // Compiles (for the GPU with `gpu`) without running; strings stand for runtime arguments' types.
  py::object warmup(PyObject* self, PyObject* const* args, size_t nargs, const Keywords& kw, bool gpu);
  // The signature a launch with these arguments compiles for.
  std::string signature(PyObject* self, PyObject* const* args, size_t nargs, const Keywords& kw);

 private:
  void defineThrough(PyObject* self);
  void convert(PyObject* self, Bound& b, SmallVector<LaunchArg, kInlineArgs>& la, std::vector<py::object>& keep,
               bool signatureStrings = false);
  // Links the @jit functions the arguments pass that this kernel has not linked yet (through the Python
  // object's _link_function_arguments, which sets the kernel's imports anew).
  void linkFunctionArguments(PyObject* self);
  // The observer's token for a launch about to run (kiln/profiler/_recorder.py, launch_begin).
  py::object observeBegin(PyObject* self, const Grid& g, const Bound& b, bool onGpu) const;
  // The Python object of a compiled kernel: one per specialization, the last one found without a lookup.
  py::object compiledObject(const std::shared_ptr<const CompiledKernel>& c);
  // The compiler's warnings about c as kiln.CompilationWarning at the kernel's line, each text once per
  // kernel (a warning filter that makes them errors raises here).
  void warnOnce(const CompiledKernel& c);

  std::optional<JitFunction> fn_;
  std::set<std::string> linkedFunctions_;  // the @jit function arguments linked into the kernel
  const CompiledKernel* lastCompiled_ = nullptr;  // kept alive by compiled_
  py::object lastCompiledObject_;
  std::vector<py::object> names_;     // interned parameter names
  std::vector<py::object> defaults_;  // null: no default
  std::unordered_map<const CompiledKernel*, py::object> compiled_;
  OverflowCheck checkOverflow_ = OverflowCheck::Off;
  std::set<std::string> warned_;  // warning texts shown already
};

}  // namespace kiln::python
