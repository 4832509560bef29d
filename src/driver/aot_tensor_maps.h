// kiln's AOT launchers do not encode TMA tensor maps: the generated C would need cuTensorMapEncodeTiled
// and the checks of driver/tensor_map_values.h. A kernel whose code for the target takes tensor maps is
// refused when it is compiled ahead of time, with an error at the kernel's definition.
#pragma once
#include <optional>

#include "driver/compile.h"

namespace kiln::aot {

// The error for a kernel whose GPU code takes tensor maps; nothing when it takes none.
std::optional<Error> refuseTensorMaps(const Kernel& kernel, const GpuCode& code);

}  // namespace kiln::aot
