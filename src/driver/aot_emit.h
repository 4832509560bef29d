// The C that `kiln aot` writes: a variant's header and source (aot_emit_variant.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "driver/aot_variant.h"
#include "kiln/aot.h"

namespace kiln::aot {

// NAME.h and NAME.c for `v`, with `cubin` and `ptx` embedded; `origin` names the kernel's file.
std::vector<File> emitVariant(const Variant& v, const std::vector<uint8_t>& cubin, const std::string& ptx,
                              const std::string& origin);

}  // namespace kiln::aot
