// refuseTensorMaps (aot_tensor_maps.h): AOT compilation stops at a kernel that takes TMA tensor maps.
#include "driver/aot_tensor_maps.h"

#include "driver/errors.h"

namespace kiln::aot {

std::optional<Error> refuseTensorMaps(const Kernel& kernel, const GpuCode& code) {
  if (code.tensorMaps.empty()) return std::nullopt;
  const size_t n = code.tensorMaps.size();
  return toError(Diagnostic{
      Diagnostic::Kind::Error, kernel.impl().function().loc,
      "kernel '" + kernel.name() + "' accesses global memory through " + std::to_string(n) + " TMA tensor map" +
          (n == 1 ? "" : "s") + " on " + code.arch +
          ", which kiln's AOT launchers do not encode; compile it for sm_80, or launch it through the JIT",
      {}});
}

}  // namespace kiln::aot
