// The rest of the public API: sources, kernel accessors, the interpreter entry point, errors.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/compile.h"
#include "driver/errors.h"
#include "interp/interp.h"

namespace kiln {

Error toError(const Diagnostic& d) {
  Error e;
  e.message = d.message;
  if (d.loc.file) e.file = d.loc.file->name;
  e.line = d.loc.line;
  e.col = d.loc.col;
  e.internal = d.kind == Diagnostic::Kind::Internal;
  e.text = d.render();
  // An error about a whole file (no line, e.g. an unknown kernel name) still names the file.
  if (d.loc.file && !d.loc.known()) e.text = d.loc.file->name + ": " + e.text;
  return e;
}

Result<Source> Source::fromFile(const std::string& path) {
  auto cannot = [&](const std::string& why) {
    return toError(Diagnostic{Diagnostic::Kind::Error, {}, "cannot read '" + path + "': " + why, {}});
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return cannot("it is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return cannot(errno ? std::strerror(errno) : "cannot open it");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return cannot("read error");
  return Source{path, text.str()};
}

Source Source::fromString(std::string text, std::string name) { return Source{std::move(name), std::move(text)}; }

const std::string& Kernel::name() const { return impl_->name; }
const std::string& Kernel::signature() const { return impl_->signature; }
const std::vector<Param>& Kernel::params() const { return impl_->params; }
const std::string& Kernel::ast() const { return impl_->ast; }
const std::string& Kernel::ir() const { return impl_->ir; }
const std::string& Kernel::irBeforePasses() const { return impl_->irBeforePasses; }

std::string Kernel::stage(std::string_view stage) const {
  if (stage == "ast") return impl_->ast;
  if (stage == "ir") return impl_->ir;
  if (stage == "ir-before-passes") return impl_->irBeforePasses;
  if ((stage == "gpu-ir" || stage == "ptx") && !impl_->options.arch.empty()) {
    std::shared_ptr<const GpuCode> code = impl_->gpuCode(impl_->options.arch);
    return stage == "ptx" ? code->ptx : code->gpuIr;
  }
  auto it = impl_->dumps.find(std::string(stage));
  return it == impl_->dumps.end() ? std::string() : it->second;
}

Status interpret(const Kernel& kernel, Grid grid, std::span<const Arg> args) {
  std::vector<interp::ArgValue> values;
  values.reserve(args.size());
  for (const Arg& a : args) {
    interp::ArgValue v;
    switch (a.kind) {
      case Arg::Kind::Buffer: v.kind = interp::ArgValue::Kind::Buffer; break;
      case Arg::Kind::Int: v.kind = interp::ArgValue::Kind::Int; break;
      case Arg::Kind::Float: v.kind = interp::ArgValue::Kind::Float; break;
    }
    v.data = a.data;
    v.bytes = a.bytes;
    v.i = a.i;
    v.f = a.f;
    values.push_back(v);
  }
  Result<bool> r = guarded<bool>([&] {
    if (grid.x == 0 || grid.y == 0 || grid.z == 0)
      throw CompileError(SourceLoc{}, "kernel '" + kernel.name() + "': every grid dimension must be at least 1");
    interp::run(kernel.impl().function(), interp::GridDims{grid.x, grid.y, grid.z}, values);
    return true;
  });
  if (!r.ok()) return Status{r.error()};
  return Status{};
}

}  // namespace kiln
