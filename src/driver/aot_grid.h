// The launch grid of an ahead-of-time variant: up to three integer expressions over the kernel's
// arguments ("cdiv(n, BLOCK)", "(M + 127) // 128, N // 64"), checked here and written as C.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::aot {

// A name a grid expression may use: a runtime parameter (its C name) or a constexpr (its value).
struct GridName {
  std::string name;        // as in the kernel
  std::string cName;       // the launch function's argument; empty for a constexpr
  std::optional<int64_t> value;  // a constexpr integer
  std::string whyNot;      // non-empty: the name exists but cannot be used ("is a pointer")
};

// The grid's C expressions, always three (missing dimensions are 1), in int64_t arithmetic through the
// helpers `<prefix>_div_`, `_mod_`, `_cdiv_`, `_min_` and `_max_` that gridHelpers defines (division
// and remainder round down, as Python's // and %, and clear *kiln_aot_ok when dividing by zero).
// On malformed input returns nothing and sets `error` to a one-line message naming the column.
std::optional<std::vector<std::string>> parseGrid(const std::string& text, const std::vector<GridName>& names,
                                                  const std::string& prefix, std::string& error);

// The C definitions of the helpers that `dims` call (only those: clang warns of unused static functions).
std::string gridHelpers(const std::string& prefix, const std::vector<std::string>& dims);

}  // namespace kiln::aot
