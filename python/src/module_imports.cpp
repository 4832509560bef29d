// The names a kernel's module takes from other modules, as kiln/_resolve.py lists them, converted into
// the driver's ModuleImports (link.h) for JitFunction::create and setImports.
#include "jit.h"

namespace kiln::python {

namespace {

// One entry of JITFunction._imports()'s names (kiln/_link.py): (file, name, kind, value, defined_in).
ModuleImports::Name importedName(const py::tuple& t) {
  using K = ModuleImports::Name::Kind;
  ModuleImports::Name n;
  n.file = t[0].cast<std::string>();
  n.name = t[1].cast<std::string>();
  const std::string kind = t[2].cast<std::string>();
  py::handle v = t[3];
  if (kind == "function") {
    n.kind = K::Function;
    n.text = v.cast<std::string>();
    n.definedIn = t[4].cast<std::string>();
  } else if (kind == "int") {
    n.kind = K::Int;
    n.i = v.cast<int64_t>();
  } else if (kind == "float") {
    n.kind = K::Float;
    n.f = v.cast<double>();
  } else if (kind == "bool") {
    n.kind = K::Bool;
    n.i = v.cast<bool>();
  } else if (kind == "str" || kind == "alias" || kind == "expr" || kind == "unsupported") {
    n.kind = kind == "str" ? K::String : kind == "alias" ? K::Alias : kind == "expr" ? K::Expr : K::Unsupported;
    n.text = v.cast<std::string>();
  } else if (kind == "none") {
    n.kind = K::None;
  } else {
    throw std::runtime_error("kiln: unknown kind of imported name '" + kind + "'");
  }
  return n;
}

}  // namespace

// (modules, names) from kiln/_resolve.py: modules [(module name, path, text, unit id, block)], names
// [(unit id, name as written, kind, value, defined in)].
ModuleImports importsOf(py::handle r) {
  ModuleImports imports;
  if (r.is_none()) return imports;
  py::tuple t = r.cast<py::tuple>();
  for (py::handle m : t[0]) {
    py::tuple mt = m.cast<py::tuple>();
    Source source = Source::fromString(mt[2].cast<std::string>(), mt[1].cast<std::string>());
    source.block = mt[4].cast<bool>();
    imports.modules.push_back(ModuleImports::Module{mt[0].cast<std::string>(), std::move(source),
                                                    mt[3].cast<std::string>()});
  }
  for (py::handle n : t[1]) imports.names.push_back(importedName(n.cast<py::tuple>()));
  return imports;
}

}  // namespace kiln::python
