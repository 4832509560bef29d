// The per-entry resource report in ptxas' -v log (also what nvJitLink and the driver's JIT print):
// registers, barriers, stack, spills and static shared memory of each entry function.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kiln::support {

// What the log said for one entry function; -1 where it did not say.
struct KernelResources {
  std::string kernel;
  int registers = -1;
  int barriers = -1;
  int stackFrameBytes = -1;
  int spillStoreBytes = -1;
  int spillLoadBytes = -1;
  int sharedBytes = -1;  // static shared memory
};

// The entries in the order the log compiles them ("Compiling entry function 'k'", then its
// "Function properties for k" and "Used 12 registers, used 0 barriers, ..." lines). The report of a
// non-entry .func is skipped.
std::vector<KernelResources> parseResourceUsage(std::string_view log);

}  // namespace kiln::support
