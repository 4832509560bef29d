// PyJit (jit.h): binding a Python call to a kernel's parameters, converting the arguments, the grid,
// and the launch, warmup and signature built on them.
#include "jit.h"

#include <functional>

#include "args.h"
#include "errors.h"
#include "release_gil.h"

namespace kiln::python {

namespace {

// Launch options Triton 3.6 accepts as keywords (CUDAOptions), as far as kiln takes them: num_warps,
// num_stages, enable_fp_fusion, maxnreg, launch_pdl and launch_cooperative_grid are used; num_ctas must
// be 1 and sanitize_overflow false (both checked where they are read); debug changes nothing, since kiln
// checks device_assert always; extern_libs names libdevice bitcode, which kiln does not link (its
// libdevice functions are its own code). Triton refuses stream, device and device_type; so does kiln.
// warp_specialize and persistent are kiln's own (CompileOptions, kiln.Config(warp_specialize=True,
// persistent=True)).
bool isLaunchOption(std::string_view k) {
  return k == "num_warps" || k == "num_stages" || k == "num_ctas" || k == "maxnreg" || k == "enable_fp_fusion" ||
         k == "launch_cooperative_grid" || k == "launch_pdl" || k == "debug" || k == "sanitize_overflow" ||
         k == "extern_libs" || k == "warp_specialize" || k == "persistent";
}

int64_t optionInt(PyObject* v, const char* name) {
  if (!PyLong_Check(v) || PyBool_Check(v)) raiseArgumentError(std::string(name) + " must be an int");
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  // Said here with the value given: past the 64-bit range nothing downstream could say it.
  if (overflow != 0)
    raiseArgumentError(std::string(name) + " is " + py::str(v).cast<std::string>() + ", which is out of range");
  return x;
}

// A flag option's truth, as Python's bool() gives it.
bool truth(PyObject* v) {
  int t = PyObject_IsTrue(v);
  if (t < 0) throw py::error_already_set();
  return t == 1;
}

// An int option that the compiler keeps as an int: past int's range the compiler would only see what it
// wrapped to, so the value given is named here.
int smallOptionInt(PyObject* v, const char* name) {
  int64_t x = optionInt(v, name);
  if (x < INT32_MIN || x > INT32_MAX)
    raiseArgumentError(std::string(name) + " is " + py::str(v).cast<std::string>() + ", which is out of range");
  return int(x);
}

// num_warps checked here, before it is narrowed to an int, with compile's message and error type (a
// CompilationError, as when compile alone rejected it).
int numWarpsOption(PyObject* v) {
  int64_t n = optionInt(v, "num_warps");
  if (std::optional<std::string> why = checkNumWarps(n)) {
    Error e;
    e.message = *why;
    e.text = "error: " + *why;
    raise(LaunchErrorKind::Compile, e);
  }
  return int(n);
}

// Asked by the interpreter between programs (every few tens of milliseconds) while the GIL is released:
// takes it back for a moment so Python runs its signal handlers. A handler that raised (Ctrl-C's
// KeyboardInterrupt) stops the run; its exception stays pending for the launch to raise.
bool signalled() {
  PyGILState_STATE gil = PyGILState_Ensure();
  const bool raised = PyErr_CheckSignals() != 0;
  PyGILState_Release(gil);
  return raised;
}

// Told early in an interpreter run that will take minutes (LaunchOptions::on_long_run): a
// kiln.LongLaunchWarning at the launch's line. A filter that makes it an error stops the run, and the
// launch raises it (its exception stays pending, as Ctrl-C's does).
bool warnLongLaunch(const std::string& message) {
  PyGILState_STATE gil = PyGILState_Ensure();
  const bool raised = PyErr_WarnEx(longLaunchWarning(), message.c_str(), 1) != 0;
  PyGILState_Release(gil);
  return raised;
}

}  // namespace

void PyJit::define(const std::string& text, const std::string& file, bool block, const std::string& kernel,
                   std::vector<std::string> doNotSpecialize, py::dict defaults, py::object imports) {
  if (fn_) return;  // defined already (by another thread's first launch): launches may be using it
  Source source = Source::fromString(text, file);
  source.block = block;
  Result<JitFunction> f =
      JitFunction::create(state().runtime, std::move(source), kernel, std::move(doNotSpecialize), importsOf(imports));
  if (!f) raise(LaunchErrorKind::Compile, f.error());
  names_.clear();
  defaults_.clear();
  for (const KernelParameter& p : f.value().parameters()) {
    names_.push_back(py::reinterpret_steal<py::object>(PyUnicode_InternFromString(p.name.c_str())));
    py::object d;
    if (defaults.contains(p.name.c_str())) d = defaults[p.name.c_str()];
    defaults_.push_back(d);
  }
  fn_.emplace(f.value());
}

void PyJit::defineThrough(PyObject* self) {
  py::handle h(self);
  if (!py::hasattr(h, "_define_now")) throw py::type_error("kiln: a JitFunction without a kernel");
  h.attr("_define_now")();
  if (!fn_) throw py::type_error("kiln: _define_now() defined no kernel");
}

py::list PyJit::params() const {
  py::list out;
  for (const KernelParameter& p : fn_->parameters()) out.append(py::make_tuple(p.name, p.isConstexpr, p.hasDefault));
  return out;
}

void PyJit::bind(PyObject* const* args, size_t nargs, const Keywords& kw, Bound& b) const {
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
    if (name == "num_warps") b.options.num_warps = numWarpsOption(value);
    else if (name == "num_stages") b.options.num_stages = smallOptionInt(value, k);
    else if (name == "enable_fp_fusion") b.options.enable_fp_fusion = PyObject_IsTrue(value) == 1;
    else if (name == "num_ctas" && optionInt(value, k) != 1)
      raiseArgumentError("kernel '" + fn_->name() + "': kiln launches one CTA per program (num_ctas=1)");
    if (i == n) {
      if (name == "stream" || name == "device" || name == "device_type")
        raiseArgumentError("kernel '" + fn_->name() + "': the " + std::string(name) +
                           " option is deprecated (as in Triton): kiln launches on the current torch device and "
                           "stream, or on the device the tensor arguments live on");
      if (!isLaunchOption(name))
        raiseArgumentError("kernel '" + fn_->name() + "' got an unexpected keyword argument '" +
                           std::string(name) + "'");
      if (name == "maxnreg") {
        b.options.maxnreg = value == Py_None ? 0 : smallOptionInt(value, k);
        if (std::optional<std::string> why = checkMaxNReg(b.options.maxnreg))
          raiseArgumentError("kernel '" + fn_->name() + "': " + *why);
      } else if (name == "warp_specialize") {
        b.options.warp_specialize = truth(value);
      } else if (name == "persistent") {
        b.options.persistent = truth(value);
      } else if (name == "launch_pdl") {
        b.options.launch_pdl = truth(value);
      } else if (name == "launch_cooperative_grid") {
        b.options.launch_cooperative_grid = truth(value);
      } else if (name == "sanitize_overflow" && truth(value)) {
        raiseArgumentError("kernel '" + fn_->name() + "': sanitize_overflow=True is not supported: kiln does not put "
                           "overflow checks into GPU code; its interpreter checks int32 overflow "
                           "(kiln.jit(check_overflow=True) or KILN_CHECK_OVERFLOW=1 with KILN_INTERPRET=1)");
      }
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

Grid PyJit::grid(PyObject* g, const Bound& b) const {
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
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow != 0 || x < 0 || x > UINT32_MAX)  // the value as given: 2**64 is not -1
      raiseArgumentError("kernel '" + fn_->name() + "': grid dimension " + std::to_string(i) + " is " +
                         py::str(v).cast<std::string>() + "; it must be in [0, 2^32)");
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

py::object PyJit::launch(PyObject* self, PyObject* g, PyObject* const* args, size_t nargs, const Keywords& kw,
                         bool interpret) {
  ensureDefined(self);
  Bound b;
  b.options.interpret = interpret;
  b.options.check_overflow = checkOverflow_;
  bind(args, nargs, kw, b);
  SmallVector<LaunchArg, kInlineArgs> la;
  std::vector<py::object> keep;
  convert(self, b, la, keep);
  Grid gr = grid(g, b);
  const bool onInterpreter = b.options.interpret || !b.devicePointers;
  py::object observed;  // the profiler's token; null when no profile is active
  if (state().launchObserver) observed = observeBegin(self, gr, b, !onInterpreter);
  std::shared_ptr<const CompiledKernel> used;
  LaunchStatus s;
  if (onInterpreter) {
    // Likely the interpreter, which may run for minutes: other Python threads run meanwhile, and Ctrl-C
    // stops it (signalled). Nothing below touches a Python object: the arguments were converted above,
    // and `keep` holds what their views point into.
    const std::function<bool()> stop = signalled;
    const std::function<bool(const std::string&)> longRun = warnLongLaunch;
    b.options.stop = &stop;
    b.options.on_long_run = &longRun;
    py::gil_scoped_release release;
    s = fn_->launch(gr, la.span(), b.options, &used);
  } else {
    // A GPU launch returns in microseconds, but its first one compiles and loads the kernel: other
    // Python threads run meanwhile.
    ReleaseGilWhileBlocked release;
    b.options.blocking = &release;
    s = fn_->launch(gr, la.span(), b.options, &used);
  }
  if (!s && s.kind == LaunchErrorKind::Interrupted) raise(s);  // its Python error is pending
  // Also when the run failed (a warning may say why); a kernel launched again is not looked at again.
  if (used && used.get() != lastCompiled_) warnOnce(*used);
  if (!s) raise(s);
  py::object compiled = compiledObject(used);
  // A failed launch is not recorded: its begin token is dropped.
  if (observed && state().launchObserver)
    py::handle(state().launchObserver).attr("launch_end")(observed, compiled);
  return compiled;
}

py::object PyJit::observeBegin(PyObject* self, const Grid& g, const Bound& b, bool onGpu) const {
  py::dict args;
  for (size_t i = 0; i < names_.size(); ++i) args[names_[i]] = py::handle(b.values[i]);
  return py::handle(state().launchObserver)
      .attr("launch_begin")(py::handle(self), py::make_tuple(g.x, g.y, g.z), args, onGpu, b.options.device);
}

py::object PyJit::bindOnly(PyObject* self, PyObject* g, PyObject* const* args, size_t nargs, const Keywords& kw) {
  ensureDefined(self);
  Bound b;
  bind(args, nargs, kw, b);
  SmallVector<LaunchArg, kInlineArgs> la;
  std::vector<py::object> keep;
  convert(self, b, la, keep);
  grid(g, b);
  std::shared_ptr<const CompiledKernel> used;
  ReleaseGilWhileBlocked release;
  b.options.blocking = &release;
  LaunchStatus s = fn_->compile(la.span(), b.options, false, &used);
  if (!s) raise(s);
  return compiledObject(used);
}

py::object PyJit::warmup(PyObject* self, PyObject* const* args, size_t nargs, const Keywords& kw, bool gpu) {
  ensureDefined(self);
  Bound b;
  bind(args, nargs, kw, b);
  SmallVector<LaunchArg, kInlineArgs> la;
  std::vector<py::object> keep;
  convert(self, b, la, keep, /*signatureStrings=*/true);
  std::shared_ptr<const CompiledKernel> out;
  ReleaseGilWhileBlocked release;
  b.options.blocking = &release;
  LaunchStatus s = fn_->compile(la.span(), b.options, gpu, &out);
  if (!s) raise(s);
  warnOnce(*out);
  return compiledObject(out);
}

std::string PyJit::signature(PyObject* self, PyObject* const* args, size_t nargs, const Keywords& kw) {
  ensureDefined(self);
  Bound b;
  bind(args, nargs, kw, b);
  SmallVector<LaunchArg, kInlineArgs> la;
  std::vector<py::object> keep;
  convert(self, b, la, keep, true);
  Result<std::string> sig = fn_->signature(la.span());
  if (!sig) raise(LaunchErrorKind::Argument, sig.error());
  return sig.value();
}

void PyJit::linkFunctionArguments(PyObject* self) {
  std::vector<std::string>& seen = state().functionArguments;
  py::list fresh;
  for (const std::string& token : seen)
    if (linkedFunctions_.insert(token).second) fresh.append(token);
  seen.clear();
  if (!fresh.empty()) py::handle(self).attr("_link_function_arguments")(fresh);
}

void PyJit::convert(PyObject* self, Bound& b, SmallVector<LaunchArg, kInlineArgs>& la, std::vector<py::object>& keep,
                    bool signatureStrings) {
  const std::vector<KernelParameter>& params = fn_->parameters();
  state().functionArguments.clear();
  la.assign(params.size(), LaunchArg{});
  bool device = false, host = false;
  int known = -1;  // the first device a pointer argument (a tuple's too) is known to be on
  for (size_t i = 0; i < params.size(); ++i) {
    LaunchArg a = toLaunchArg(b.values[i], ArgSite{fn_->name(), params[i].name, i}, keep,
                              signatureStrings && !params[i].isConstexpr);
    // warmup("*fp32:16", ...): a string for a runtime parameter is its signature entry.
    if (signatureStrings && a.kind == LaunchArg::Kind::String && !params[i].isConstexpr)
      a.kind = LaunchArg::Kind::Signature;
    if (a.kind == LaunchArg::Kind::Pointer) {
      (a.host ? host : device) = true;
      if (!a.host && known < 0) known = a.device;
    } else if (a.kind == LaunchArg::Kind::Tuple) {  // a tuple's tensors pick the device too
      if (firstDevicePointer(a)) device = true;
      if (known < 0) known = knownDevice(a);
    }
    la[i] = a;
  }
  if (!state().functionArguments.empty()) linkFunctionArguments(self);
  b.devicePointers = device;
  // The device: the one the arguments live on; when none says (only __cuda_array_interface__ memory
  // the driver does not place, or no array at all), PyTorch's current device, as Triton launches on it.
  // The stream: PyTorch's current stream of that device. A launch with host arrays runs on the
  // interpreter (or is refused for mixing them with device pointers): nothing to ask. Without a usable GPU
  // there is no stream to ask torch for (a CUDA build of torch raises then): the launch says why it
  // cannot run.
  if (!host && !b.options.interpret && state().runtime.hasGpu()) {
    b.options.device = known >= 0 ? known : currentDevice();
    b.options.stream = currentStream(b.options.device);
    if (PyErr_Occurred()) throw py::error_already_set();
  }
}

void PyJit::warnOnce(const CompiledKernel& c) {
  for (const Warning& w : c.kernel.warnings()) {
    if (!warned_.insert(w.text).second) continue;
    if (PyErr_WarnExplicit(compilationWarning(), w.message.c_str(), w.file.c_str(), w.line, nullptr, nullptr) != 0)
      throw py::error_already_set();
  }
}

py::object PyJit::compiledObject(const std::shared_ptr<const CompiledKernel>& c) {
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

}  // namespace kiln::python
