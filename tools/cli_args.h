// Argument parsing the kiln CLI's commands share (tools/kiln.cpp, tools/kiln_aot.cpp).
#pragma once
#include <exception>
#include <string>

namespace kiln::cli {

// `text` as a positive int, all of it; false (out untouched) otherwise.
inline bool parsePositiveInt(const std::string& text, int& out) {
  try {
    size_t used = 0;
    int v = std::stoi(text, &used);
    if (used != text.size() || v <= 0) return false;
    out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace kiln::cli
