// The _kiln extension module: the exceptions (errors.cpp), the device queries, CompiledKernel
// (compiled_kernel.cpp), and JitFunction over PyJit (jit.cpp) whose kernel[grid] is the Launcher type
// (launcher_object.cpp). The hot path `kernel[grid](*args)` is C++ from end to end.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "args.h"
#include "compiled_kernel.h"
#include "errors.h"
#include "jit.h"
#include "kiln/launcher.h"
#include "launcher_object.h"
#include "sema/ops_common.h"

namespace kiln::python {
namespace {

PyObject* const* items(const py::tuple& t) { return PySequence_Fast_ITEMS(t.ptr()); }
size_t size(const py::tuple& t) { return size_t(PyTuple_GET_SIZE(t.ptr())); }

}  // namespace
}  // namespace kiln::python

using namespace kiln;
using namespace kiln::python;

PYBIND11_MODULE(_kiln, m) {
  m.doc() = "kiln's C++ core: compile, specialize, cache and launch Triton-language kernels";
  defineExceptions(m);

  m.def("set_fallback", [](py::object f) { state().fallback = f.release().ptr(); },
        "Sets the converter for launch arguments the extension does not know (kiln._args.convert).");
  // kernel[grid] on a Python subclass of JitFunction goes through CPython's generic slot (a method
  // lookup and a call) because the base's __getitem__ is a method descriptor; this points the
  // subclass's slot at the C function itself. A class that assigns __getitem__ later gets its slot
  // reset by CPython as usual.
  m.def("fast_subscript", [](py::type cls) {
    auto* t = reinterpret_cast<PyTypeObject*>(cls.ptr());
    if (!PyType_IsSubtype(t, reinterpret_cast<PyTypeObject*>(py::type::of<PyJit>().ptr())) || !t->tp_as_mapping)
      throw py::type_error("fast_subscript: not a subclass of _kiln.JitFunction");
    t->tp_as_mapping->mp_subscript = &jitGetItem;
    PyType_Modified(t);
  });
  m.def("set_launch_observer",
        [](py::object o) {
          PyObject* old = state().launchObserver;
          state().launchObserver = o.is_none() ? nullptr : o.release().ptr();
          Py_XDECREF(old);
        },
        "Sets the object told of every launch (launch_begin / launch_end; kiln.profiler), or None.");
  m.def("has_gpu", [] {
    std::string why;
    bool ok = state().runtime.hasGpu(&why);
    return py::make_tuple(ok, why);
  });
  m.def("supported_archs", [] { return supportedArchs(); },
        "The GPU targets kiln compiles for here: from sm_80 up, those the installed ptxas knows.");
  m.def("device_count", [] { return state().runtime.deviceCount(); });
  m.def("device_arch", [](int device) { return state().runtime.arch(device); });
  m.def("device_of", [](uint64_t address) { return state().runtime.deviceOf(address); },
        "The CUDA device whose memory `address` is, as the driver knows it; -1 when it is not one device's "
        "memory (managed or host memory, or memory no CUDA allocator gave out) or there is no GPU.");
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
    d["max_num_regs"] = p->maxRegistersPerBlock;
    auto optional = [](int v) { return v < 0 ? py::object(py::none()) : py::object(py::int_(v)); };
    d["sm_clock_rate"] = optional(p->smClockKHz);
    d["mem_clock_rate"] = optional(p->memoryClockKHz);
    d["mem_bus_width"] = optional(p->memoryBusWidthBits);
    d["total_memory"] = p->totalMemoryBytes;
    return d;
  });
  // The builtins kernels can call (or that kiln names but does not implement), from the compiler's own
  // table: "tl", "math", "random", "triton", "libdevice" (tl.extra.libdevice) or "cuda" (tl.extra.cuda).
  m.def("builtin_names", [](const std::string& ns) {
    unsigned where = ns == "tl" ? sema::kTl : ns == "math" ? sema::kMath : ns == "random" ? sema::kRandom
                   : ns == "triton" ? sema::kTriton
                   : ns == "libdevice" ? sema::kLibdevice : ns == "cuda" ? sema::kCuda : 0u;
    if (!where) throw py::value_error("builtin_names: unknown namespace '" + ns + "'");
    return sema::builtinNames(where);
  });

  defineCompiledKernel(m);

  if (!launcherType()) throw py::error_already_set();
  m.attr("Launcher") = py::handle(reinterpret_cast<PyObject*>(launcherType()));

  py::class_<PyJit> jitClass(m, "JitFunction", py::dynamic_attr());
  jitClass
      .def(py::init<>())
      .def("_define", &PyJit::define, py::arg("source"), py::arg("file"), py::arg("block"), py::arg("name"),
           py::arg("do_not_specialize"), py::arg("defaults"), py::arg("imports"))
      .def_property_readonly("_defined", &PyJit::defined)
      .def("_set_imports", [](PyJit& j, py::object imports) { j.setImports(imports); })
      .def("_set_check_overflow",
           [](PyJit& j, int mode) {
             j.setCheckOverflow(mode == 2 ? OverflowCheck::All : mode == 1 ? OverflowCheck::Address : OverflowCheck::Off);
           })
      .def_property_readonly("params",
                             [](py::object self) {
                               PyJit& j = self.cast<PyJit&>();
                               j.ensureDefined(self.ptr());
                               return j.params();
                             })
      .def_property_readonly("cache_size", [](const PyJit& j) { return j.defined() ? j.cacheSize() : size_t(0); })
      // The methods below take the call's arguments as a tuple and a dict, so no kernel parameter name
      // can clash with theirs.
      .def("_launch", [](py::object self, py::object grid, bool interpret, py::tuple args, py::dict kwargs) {
        return self.cast<PyJit&>().launch(self.ptr(), grid.ptr(), items(args), size(args), Keywords{kwargs.ptr()},
                                          interpret);
      })
      .def("_bind_only", [](py::object self, py::object grid, py::tuple args, py::dict kwargs) {
        return self.cast<PyJit&>().bindOnly(self.ptr(), grid.ptr(), items(args), size(args), Keywords{kwargs.ptr()});
      })
      .def("_warmup", [](py::object self, bool gpu, py::tuple args, py::dict kwargs) {
        return self.cast<PyJit&>().warmup(self.ptr(), items(args), size(args), Keywords{kwargs.ptr()}, gpu);
      })
      .def("_signature", [](py::object self, py::tuple args, py::dict kwargs) {
        return self.cast<PyJit&>().signature(self.ptr(), items(args), size(args), Keywords{kwargs.ptr()});
      });
  static PyMethodDef getItem = {"__getitem__", reinterpret_cast<PyCFunction>(&jitGetItem), METH_O,
                                "kernel[grid]: a callable that launches the kernel with that grid."};
  py::object getItemDescr = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(jitClass.ptr()), &getItem));
  if (!getItemDescr || PyObject_SetAttrString(jitClass.ptr(), "__getitem__", getItemDescr.ptr()) < 0)
    throw py::error_already_set();
}
