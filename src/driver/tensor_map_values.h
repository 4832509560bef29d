// How a launch turns a kernel's tensor-map specs (tensor_map_spec.h) into the values a CUtensorMap is
// encoded from (runtime/tensor_map.h): each operand read from the kernel parameter it names (in the
// width of that parameter's type) or taken as the constant, reordered into the driver's order
// (contiguous dim first), strides in bytes, and checked against TMA's rules before the driver sees them,
// with messages that name the kernel parameters involved.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "driver/tensor_map_spec.h"
#include "kiln/kiln.h"
#include "runtime/tensor_map.h"

namespace kiln {

// One compiled kernel's tensor map, bound to the kernel's parameters once (at load), read per launch.
class TensorMapReader {
 public:
  // What the spec fixes at compile time, checked against `params` (the kernel's runtime parameters):
  // the rank (1 to 5), the element type (one TMA has), the base a pointer parameter, every other
  // operand an integer parameter or a constant, the contiguous stride the constant 1, the box (1 to 256
  // per dim, its contiguous dim a multiple of 16 bytes and at most the swizzle) and the swizzle (0, 32,
  // 64, 128). Returns the reader, or why not ("tensor map 0 over parameter 'a_ptr': ...").
  static std::optional<TensorMapReader> bind(const TensorMapSpec& spec, size_t index, std::span<const Param> params,
                                             std::string& whyNot);

  // The map's values for a launch: kernelParams[k] points at kernel parameter k's value, as wide as its
  // .param (8 bytes for a pointer). `where[k]` is how messages name parameter k ("argument 3
  // ('stride_am')"). Checks the launch-time rules: a 16-byte aligned base address, dims from 1 to 2^32,
  // positive strides that are multiples of 16 bytes and below 2^40 bytes. Returns why not instead, e.g.
  // "argument 3 ('stride_am'): the tensor map over argument 0 ('a_ptr') needs row strides that are
  // multiples of 16 bytes; got 100 elements of f16 = 200 bytes".
  std::optional<std::string> read(void* const* kernelParams, std::span<const std::string> where,
                                  runtime::TensorMapValues& out) const;

  size_t rank() const { return shape_.size(); }
  int base() const { return base_; }  // the kernel parameter holding the base address

 private:
  // An operand as a launch reads it: parameter `param`'s value of `bytes` bytes (sign-extended when
  // `isSigned`), or the constant `value` when param < 0.
  struct Operand {
    int param = -1;
    int bytes = 8;
    bool isSigned = true;
    int64_t value = 0;
  };
  TensorMapReader() = default;
  int64_t valueOf(const Operand& o, void* const* kernelParams, bool& beyondInt64) const;

  ir::Scalar elem_ = ir::Scalar::F16;
  int elemBytes_ = 2;
  int base_ = 0;
  std::vector<Operand> shape_, strides_;  // spec order: outermost first
  runtime::TensorMapValues fixed_;        // data type, rank, box and swizzle: the same for every launch
};

}  // namespace kiln
