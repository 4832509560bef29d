// Device checks of instruction selection: a "case" is one selection in one dtype, run by a kernel
// over many inputs on the GPU and compared element by element with kiln's scalar semantics
// (ir/scalar_eval.h): bit-exact, or within a documented error bound for approximations.
#pragma once
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_driver.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {

// How a result is judged. Exact: same bits (any NaN matches any NaN). Approx: within
// `ulps` units in the last place of the result type plus `abs`, of a double-precision reference;
// NaN and inf must match exactly.
struct Tolerance {
  bool exact = true;
  double ulps = 0, abs = 0;
};

struct Case {
  std::string name;                 // kernel name, an identifier
  std::vector<ir::Scalar> ins;      // operand types
  ir::Scalar out = ir::Scalar::I32;
  ElementBody body;
  std::function<ir::Elem(const std::vector<ir::Elem>&)> exact;  // the semantics' result
  std::function<double(const std::vector<double>&)> approxRef;  // for Approx: unrounded reference
  Tolerance tol;
  // Inputs to skip (e.g. outside an approximation's promised domain); null: all.
  std::function<bool(const std::vector<ir::Elem>&)> skip;
};

struct CaseReport {
  std::string name;
  size_t checked = 0, failures = 0;
  double maxUlps = 0, maxAbs = 0;
  std::string firstFailures;  // a few examples
};

// Bit patterns worth testing for a type: every value of 8-bit types, edge cases and random
// patterns for the others.
std::vector<uint64_t> sampleBits(ir::Scalar t, size_t randomCount, std::mt19937_64& rng);

// Runs `cases` (all of one target) on the GPU in modules of a few kernels each.
std::vector<CaseReport> runCases(CudaDriver& cuda, const Target& target, const std::vector<Case>& cases,
                                 size_t maxTuples = 40000);

// One ulp of type t at |x| (the spacing of t's values there).
double ulpOf(ir::Scalar t, double x);

}  // namespace kiln::ptx::test
