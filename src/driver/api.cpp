// The rest of the public API: sources, kernel accessors, the interpreter entry point, errors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "driver/compile.h"
#include "driver/errors.h"
#include "driver/source_encoding.h"
#include "driver/writable_memory.h"
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

Warning toWarning(const CompilerWarning& w) {
  return Warning{w.message, w.loc.file ? w.loc.file->name : std::string(), w.loc.line, w.loc.col, w.render()};
}

// Kernel sources are kilobytes; past this an input is a mistake (/dev/zero, a log), not a kernel.
constexpr std::uint64_t kMaxSourceBytes = std::uint64_t(64) << 20;

Result<Source> Source::fromFile(const std::string& path) {
  auto cannot = [&](const std::string& why) {
    return toError(Diagnostic{Diagnostic::Kind::Error, {}, "cannot read '" + path + "': " + why, {}});
  };
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; only regular files are
  // read, so the flag changes nothing else.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return cannot(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return cannot(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return cannot("it is a directory");
    const char* what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "special";
    return cannot(std::string("not a regular file (it is ") + what + ")");
  }
  auto tooLarge = [&] { return cannot("larger than the 64 MiB limit for a kernel source file"); };
  if (std::uint64_t(st.st_size) > kMaxSourceBytes) {
    ::close(fd);
    return tooLarge();
  }
  // Read at most one byte past the limit: the file may grow after fstat.
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return cannot(std::strerror(err));
    }
    if (n == 0) break;
    text.append(buffer, size_t(n));
    if (text.size() > kMaxSourceBytes) {
      ::close(fd);
      return tooLarge();
    }
  }
  ::close(fd);
  if (std::optional<std::string> why = decodeDeclaredEncoding(text)) return cannot(*why);
  return Source{path, std::move(text)};
}

Source Source::fromString(std::string text, std::string name) { return Source{std::move(name), std::move(text)}; }

const std::string& Kernel::name() const { return impl_->name; }
const std::string& Kernel::signature() const { return impl_->signature; }
const std::vector<Param>& Kernel::params() const { return impl_->params; }
const std::string& Kernel::ast() const { return impl_->ast; }
const std::string& Kernel::ir() const { return impl_->ir(); }
const std::string& Kernel::irBeforePasses() const { return impl_->irBeforePasses; }
const std::vector<Warning>& Kernel::warnings() const { return impl_->warnings; }

std::string Kernel::stage(std::string_view stage) const {
  if (stage == "ast") return impl_->ast;
  if (stage == "ir") return impl_->ir();
  if (stage == "ir-before-passes") return impl_->irBeforePasses;
  if ((stage == "gpu-ir" || stage == "ptx") && !impl_->options.arch.empty()) {
    std::shared_ptr<const GpuCode> code = impl_->gpuCode(impl_->options.arch);
    return stage == "ptx" ? code->ptx : code->gpuIr();
  }
  auto it = impl_->dumps.find(std::string(stage));
  if (it != impl_->dumps.end()) return it->second;
  if (!impl_->options.arch.empty()) {  // a GPU pass's dump
    std::shared_ptr<const GpuCode> code = impl_->gpuCode(impl_->options.arch);
    auto gpu = code->dumps.find(std::string(stage));
    if (gpu != code->dumps.end()) return gpu->second;
  }
  return std::string();
}

Status interpret(const Kernel& kernel, Grid grid, std::span<const Arg> args, const std::function<bool()>& stop) {
  InterpretOptions options;
  options.stop = stop;
  return interpret(kernel, grid, args, options);
}

Status interpret(const Kernel& kernel, Grid grid, std::span<const Arg> args, const InterpretOptions& options) {
  const Kernel::Impl& k = kernel.impl();
  for (size_t i = 0; i < args.size() && i < k.written.size() && i < k.params.size(); ++i)
    if (k.written[i] && args[i].kind == Arg::Kind::Buffer && !isWritableMemory(args[i].data, args[i].bytes)) {
      Error e;
      e.message = "kernel '" + kernel.name() + "': the buffer for parameter '" + k.params[i].name +
                  "' is read-only memory, but the kernel stores through it";
      e.text = "error: " + e.message;
      return Status{e};
    }
  return runInterpreter(kernel, grid, args, options);
}

Status runInterpreter(const Kernel& kernel, Grid grid, std::span<const Arg> args, const InterpretOptions& options) {
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
    const interp::OverflowCheck check = options.check_overflow == OverflowCheck::All       ? interp::OverflowCheck::All
                                        : options.check_overflow == OverflowCheck::Address ? interp::OverflowCheck::Address
                                                                                           : interp::OverflowCheck::Off;
    return interp::run(kernel.impl().function(), interp::GridDims{grid.x, grid.y, grid.z}, values,
                       interp::RunOptions{options.stop, check, options.on_long_run});
  });
  if (!r.ok()) return Status{r.error()};
  if (!r.value()) {
    Error e;
    e.message = "kernel '" + kernel.name() + "': the interpreter run was interrupted before the grid finished";
    e.text = "error: " + e.message;
    return Status{e, true};
  }
  return Status{};
}

}  // namespace kiln
