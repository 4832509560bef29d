// The CompiledKernel class of the extension (compiled_kernel.h): read-only views of
// kiln::CompiledKernel; stages that need code generation raise CompilationError when it fails.
#include "compiled_kernel.h"

#include <pybind11/stl.h>

#include "args.h"
#include "errors.h"
#include "kiln/launcher.h"

namespace kiln::python {

namespace {

py::object optionalInt(int v) { return v < 0 ? py::object(py::none()) : py::object(py::int_(v)); }

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

// The target a kernel's metadata describes: the device it was loaded on, else device 0's, else sm_90a.
std::string targetArch(const CompiledKernel& c) {
  if (!c.arch.empty()) return c.arch;
  std::string device0 = state().runtime.arch(0);
  return device0.empty() ? std::string("sm_90a") : device0;
}

// Triton's CompiledKernel.metadata: the fields host code reads (tutorial 02 reads shared).
py::object metadataOf(const CompiledKernel& c) {
  std::string arch = targetArch(c);
  int64_t shared = c.sharedBytes;
  if (shared < 0) {
    Result<int64_t> dynamic = c.dynamicSharedBytes(arch);  // kiln declares no static shared memory
    if (!dynamic) raise(LaunchErrorKind::Compile, dynamic.error());
    shared = dynamic.value();
  }
  py::object ns = py::module_::import("types").attr("SimpleNamespace");
  return ns(py::arg("name") = c.kernel.name(), py::arg("num_warps") = c.numWarps,
            py::arg("num_stages") = c.numStages, py::arg("num_ctas") = 1, py::arg("shared") = shared,
            py::arg("arch") = arch, py::arg("target") = ns(py::arg("backend") = "cuda", py::arg("arch") = arch,
                                                          py::arg("warp_size") = 32));
}

// Triton's _init_handles: after it, n_regs and n_spills are known. A kernel that ran on a GPU has them
// from cuFuncGetAttribute already; otherwise they come from the assembler's report for targetArch.
void initHandles(CompiledKernel& c) {
  if (c.numRegs >= 0) return;
  Result<CompiledKernel::Resources> r = c.assembledResources(targetArch(c));
  if (!r) raise(LaunchErrorKind::Device, r.error());
  c.numRegs = r.value().numRegs;
  c.spillBytes = r.value().localBytes;
  c.sharedBytes = r.value().sharedBytes;
}

}  // namespace

void defineCompiledKernel(py::module_& m) {
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
      // stage(name): for the GPU the kernel ran on (sm_90a before it ran); stage(name, arch): for `arch`.
      .def("stage", [](const CompiledKernel& c, const std::string& name, std::optional<std::string> arch) {
        if (arch)
          if (std::optional<std::string> why = checkArch(*arch)) raiseArgumentError("arch: " + *why);
        Result<std::string> text = arch ? c.stageFor(name, *arch) : c.stage(name);
        if (!text) raise(LaunchErrorKind::Compile, text.error());
        return text.value();
      }, py::arg("name"), py::arg("arch") = py::none())
      .def("dynamic_shared_bytes", [](const CompiledKernel& c, const std::string& arch) {
        if (std::optional<std::string> why = checkArch(arch)) raiseArgumentError("arch: " + *why);
        Result<int64_t> n = c.dynamicSharedBytes(arch);
        if (!n) raise(LaunchErrorKind::Compile, n.error());
        return n.value();
      }, py::arg("arch") = "sm_90a")
      .def_property_readonly("asm", &asmOf)
      .def_property_readonly("metadata", &metadataOf)
      .def("_init_handles", &initHandles)
      .def("__repr__", [](const CompiledKernel& c) {
        return "<kiln.CompiledKernel " + c.kernel.name() + " [" + c.signature + "] num_warps=" +
               std::to_string(c.numWarps) + " num_stages=" + std::to_string(c.numStages) + ">";
      });
}

}  // namespace kiln::python
