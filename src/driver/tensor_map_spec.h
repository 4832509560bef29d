// What a compiled kernel asks of its launcher for each TMA tensor map it reads (sm_90): a CUtensorMap
// that the launcher encodes from the launch's own arguments and passes by value after the kernel's
// runtime parameters, as `.param .align 128 .b8 <kernel>_tmap<k>[128]` (docs/runtime.md). The GPU IR
// op `tensor_map` (docs/gpu-ir.md) declares one; tensorMapSpecs (src/lower) reads them off a kernel.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/types.h"

namespace kiln {

// One piece of a tensor map: the value of the kernel's runtime parameter `param` (its index among the
// function's parameters, which are Kernel::params() in order), or the constant `value` when param < 0.
struct TensorMapOperand {
  int param = -1;
  int64_t value = 0;
  bool operator==(const TensorMapOperand&) const = default;
};

struct TensorMapSpec {
  ir::Scalar elem = ir::Scalar::F16;      // the element type (fp8 and i8 travel as bytes)
  TensorMapOperand base;                  // the global address (a pointer parameter)
  std::vector<TensorMapOperand> shape;    // Triton's order: outermost first, the contiguous dim last
  std::vector<TensorMapOperand> strides;  // in elements, same order; the last is the constant 1
  std::vector<int64_t> box;               // the elements one copy moves, same order (TMA's boxDim reversed)
  int swizzle = 0;                        // 0 (none), 32, 64 or 128 bytes (CU_TENSOR_MAP_SWIZZLE_*)
  // The kernel checks the values the map is encoded from and copies through it only when they pass, so
  // a map the launcher cannot encode (the reader's checks or the driver refusing) is passed as 128 zero
  // bytes instead of refusing the launch.
  bool guarded = false;
  bool operator==(const TensorMapSpec&) const = default;
};

}  // namespace kiln
