// How a launch's arguments become a kernel's PTX parameters: one slot per runtime parameter, as wide
// as the .param the entry declares (src/ptx paramTypeOf), and the conversion of host floats to the
// 16- and 8-bit float patterns those parameters hold (launcher.cpp packs with it; unit-tested).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/launcher.h"

namespace kiln {

struct ParamSlot {
  enum class Kind : uint8_t { Pointer, Int, Bool, F16, BF16, F8E4M3, F8E5M2, F8E4B15, F8E4B8, F8E5B16, F32, F64 };
  Kind kind = Kind::Int;
  uint8_t bytes = 4;  // the .param's size, which is also its alignment in the parameter buffer
};

// The slot of a compiled kernel's parameter, from its IR type ("ptr<f32>", "f16", "i8", ...).
ParamSlot paramSlotOf(const Param& p);

// IEEE binary16 / bfloat16 bits of v, rounded once from the double (round to nearest, ties to even),
// as a C cast would: overflow becomes inf, NaN stays a (quiet) NaN with its sign.
uint16_t float16Bits(double v);
uint16_t bfloat16Bits(double v);

// What launch argument `a` is, for error messages ("a host buffer", "a float", its own `what`).
std::string describeArgument(const LaunchArg& a);

// The bits launch argument `a` passes in slot `s`, in the low s.bytes bytes of `bits` (the rest zero;
// little-endian, so a pointer to `bits` is a pointer to the parameter's value). Returns why `a`
// cannot be passed there ("is None, which ...") instead.
std::optional<std::string> packArgument(ParamSlot s, const LaunchArg& a, uint64_t& bits);

// Where each slot lies in the kernel's parameter buffer (what cuLaunchKernel builds from the
// per-parameter pointers): each at the next offset aligned to its size, in order.
struct ParamLayout {
  std::vector<size_t> offsets;
  size_t bytes = 0;  // the end of the last parameter
};
ParamLayout paramLayout(std::span<const ParamSlot> slots);

}  // namespace kiln
