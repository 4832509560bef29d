// JitFunction (include/kiln/launcher.h): the launch path (the recent-launch print or the specialization
// key, the variant it selects, compiled on a miss) and the public methods. Where a variant then runs
// (loaded per device and launched, or interpreted) is jit_device.cpp; the Runtime it loads through is
// runtime_state.cpp.
#include "kiln/launcher.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "driver/compile.h"
#include "driver/errors.h"
#include "driver/jit_function.h"
#include "driver/link.h"
#include "driver/specialize.h"
#include "frontend/parser.h"

namespace kiln {

LaunchStatus failure(LaunchErrorKind kind, Error e) {
  LaunchStatus s;
  s.error = std::move(e);
  s.kind = kind;
  return s;
}

LaunchStatus failure(LaunchErrorKind kind, const std::string& message) {
  Error e;
  e.message = message;
  e.text = "error: " + message;
  return failure(kind, std::move(e));
}

LaunchStatus JitFunction::Impl::buildKey(std::span<const LaunchArg> args, const LaunchOptions& o, std::string& key,
                                         size_t& signatureEnd) const {
  if (args.size() != params.size())
    return failure(LaunchErrorKind::Argument, "kernel '" + name + "' takes " + std::to_string(params.size()) +
                                                  " arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) key.append(", ", 2);
    if (auto why = appendSignatureEntry(key, params[i], args[i], specialize[i]))
      return failure(LaunchErrorKind::Argument, "kernel '" + name + "': " + argName(i) +
                                                    (why->rfind("element [", 0) == 0 ? ", " : " ") + *why);
  }
  signatureEnd = key.size();
  char options[32];
  std::to_chars_result w = std::to_chars(options, options + 16, o.num_warps);
  *w.ptr = 's';
  std::to_chars_result st = std::to_chars(w.ptr + 1, options + sizeof options, o.num_stages);
  key.append("|w", 2);
  key.append(options, st.ptr);
  if (!o.enable_fp_fusion) key += "|nofma";
  if (o.maxnreg) key += "|r" + std::to_string(o.maxnreg);
  if (o.warp_specialize) key += "|ws";
  if (o.persistent) key += "|persistent";
  return {};
}

LaunchStatus JitFunction::Impl::variant(const std::string& key, size_t signatureEnd, const LaunchOptions& o,
                                        std::span<const LaunchArg> args, Variant*& out) {
  if (Variant* last = lastVariant.load(std::memory_order_acquire); last && last->compiled->key == key) {
    out = last;
    return {};
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto it = variants.find(key);
  if (it != variants.end()) {
    out = it->second.get();
    lastVariant.store(out, std::memory_order_release);
    return {};
  }
  CompileOptions options;
  options.num_warps = o.num_warps;
  options.num_stages = o.num_stages;
  options.enable_fp_fusion = o.enable_fp_fusion;
  options.maxnreg = o.maxnreg;
  options.warp_specialize = o.warp_specialize;
  options.persistent = o.persistent;
  const char* timePasses = std::getenv("KILN_TIME_PASSES");
  options.time_passes = timePasses && std::string_view(timePasses) == "1";
  std::string signature = key.substr(0, signatureEnd);
  Result<Kernel> kernel = imports.empty() ? kiln::compile(source, name, signature, options)
                                          : compileLinked(source, imports, name, signature, options);
  if (!kernel) return failure(LaunchErrorKind::Compile, kernel.error());
  auto v = std::make_shared<Variant>();
  auto compiled = std::make_shared<CompiledKernel>(CompiledKernel{kernel.value(), signature, key, o.num_warps,
                                                                  o.num_stages, {}, -1, -1, -1, {}});
  // The kernel's parameters are the non-constexpr ones, in order, less those a None specialized away
  // (Triton's rule: None compiles as a constexpr), with a tuple's runtime elements in its place (named
  // "t.0.1" after their path; its constexprs compile away): matched by name among the leaves.
  const std::vector<Param>& kp = kernel->params();
  size_t leaf = 0, k = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    v->tuples = v->tuples || args[i].kind == LaunchArg::Kind::Tuple;
    forEachLeaf(args[i], "", [&](const LaunchArg&, const std::string& path) {
      std::string leafName = params[i].name;
      for (char c : path)  // "[0][2]" -> ".0.2"
        if (c == '[') leafName += '.';
        else if (c != ']') leafName += c;
      if (!params[i].isConstexpr && k < kp.size() && kp[k].name == leafName) {
        v->argIndex.push_back(leaf);
        v->where.push_back(argName(i) + (path.empty() ? "" : ", element " + path));
        ++k;
      }
      ++leaf;
    });
  }
  if (kp.size() != v->argIndex.size())
    return failure(LaunchErrorKind::Compile, "internal error: kernel '" + name + "' compiled with " +
                                                 std::to_string(kp.size()) + " parameters, expected " +
                                                 std::to_string(v->argIndex.size()));
  for (const Param& p : kp) v->slots.push_back(paramSlotOf(p));
  const std::vector<bool>& written = kernel->impl().written;
  for (size_t p = 0; p < written.size() && p < kp.size(); ++p)
    if (written[p]) v->written.push_back(p);
  v->compiled = std::move(compiled);
  variants.emplace(key, v);
  out = v.get();
  lastVariant.store(out, std::memory_order_release);
  return {};
}

Result<JitFunction> JitFunction::create(Runtime runtime, Source source, std::string kernel,
                                        std::vector<std::string> doNotSpecialize, ModuleImports imports) {
  Result<std::vector<KernelParameter>> params = kernelParameters(source, kernel, &imports);
  if (!params) return params.error();
  auto impl = std::make_shared<Impl>();
  impl->imports = std::move(imports);
  impl->runtime = std::move(runtime);
  impl->source = std::move(source);
  impl->name = std::move(kernel);
  impl->params = std::move(params.value());
  impl->specialize.assign(impl->params.size(), true);
  for (const std::string& n : doNotSpecialize) {
    bool found = false;
    for (size_t i = 0; i < impl->params.size(); ++i)
      if (impl->params[i].name == n) impl->specialize[i] = false, found = true;
    if (!found) {
      Error e;
      e.message = "do_not_specialize names '" + n + "', which is not a parameter of kernel '" + impl->name + "'";
      e.file = impl->source.name;
      e.text = impl->source.name + ": error: " + e.message;
      return e;
    }
  }
  return JitFunction(std::move(impl));
}

const std::string& JitFunction::name() const { return impl_->name; }
const std::vector<KernelParameter>& JitFunction::parameters() const { return impl_->params; }

size_t JitFunction::cacheSize() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->variants.size();
}

void JitFunction::setImports(ModuleImports imports) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->imports = std::move(imports);
}

Result<std::string> JitFunction::signature(std::span<const LaunchArg> args) const {
  std::string key;
  size_t end = 0;
  LaunchStatus s = impl_->buildKey(args, LaunchOptions{}, key, end);
  if (!s) return *s.error;
  key.resize(end);
  return key;
}

LaunchStatus JitFunction::launch(Grid grid, std::span<const LaunchArg> args, const LaunchOptions& options,
                                 std::shared_ptr<const CompiledKernel>* used) {
  Impl& f = *impl_;
  bool interp = false;
  int device = 0;
  if (LaunchStatus s = f.placement(args, options, interp, device); !s) return s;
  const LaunchPrint print = printLaunch(args, options);
  auto* v = static_cast<Variant*>(f.recent.find(print));
  if (!v) {
    // A local key, not a buffer kept between launches: launches that miss the recent table build
    // and hash a key anyway, which costs far more than this allocation. The variant may be compiled
    // here: the caller's blocking hooks around it.
    BlockingScope blocking(options.blocking);
    std::string key;
    size_t signatureEnd = 0;
    if (LaunchStatus s = f.buildKey(args, options, key, signatureEnd); !s) return s;
    if (LaunchStatus s = f.variant(key, signatureEnd, options, args, v); !s) return s;
    f.recent.remember(print, v);
  }
  if (!v->written.empty())
    if (LaunchStatus s = f.checkWritable(*v, args, interp); !s) return s;
  if (!interp) return f.onDevice(*v, device, &grid, args, options, used);
  if (used) *used = v->compiled;
  // An empty grid runs nothing, as in Triton.
  return grid.x == 0 || grid.y == 0 || grid.z == 0 ? LaunchStatus{} : f.interpret(*v, grid, args, options);
}

LaunchStatus JitFunction::compile(std::span<const LaunchArg> args, const LaunchOptions& options, bool gpu,
                                  std::shared_ptr<const CompiledKernel>* out) {
  Impl& f = *impl_;
  Variant* v = nullptr;
  {
    BlockingScope blocking(options.blocking);  // as in launch: around finding or compiling the variant
    std::string key;
    size_t signatureEnd = 0;
    if (LaunchStatus s = f.buildKey(args, options, key, signatureEnd); !s) return s;
    if (LaunchStatus s = f.variant(key, signatureEnd, options, args, v); !s) return s;
  }
  if (out) *out = v->compiled;
  if (!gpu) return {};
  return f.onDevice(*v, options.device, nullptr, args, options, out);  // its own hooks around a first load
}

}  // namespace kiln
