// Axis info: per dimension, the contiguity, divisibility and constancy of every integer and pointer
// value of a function (Triton's AxisInfo), so code generation can turn loads and stores into vector
// accesses and check a mask once per vector. The facts and their rules are in docs/axis-info.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace kiln::analysis {

// Facts about a value, one entry per dimension (a scalar has one entry). For dim d, with the other
// coordinates fixed, and every index i along d:
//   contiguity C: for i a multiple of C, v[i + k] = v[i] + k for 0 <= k < C (pointers: k elements);
//   constancy K:  for i a multiple of K, v[i + k] = v[i] for 0 <= k < K;
//   divisibility D: for i a multiple of C, v[i] is a multiple of D (pointers: the byte address).
// All three are powers of two; C and K divide the dim's size; D is capped at 2^62 (0 is "divisible
// by everything"). Floats only carry constancy (C = D = 1).
struct AxisInfo {
  std::vector<int64_t> contiguity, divisibility, constancy;
  std::optional<int64_t> constant;  // every element is this integer (as the type reads it)
  bool nonNegative = false;         // every element is >= 0 as the type reads it (ints only)

  int dims() const { return int(contiguity.size()); }
  bool operator==(const AxisInfo& o) const = default;
  // "contiguity=[1, 128] divisibility=[16, 16] constancy=[1, 1]", then " constant=N" when known.
  std::string str() const;
};

// The largest divisibility the analysis states (the value 0 has it).
constexpr int64_t kMaxDivisibility = int64_t(1) << 62;

class AxisInfoAnalysis {
 public:
  explicit AxisInfoAnalysis(const ir::Function& fn);  // runs to a fixed point over loops

  // Facts for any value defined in the function (block arguments included). Values of other types
  // than int/ptr get their constancy and otherwise 1s. Throws InternalError for a foreign value.
  const AxisInfo& get(const ir::Value* v) const;

  // For a pointer tile: how many elements one thread may access as one vector along `dim`: the
  // contiguity, limited by the alignment (divisibility / element bytes) and by 16 bytes. At least 1;
  // 1 for a scalar pointer.
  int64_t vectorElements(const ir::Value* ptr, int dim) const;
  // The mask's constancy along `dim`: a vector of at most this many elements (starting at a
  // multiple of it) shares one predicate. A null mask (no mask) returns INT64_MAX.
  int64_t maskConstancy(const ir::Value* mask, int dim) const;

 private:
  std::unordered_map<const ir::Value*, AxisInfo> facts_;
};

// The function's IR text (ir::print) with each integer and pointer value's facts appended to the
// line that defines it as a `// contiguity=...` comment (values named `%x:` when a line defines
// several). The text still parses as IR.
std::string printWithAxisInfo(const ir::Function& fn, const AxisInfoAnalysis& analysis);

}  // namespace kiln::analysis
