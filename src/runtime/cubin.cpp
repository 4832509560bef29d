// PTX -> cubin through the ptxas executable, nvJitLink or the driver's JIT linker (Auto: in that order),
// and the parser for ptxas' resource log.
#include "runtime/cubin.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "runtime/cuda_driver.h"
#include "support/ptxas.h"
#include "support/temp_dir.h"

namespace kiln::runtime {

// The ptxas runner lives in support/ptxas.h, shared with kiln::ptx::assemble.
using support::describe;
using support::findPtxas;
using support::ProcessResult;
using support::PtxasLocation;
using support::PtxasRun;
using support::runPtxas;

namespace {

// nvJitLinkResult names, indexed by value (nvJitLink.h, CUDA 13.0).
constexpr const char* kNvJitLinkResultNames[] = {
    "NVJITLINK_SUCCESS",
    "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
    "NVJITLINK_ERROR_MISSING_ARCH",
    "NVJITLINK_ERROR_INVALID_INPUT",
    "NVJITLINK_ERROR_PTX_COMPILE",
    "NVJITLINK_ERROR_NVVM_COMPILE",
    "NVJITLINK_ERROR_INTERNAL",
    "NVJITLINK_ERROR_THREADPOOL",
    "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
    "NVJITLINK_ERROR_FINALIZE",
    "NVJITLINK_ERROR_NULL_INPUT",
    "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
    "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
    "NVJITLINK_ERROR_ARCH_MISMATCH",
    "NVJITLINK_ERROR_OUTDATED_LIBRARY",
    "NVJITLINK_ERROR_MISSING_FATBIN",
    "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
    "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
    "NVJITLINK_ERROR_LTO_NOT_ENABLED",
};

std::string nvJitLinkResultName(cu::NvJitLinkResult r) {
  if (r >= 0 && size_t(r) < std::size(kNvJitLinkResultNames)) return kNvJitLinkResultNames[r];
  return "nvJitLink error " + std::to_string(r);
}

struct NvJitLinkLibrary {
  cu::NvJitLinkApi api;
  bool loaded = false;
  std::string whyNot;
};

NvJitLinkLibrary loadNvJitLink() {
  NvJitLinkLibrary lib;
  std::vector<std::string> candidates = {"libnvJitLink.so.13"};
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    candidates.push_back(std::string(home) + "/lib64/libnvJitLink.so.13");
  candidates.push_back("/usr/local/cuda/lib64/libnvJitLink.so.13");
  void* handle = nullptr;
  for (const std::string& path : candidates) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) break;
    const char* err = dlerror();
    lib.whyNot += (lib.whyNot.empty() ? "" : "; ") + std::string(err ? err : path + ": not loadable");
  }
  if (!handle) {
    lib.whyNot = "libnvJitLink.so.13 could not be loaded (" + lib.whyNot + ")";
    return lib;
  }
  std::string missing;
#define KILN_RESOLVE(member, name, symbol, ret, params)                    \
  {                                                                        \
    void* p = dlsym(handle, #symbol);                                      \
    if (!p) p = dlsym(handle, #name);                                      \
    lib.api.member = reinterpret_cast<decltype(lib.api.member)>(p);        \
    if (!p) missing += std::string(missing.empty() ? "" : ", ") + #symbol; \
  }
  KILN_NVJITLINK_FUNCTIONS(KILN_RESOLVE)
#undef KILN_RESOLVE
  if (!missing.empty()) {
    lib.whyNot = "libnvJitLink.so.13 lacks " + missing;
    return lib;
  }
  lib.loaded = true;
  return lib;
}

// The one process-wide object of the runtime: the nvJitLink library handle and entry points, loaded
// on first use (a function-local static: initialisation is thread-safe) and immutable afterwards.
// It is never unloaded: reloading the ~50 MB library for each compile would cost milliseconds.
const NvJitLinkLibrary& nvJitLink() {
  static const NvJitLinkLibrary lib = loadNvJitLink();
  return lib;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

CudaError compileFailed(const std::string& arch, const std::string& call, int code,
                        const std::string& codeName, const std::string& log, const std::string& kernel) {
  return CudaError(CudaError::Kind::CompileFailed,
                   "PTX -> cubin for " + arch + " failed: " + call + ": " + codeName, kernel, call, code,
                   codeName, log);
}

Cubin viaNvJitLink(const std::string& ptx, const std::string& arch, const CubinOptions& options) {
  const cu::NvJitLinkApi& api = nvJitLink().api;
  // nvJitLink's own -O takes only 0 or 3 and concerns LTO; PTX input is ptxas' job, so its level goes
  // to ptxas directly.
  const int level = std::clamp(options.optLevel, 0, 3);
  std::vector<std::string> args = {"-arch=" + arch, "-Xptxas=-O" + std::to_string(level), "-verbose"};
  if (options.maxRegisters > 0) args.push_back("-maxrregcount=" + std::to_string(options.maxRegisters));
  if (options.lineInfo) args.push_back("-lineinfo");
  args.insert(args.end(), options.extraNvJitLinkOptions.begin(), options.extraNvJitLinkOptions.end());
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  cu::NvJitLinkHandle handle = nullptr;
  cu::NvJitLinkResult r = api.create(&handle, std::uint32_t(argv.size()), argv.data());
  if (r != cu::kNvJitLinkSuccess)
    throw compileFailed(arch, "nvJitLinkCreate", r, nvJitLinkResultName(r), "options: " + joined(args),
                        options.kernelName);
  std::unique_ptr<cu::NvJitLinkHandle, void (*)(cu::NvJitLinkHandle*)> guard(
      &handle, [](cu::NvJitLinkHandle* h) { nvJitLink().api.destroy(h); });
  auto log = [&](auto sizeFn, auto textFn) {
    size_t size = 0;
    if (sizeFn(handle, &size) != cu::kNvJitLinkSuccess || size == 0) return std::string();
    std::string text(size, '\0');
    if (textFn(handle, text.data()) != cu::kNvJitLinkSuccess) return std::string();
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
  };
  // Check every step: AddData can fail on bad PTX while Complete still returns success with a stub
  // cubin (PTX-NOTES.md §13).
  r = api.addData(handle, cu::kNvJitLinkInputPtx, ptx.data(), ptx.size(), "kernel.ptx");
  const char* call = "nvJitLinkAddData";
  if (r == cu::kNvJitLinkSuccess) {
    r = api.complete(handle);
    call = "nvJitLinkComplete";
  }
  if (r != cu::kNvJitLinkSuccess)
    throw compileFailed(arch, call, r, nvJitLinkResultName(r), log(api.getErrorLogSize, api.getErrorLog),
                        options.kernelName);

  Cubin out;
  out.arch = arch;
  out.backend = "nvJitLink";
  size_t size = 0;
  r = api.getLinkedCubinSize(handle, &size);
  if (r == cu::kNvJitLinkSuccess) {
    out.image.resize(size);
    r = api.getLinkedCubin(handle, out.image.data());
  }
  if (r != cu::kNvJitLinkSuccess || size == 0)
    throw compileFailed(arch, "nvJitLinkGetLinkedCubin", r, nvJitLinkResultName(r), "", options.kernelName);
  out.infoLog = log(api.getInfoLogSize, api.getInfoLog);
  return out;
}

// The ptxas arguments between the executable and the files: level, verbosity, options.
std::vector<std::string> ptxasArguments(const std::string& arch, const CubinOptions& options) {
  std::vector<std::string> args = {"-arch=" + arch, "-O" + std::to_string(std::clamp(options.optLevel, 0, 3)),
                                   "-v"};
  if (options.maxRegisters > 0) args.push_back("-maxrregcount=" + std::to_string(options.maxRegisters));
  if (options.lineInfo) args.push_back("-lineinfo");
  const std::string xptxas = "-Xptxas=";
  for (const std::string& o : options.extraNvJitLinkOptions)
    if (o.compare(0, xptxas.size(), xptxas) == 0 && o.size() > xptxas.size()) args.push_back(o.substr(xptxas.size()));
  args.insert(args.end(), options.extraPtxasOptions.begin(), options.extraPtxasOptions.end());
  return args;
}

Cubin viaPtxas(const std::string& ptx, const std::string& arch, const CubinOptions& options,
               const PtxasLocation& ptxas) {
  const std::chrono::milliseconds timeout = std::chrono::seconds(std::max(options.ptxasTimeoutSeconds, 1));
  PtxasRun run;
  try {
    run = runPtxas(ptxas.path, ptx, ptxasArguments(arch, options), timeout);
  } catch (const support::OsError& e) {  // no temporary directory or input file: name the kernel too
    throw CudaError(CudaError::Kind::CompileFailed, e.what(), options.kernelName, e.call());
  }
  const ProcessResult& p = run.process;
  if (p.status != ProcessResult::Status::Exited || p.exitCode != 0)
    throw compileFailed(arch, "ptxas", p.status == ProcessResult::Status::Exited ? p.exitCode : -1,
                        describe(p, timeout), run.log, options.kernelName);
  const Bytes& image = run.cubin;
  if (image.size() < 4 || image[0] != 0x7f || image[1] != 'E' || image[2] != 'L' || image[3] != 'F')
    throw compileFailed(arch, "ptxas", 0, "exit status 0 but it wrote no cubin", run.log, options.kernelName);
  Cubin result;
  result.arch = arch;
  result.backend = "ptxas";
  result.image = std::move(run.cubin);
  result.infoLog = std::move(run.log);
  return result;
}

Cubin viaDriver(const std::string& ptx, const std::string& arch, const CubinOptions& options,
                CudaDriver& driver, int device) {
  const cu::DriverApi& api = driver.api();
  driver.makeCurrent(device);
  std::vector<char> infoLog(1 << 16, '\0'), errorLog(1 << 16, '\0');
  std::vector<int> keys;
  std::vector<void*> values;
  auto option = [&](int key, std::uintptr_t value) {
    keys.push_back(key);
    values.push_back(reinterpret_cast<void*>(value));
  };
  option(cu::kJitInfoLogBuffer, reinterpret_cast<std::uintptr_t>(infoLog.data()));
  option(cu::kJitInfoLogBufferSizeBytes, infoLog.size() - 1);
  option(cu::kJitErrorLogBuffer, reinterpret_cast<std::uintptr_t>(errorLog.data()));
  option(cu::kJitErrorLogBufferSizeBytes, errorLog.size() - 1);
  option(cu::kJitLogVerbose, 1);
  // The driver's levels run 0..4 with 4 the default and highest; ptxas -O3 is its top level.
  option(cu::kJitOptimizationLevel,
         options.optLevel >= 3 ? 4 : std::uintptr_t(std::max(options.optLevel, 0)));
  option(cu::kJitTarget, std::uintptr_t(jitTargetFor(arch)));
  if (options.maxRegisters > 0) option(cu::kJitMaxRegisters, std::uintptr_t(options.maxRegisters));
  if (options.lineInfo) option(cu::kJitGenerateLineInfo, 1);

  cu::LinkState state = nullptr;
  driver.check(api.linkCreate(unsigned(keys.size()), keys.data(), values.data(), &state), "cuLinkCreate",
               options.kernelName);
  struct LinkGuard {  // the link state owns the image: destroy it only after the copy below
    const cu::DriverApi& api;
    cu::LinkState state;
    ~LinkGuard() { api.linkDestroy(state); }
  } guard{api, state};
  auto fail = [&](cu::Result r, const char* call) {
    return compileFailed(arch, call, r, driver.errorName(r), errorLog.data(), options.kernelName);
  };
  // The PTX is passed with its terminating NUL, as the driver's JIT expects.
  cu::Result r = api.linkAddData(state, cu::kJitInputPtx, const_cast<char*>(ptx.c_str()), ptx.size() + 1,
                                 "kernel.ptx", 0, nullptr, nullptr);
  if (r != cu::kSuccess) throw fail(r, "cuLinkAddData");
  void* image = nullptr;
  size_t size = 0;
  r = api.linkComplete(state, &image, &size);
  if (r != cu::kSuccess || !image || size == 0) throw fail(r, "cuLinkComplete");
  Cubin out;
  out.arch = arch;
  out.backend = "driver";
  // The image belongs to the link state: copy it before cuLinkDestroy.
  out.image.assign(static_cast<const std::uint8_t*>(image), static_cast<const std::uint8_t*>(image) + size);
  out.infoLog = infoLog.data();
  return out;
}



}  // namespace

bool nvJitLinkAvailable(std::string* whyNot) {
  const NvJitLinkLibrary& lib = nvJitLink();
  if (!lib.loaded && whyNot) *whyNot = lib.whyNot;
  return lib.loaded;
}

int jitTargetFor(const std::string& arch) {
  if (arch.size() < 5 || arch.compare(0, 3, "sm_") != 0) return -1;
  bool accelerated = arch.back() == 'a';
  std::string digits = arch.substr(3, arch.size() - 3 - (accelerated ? 1 : 0));
  if (digits.empty() || digits.size() > 4) return -1;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  int number = std::atoi(digits.c_str());
  return accelerated ? cu::kJitAcceleratedTargetBase + number : number;
}


namespace {

// The backend compileToCubin uses for options; Auto resolved in the order ptxas, nvJitLink, driver.
// `which` stays Auto when none is available, and `whyNone` then says why.
struct BackendChoice {
  CubinOptions::Backend which = CubinOptions::Backend::Auto;
  PtxasLocation ptxas;  // when which == Ptxas
  std::string whyNone;
};

BackendChoice chooseBackend(const CubinOptions& options, CudaDriver* driver) {
  using Backend = CubinOptions::Backend;
  BackendChoice choice;
  std::string whyNoPtxas, whyNoJitLink;
  if (options.backend == Backend::Auto || options.backend == Backend::Ptxas) {
    choice.ptxas = findPtxas();
    if (choice.ptxas.found()) {
      choice.which = Backend::Ptxas;
      return choice;
    }
    whyNoPtxas = choice.ptxas.whyNot();
    if (options.backend == Backend::Ptxas) {
      choice.whyNone = "PTX -> cubin through ptxas: " + whyNoPtxas;
      return choice;
    }
  }
  if (options.backend != Backend::Driver) {
    if (nvJitLinkAvailable(&whyNoJitLink)) {
      choice.which = Backend::NvJitLink;
      return choice;
    }
    if (options.backend == Backend::NvJitLink) {
      choice.whyNone = "no PTX assembler: " + whyNoJitLink;
      return choice;
    }
  }
  if (driver) {
    choice.which = Backend::Driver;
    return choice;
  }
  if (options.backend == Backend::Driver)
    choice.whyNone = "PTX -> cubin through the driver needs a CUDA driver";
  else
    choice.whyNone = "no PTX assembler: " + whyNoPtxas + "; " + whyNoJitLink + "; and no CUDA driver to JIT with";
  return choice;
}

}  // namespace

bool ptxasAvailable(std::string* whyNot) {
  PtxasLocation ptxas = findPtxas();
  if (!ptxas.found() && whyNot) *whyNot = ptxas.whyNot();
  return ptxas.found();
}

std::string cubinCacheTag(const CubinOptions& options, CudaDriver* driver) {
  using Backend = CubinOptions::Backend;
  BackendChoice choice = chooseBackend(options, driver);
  std::string tag = "O" + std::to_string(std::clamp(options.optLevel, 0, 3)) +
                    " maxrregcount=" + std::to_string(std::max(options.maxRegisters, 0)) +
                    " lineinfo=" + std::to_string(int(options.lineInfo)) + "\n";
  switch (choice.which) {
    case Backend::Ptxas:
      tag += "ptxas\n" + choice.ptxas.version;
      for (const std::string& a : ptxasArguments("", options)) tag += "\n" + a;
      break;
    case Backend::NvJitLink:
      tag += "nvJitLink 13";
      for (const std::string& a : options.extraNvJitLinkOptions) tag += "\n" + a;
      break;
    case Backend::Driver:
      tag += "driver " + std::to_string(driver->driverVersion());
      break;
    case Backend::Auto:  // nothing can assemble: compileToCubin throws, so nothing is cached
      tag += "none";
      break;
  }
  return tag;
}

Cubin compileToCubin(const std::string& ptx, const std::string& arch, const CubinOptions& options,
                     CudaDriver* driver, int device) {
  if (jitTargetFor(arch) < 0)
    throw CudaError(CudaError::Kind::CompileFailed,
                    "PTX -> cubin: unknown target architecture '" + arch + "' (expected e.g. sm_80, sm_90a)",
                    options.kernelName);
  using Backend = CubinOptions::Backend;
  BackendChoice choice = chooseBackend(options, driver);
  Cubin out;
  switch (choice.which) {
    case Backend::Ptxas:
      out = viaPtxas(ptx, arch, options, choice.ptxas);
      break;
    case Backend::NvJitLink:
      out = viaNvJitLink(ptx, arch, options);
      break;
    case Backend::Driver:
      out = viaDriver(ptx, arch, options, *driver, device);
      break;
    case Backend::Auto:
      throw CudaError(CudaError::Kind::NoDriver, choice.whyNone, options.kernelName);
  }
  out.resources = parseResourceUsage(out.infoLog);
  return out;
}

}  // namespace kiln::runtime
