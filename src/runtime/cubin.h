// PTX -> cubin: through nvJitLink (dlopen'ed; needs no GPU) or, without it, through the driver's JIT
// linker (cuLinkCreate; needs a GPU). Also reads per-kernel registers and spills out of the log.
#pragma once
#include <string>
#include <vector>

#include "runtime/cache.h"
#include "runtime/cuda_error.h"

namespace kiln::runtime {

class CudaDriver;

struct CubinOptions {
  enum class Backend { Auto, NvJitLink, Driver };
  Backend backend = Backend::Auto;                 // Auto: nvJitLink when it loads, else the driver
  int optLevel = 3;                                // ptxas -O0..-O3
  int maxRegisters = 0;                            // 0 = no cap (-maxrregcount)
  bool lineInfo = false;                           // -lineinfo
  std::vector<std::string> extraNvJitLinkOptions;  // passed verbatim, e.g. "-Xptxas=-warn-spills"
  std::string kernelName;                          // only names the kernel in error messages
};

// What ptxas reported for one entry function; -1 where the log did not say.
struct KernelResources {
  std::string kernel;
  int registers = -1;
  int barriers = -1;
  int stackFrameBytes = -1;
  int spillStoreBytes = -1;
  int spillLoadBytes = -1;
  int sharedBytes = -1;  // static shared memory
};

struct Cubin {
  Bytes image;                             // an ELF ("\x7f" "ELF"), ready for cuModuleLoadData
  std::string arch;                        // "sm_90a"
  std::string backend;                     // "nvJitLink" or "driver"
  std::string infoLog;                     // the assembler's verbose log
  std::vector<KernelResources> resources;  // from infoLog
};

// Assembles ptx (a whole PTX module) for arch ("sm_80", "sm_90a", ...). driver (with device) is only
// used by the driver backend. Throws CudaError: kind CompileFailed with the assembler's log for bad
// PTX, NoDriver when neither backend is available.
Cubin compileToCubin(const std::string& ptx, const std::string& arch, const CubinOptions& options = {},
                     CudaDriver* driver = nullptr, int device = 0);

// Whether nvJitLink can be loaded here, and if not why (the path list tried and dlerror).
bool nvJitLinkAvailable(std::string* whyNot = nullptr);

// Parses ptxas' verbose output ("Compiling entry function 'k'", "Used 12 registers, used 0 barriers",
// "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads").
std::vector<KernelResources> parseResourceUsage(const std::string& log);

// "sm_90a" -> CUjit_target (90 + 0x10000); -1 if arch is not "sm_<digits>" with an optional "a".
int jitTargetFor(const std::string& arch);

}  // namespace kiln::runtime
