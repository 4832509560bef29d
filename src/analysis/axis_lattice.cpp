// Power-of-two arithmetic, join and normalisation of axis facts (see axis_lattice.h). Every fact
// is a power of two, so gcd and min agree; the code says min and the docs say gcd.
#include "analysis/axis_lattice.h"

#include <algorithm>
#include <bit>

namespace kiln::analysis {

namespace {
std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

std::string AxisInfo::str() const {
  std::string s = "contiguity=" + list(contiguity) + " divisibility=" + list(divisibility) +
                  " constancy=" + list(constancy);
  if (constant) s += " constant=" + std::to_string(*constant);
  return s;
}

namespace lattice {

int64_t pow2Divisor(int64_t v) {
  uint64_t u = uint64_t(v);
  if (u == 0) return kMaxDivisibility;
  int tz = std::countr_zero(u);
  return tz >= 62 ? kMaxDivisibility : int64_t(1) << tz;
}

int64_t capMul(int64_t a, int64_t b) {
  // Both are powers of two <= 2^62: compare exponents instead of risking overflow.
  int e = std::countr_zero(uint64_t(a)) + std::countr_zero(uint64_t(b));
  return e >= 62 ? kMaxDivisibility : int64_t(1) << e;
}

int64_t runCap(int64_t size) { return size <= 0 ? 1 : pow2Divisor(size); }

int dimsOf(const ir::Type& t) { return std::max(1, t.rank()); }

int64_t dimSize(const ir::Type& t, int d) { return t.isTensor() ? t.shape.at(size_t(d)) : 1; }

int64_t unitOf(const ir::Type& t) {
  if (!t.isPtr()) return 1;
  return std::max<int64_t>(1, ir::bitWidth(t.pointee) / 8);
}

int64_t divAt(const AxisInfo& x, int d, int64_t c, int64_t unit) {
  size_t i = size_t(d);
  if (c >= x.contiguity[i]) return x.divisibility[i];
  // Inside a run, index c*j holds start + c*j*unit: divisible by gcd(D, c*unit).
  return std::min(x.divisibility[i], capMul(c, unit));
}

int64_t elementDivisibility(const AxisInfo& x, int64_t unit) {
  int64_t best = 1;
  for (int d = 0; d < x.dims(); ++d) best = std::max(best, divAt(x, d, 1, unit));
  return best;
}

AxisInfo conservative(const ir::Type& t) {
  size_t n = size_t(dimsOf(t));
  AxisInfo x;
  x.contiguity.assign(n, 1);
  x.divisibility.assign(n, 1);
  x.constancy.assign(n, 1);
  finish(x, t);
  return x;
}

AxisInfo uniform(const ir::Type& t, int64_t divisibility, bool nonNegative) {
  AxisInfo x = conservative(t);
  for (int d = 0; d < x.dims(); ++d) {
    x.constancy[size_t(d)] = runCap(dimSize(t, d));
    x.divisibility[size_t(d)] = divisibility;
  }
  x.nonNegative = nonNegative;
  finish(x, t);
  return x;
}

AxisInfo constantOf(const ir::Type& t, int64_t value) {
  AxisInfo x = uniform(t, pow2Divisor(value), false);
  x.constant = value;
  finish(x, t);
  return x;
}

AxisInfo splat(const AxisInfo& scalar, const ir::Type& t) {
  AxisInfo x = uniform(t, scalar.divisibility.at(0), scalar.nonNegative);
  x.constant = scalar.constant;
  finish(x, t);
  return x;
}

AxisInfo join(const AxisInfo& a, const AxisInfo& b, const ir::Type& t) {
  AxisInfo x = conservative(t);
  int64_t unit = unitOf(t);
  for (int d = 0; d < x.dims(); ++d) {
    size_t i = size_t(d);
    int64_t c = std::min(a.contiguity[i], b.contiguity[i]);
    x.contiguity[i] = c;
    x.constancy[i] = std::min(a.constancy[i], b.constancy[i]);
    // Divisibility holds at run starts, which move when the contiguity shrinks.
    x.divisibility[i] = std::min(divAt(a, d, c, unit), divAt(b, d, c, unit));
  }
  if (a.constant && b.constant && *a.constant == *b.constant) x.constant = a.constant;
  x.nonNegative = a.nonNegative && b.nonNegative;
  finish(x, t);
  return x;
}

void finish(AxisInfo& x, const ir::Type& t) {
  int n = dimsOf(t);
  x.contiguity.resize(size_t(n), 1);
  x.divisibility.resize(size_t(n), 1);
  x.constancy.resize(size_t(n), 1);
  bool isInt = t.isInt(), isPtr = t.isPtr();
  for (int d = 0; d < n; ++d) {
    size_t i = size_t(d);
    int64_t cap = runCap(dimSize(t, d));
    // A run length that is not a power of two still holds for its largest power-of-two divisor.
    x.contiguity[i] = std::min(x.contiguity[i] >= 1 ? pow2Divisor(x.contiguity[i]) : 1, cap);
    x.constancy[i] = std::min(x.constancy[i] >= 1 ? pow2Divisor(x.constancy[i]) : 1, cap);
    x.divisibility[i] = x.divisibility[i] >= 1 ? pow2Divisor(x.divisibility[i]) : 1;
    if (!isInt && !isPtr) x.contiguity[i] = x.divisibility[i] = 1;
    // PTX accesses need natural alignment, so a pointer is taken to be aligned to its element.
    if (isPtr) x.divisibility[i] = std::max(x.divisibility[i], unitOf(t));
  }
  if (!isInt) {
    x.constant.reset();
    x.nonNegative = false;
    return;
  }
  if (!ir::isSigned(t.elem)) x.nonNegative = true;
  if (x.constant) {
    for (int d = 0; d < n; ++d) {
      size_t i = size_t(d);
      x.constancy[i] = runCap(dimSize(t, d));
      x.contiguity[i] = 1;
      x.divisibility[i] = pow2Divisor(*x.constant);
    }
    if (*x.constant >= 0) x.nonNegative = true;
  }
}

}  // namespace lattice
}  // namespace kiln::analysis
