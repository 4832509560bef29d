// PTX -> cubin through one of three assemblers; Auto takes the first one available, in this order:
//   1. the ptxas executable (a child process): whole-program assembly, the best register allocation;
//   2. nvJitLink (dlopen'ed, in process, needs no GPU): assembles the PTX as relocatable code, like
//      `ptxas -c`, which can cost registers (layernorm, 8 warps: 56 instead of ptxas' 40);
//   3. the driver's JIT linker (cuLinkCreate; needs a GPU): relocatable code too.
// Also reads per-kernel registers and spills out of the assembler's verbose log.
#pragma once
#include <string>
#include <vector>

#include "runtime/cache.h"
#include "runtime/cuda_error.h"
#include "support/ptxas_log.h"

namespace kiln::runtime {

class CudaDriver;

struct CubinOptions {
  enum class Backend { Auto, Ptxas, NvJitLink, Driver };
  Backend backend = Backend::Auto;  // Auto: ptxas when found, else nvJitLink when it loads, else the driver
  int optLevel = 3;                 // ptxas -O0..-O3
  int maxRegisters = 0;             // 0 = no cap (-maxrregcount)
  bool lineInfo = false;            // -lineinfo
  // nvJitLink: passed verbatim, e.g. "-Xptxas=-warn-spills"; the ptxas backend passes the part after
  // "-Xptxas=" of such entries and ignores the others (they are nvJitLink's own).
  std::vector<std::string> extraNvJitLinkOptions;
  std::vector<std::string> extraPtxasOptions;  // ptxas backend only, verbatim, e.g. "-warn-spills"
  int ptxasTimeoutSeconds = 120;               // then the ptxas process is killed (CompileFailed)
  std::string kernelName;                      // only names the kernel in error messages
};

// What ptxas reported for one entry function; -1 where the log did not say (support/ptxas_log.h).
using support::KernelResources;

struct Cubin {
  Bytes image;                             // an ELF ("\x7f" "ELF"), ready for cuModuleLoadData
  std::string arch;                        // "sm_90a"
  std::string backend;                     // "ptxas", "nvJitLink" or "driver"
  std::string infoLog;                     // the assembler's verbose log
  std::vector<KernelResources> resources;  // from infoLog
};

// Assembles ptx (a whole PTX module) for arch ("sm_80", "sm_90a", ...). driver (with device) is only
// used by the driver backend. Throws CudaError: kind CompileFailed with the assembler's log for bad
// PTX (or a ptxas that crashed or ran past its timeout), NoDriver when the requested backend (under
// Auto: every backend) is unavailable; for ptxas the message names every path tried.
Cubin compileToCubin(const std::string& ptx, const std::string& arch, const CubinOptions& options = {},
                     CudaDriver* driver = nullptr, int device = 0);

// What identifies the cubin that compileToCubin(ptx, arch, options, driver) makes, besides ptx and arch:
// the assembler it would choose (Auto resolved), that assembler's version and the options that change
// the code. Put it in the cubin's cache key, so a cubin from one assembler is never served for another.
std::string cubinCacheTag(const CubinOptions& options = {}, CudaDriver* driver = nullptr);

// Whether the ptxas executable was found (findPtxas in support/ptxas.h), and if not why (paths tried).
bool ptxasAvailable(std::string* whyNot = nullptr);

// Whether nvJitLink can be loaded here, and if not why (the path list tried and dlerror).
bool nvJitLinkAvailable(std::string* whyNot = nullptr);

// Parses ptxas' verbose output ("Compiling entry function 'k'", "Used 12 registers, used 0 barriers",
// "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"): support/ptxas_log.h.
using support::parseResourceUsage;

// "sm_90a" -> CUjit_target (90 + 0x10000); -1 if arch is not "sm_<digits>" with an optional "a".
int jitTargetFor(const std::string& arch);

}  // namespace kiln::runtime
