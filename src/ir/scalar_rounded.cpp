// The `rounded` op's meaning: add, sub, mul, div, fma, sqrt and rcp of f32/f64 values rounded once in a
// chosen direction. The host's IEEE arithmetic does it under that rounding mode (<cfenv>); this file is
// compiled with -frounding-math, and the operands and result pass through volatile variables so that
// no operation moves across the mode switches.
#include <cfenv>
#include <cmath>
#include <string>

#include "ir/scalar_eval.h"
#include "support/diagnostic.h"

namespace kiln::ir {

namespace {

constexpr struct {
  RoundedFn fn;
  const char* name;
  int arity;
} kFns[] = {{RoundedFn::Add, "add", 2}, {RoundedFn::Sub, "sub", 2}, {RoundedFn::Mul, "mul", 2},
            {RoundedFn::Div, "div", 2}, {RoundedFn::Fma, "fma", 3}, {RoundedFn::Sqrt, "sqrt", 1},
            {RoundedFn::Rcp, "rcp", 1}};

int hostMode(RoundMode m) {
  switch (m) {
    case RoundMode::NearestEven: return FE_TONEAREST;
    case RoundMode::TowardZero: return FE_TOWARDZERO;
    case RoundMode::Down: return FE_DOWNWARD;
    case RoundMode::Up: return FE_UPWARD;
  }
  return FE_TONEAREST;
}

template <class T>
T apply(RoundedFn fn, T a, T b, T c) {
  switch (fn) {
    case RoundedFn::Add: return a + b;
    case RoundedFn::Sub: return a - b;
    case RoundedFn::Mul: return a * b;
    case RoundedFn::Div: return a / b;
    case RoundedFn::Fma: return std::fma(a, b, c);
    case RoundedFn::Sqrt: return std::sqrt(a);
    case RoundedFn::Rcp: return T(1) / a;
  }
  return a;
}

template <class T>
T underMode(RoundedFn fn, int mode, T a, T b, T c) {
  volatile T va = a, vb = b, vc = c;
  volatile T r;
  const int saved = std::fegetround();
  std::fesetround(mode);
  r = apply<T>(fn, va, vb, vc);
  std::fesetround(saved);
  return r;
}

}  // namespace

bool roundedFnFromName(std::string_view name, RoundedFn& out) {
  for (const auto& f : kFns)
    if (name == f.name) return out = f.fn, true;
  return false;
}

std::string_view roundedFnName(RoundedFn fn) {
  for (const auto& f : kFns)
    if (f.fn == fn) return f.name;
  return "add";
}

int roundedArity(RoundedFn fn) {
  for (const auto& f : kFns)
    if (f.fn == fn) return f.arity;
  return 1;
}

double roundedArith(Scalar t, RoundedFn fn, RoundMode mode, const double* x) {
  const int n = roundedArity(fn);
  double a = x[0], b = n > 1 ? x[1] : 0.0, c = n > 2 ? x[2] : 0.0;
  if (t == Scalar::F64) return underMode<double>(fn, hostMode(mode), a, b, c);
  if (t == Scalar::F32) return double(underMode<float>(fn, hostMode(mode), float(a), float(b), float(c)));
  throw InternalError({}, "rounded is not defined on " + std::string(name(t)));
}

}  // namespace kiln::ir
