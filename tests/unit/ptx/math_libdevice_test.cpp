// libdevice's functions (src/ptx/math_libdevice.cpp) in the CTA simulator of the lowering tests, f32 and
// f64, against the long double C library on edge values, each path's range and random bit patterns: a
// ulp bound per function (docs/ptx.md prints what this measures), NaN exactly where the reference is
// NaN, and infinities and signed zeros exact.
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <random>

#include "../lower/ops_sim.h"
#include "ir/scalar_special.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Opcode;
using ir::Scalar;

long double ulpAt(long double x, Scalar t) {
  int mant = t == Scalar::F64 ? 52 : 23, emin = t == Scalar::F64 ? -1022 : -126;
  int e = x == 0 || !std::isfinite(x) ? emin : std::max(int(std::ilogb(x)), emin);
  return std::ldexp(1.0L, e - mant);
}

std::string kernelPtx(Opcode op, Scalar t, size_t arity, const Target& target) {
  Module m(target);
  ElementOp o{op, t, CmpPred::Eq, false, false, {}};
  elementKernel(m, "f", std::vector<Scalar>(arity, t), t,
                [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectElementwise(e, o, d, s); });
  return m.str();
}

// Runs the kernel on the inputs (one vector per operand, all of one length) as doubles of type t.
std::vector<double> simulate(const std::string& ptx, Scalar t, const std::vector<std::vector<double>>& in) {
  const size_t w = t == Scalar::F64 ? 8 : 4, total = in[0].size(), kBlock = 1024;
  std::vector<double> out;
  for (size_t first = 0; first < total; first += kBlock) {
    size_t n = std::min(kBlock, total - first);
    lower::test::CtaSim sim(ptx, int(n), 0);
    for (size_t k = 0; k < in.size(); ++k) {
      std::vector<uint8_t> bytes(n * w);
      for (size_t i = 0; i < n; ++i) {
        double v = in[k][first + i];
        float f = float(v);
        std::memcpy(bytes.data() + i * w, w == 8 ? static_cast<const void*>(&v) : static_cast<const void*>(&f), w);
      }
      sim.setParam("f_in" + std::to_string(k), sim.addBuffer(bytes));
    }
    uint64_t o = sim.addBuffer(std::vector<uint8_t>(n * w, 0xCD));
    sim.setParam("f_out", o);
    sim.setParam("f_n", n);
    std::string err = sim.run();
    EXPECT_EQ(err, "");
    if (!err.empty()) return {};
    const std::vector<uint8_t>& r = sim.buffer(o);
    for (size_t i = 0; i < n; ++i) {
      if (w == 8) {
        double v;
        std::memcpy(&v, r.data() + 8 * i, 8);
        out.push_back(v);
      } else {
        float v;
        std::memcpy(&v, r.data() + 4 * i, 4);
        out.push_back(v);
      }
    }
  }
  return out;
}

using Ref = long double (*)(const std::vector<long double>&);

struct Fn {
  Opcode op;
  size_t arity;
  Ref ref;
  double boundF32, boundF64;  // ulp; 0: not on that type
  double absBound = 0;         // or this absolute error (the Bessel functions, near their zeros)
};

long double refPow(const std::vector<long double>& v) { return powl(v[0], v[1]); }

// The references: the C library's long double functions and the interpreter's long double meaning of
// the Bessel and inverse-erf ops (ir/scalar_special.h).
template <Opcode kOp>
long double refBessel(const std::vector<long double>& v) {
  return ir::besselLong(kOp, v[0]);
}

const Fn kFns[] = {
    {Opcode::Expm1, 1, [](const std::vector<long double>& v) { return expm1l(v[0]); }, 1, 3},
    {Opcode::Log1p, 1, [](const std::vector<long double>& v) { return log1pl(v[0]); }, 1, 3},
    {Opcode::Log10, 1, [](const std::vector<long double>& v) { return log10l(v[0]); }, 1, 2},
    {Opcode::Exp10, 1, [](const std::vector<long double>& v) { return exp10l(v[0]); }, 1, 2},
    {Opcode::Tan, 1, [](const std::vector<long double>& v) { return tanl(v[0]); }, 1, 3},
    {Opcode::Asin, 1, [](const std::vector<long double>& v) { return asinl(v[0]); }, 1, 3},
    {Opcode::Acos, 1, [](const std::vector<long double>& v) { return acosl(v[0]); }, 1, 3},
    {Opcode::Atan, 1, [](const std::vector<long double>& v) { return atanl(v[0]); }, 1, 3},
    {Opcode::Sinh, 1, [](const std::vector<long double>& v) { return sinhl(v[0]); }, 1, 3},
    {Opcode::Cosh, 1, [](const std::vector<long double>& v) { return coshl(v[0]); }, 1, 3},
    {Opcode::Asinh, 1, [](const std::vector<long double>& v) { return asinhl(v[0]); }, 1, 3},
    {Opcode::Acosh, 1, [](const std::vector<long double>& v) { return acoshl(v[0]); }, 1, 3},
    {Opcode::Atanh, 1, [](const std::vector<long double>& v) { return atanhl(v[0]); }, 1, 3},
    {Opcode::Cbrt, 1, [](const std::vector<long double>& v) { return cbrtl(v[0]); }, 1, 2},
    {Opcode::Atan2, 2, [](const std::vector<long double>& v) { return atan2l(v[0], v[1]); }, 1, 3},
    {Opcode::Hypot, 2, [](const std::vector<long double>& v) { return hypotl(v[0], v[1]); }, 1, 2},
    {Opcode::Pow, 2, refPow, 1, 1.5},
    {Opcode::BesselJ0, 1, refBessel<Opcode::BesselJ0>, 1, 4, 3e-12},
    {Opcode::BesselJ1, 1, refBessel<Opcode::BesselJ1>, 1, 4, 3e-12},
    {Opcode::BesselY0, 1, refBessel<Opcode::BesselY0>, 1, 4, 3e-12},
    {Opcode::BesselY1, 1, refBessel<Opcode::BesselY1>, 1, 4, 3e-12},
    {Opcode::BesselI0, 1, refBessel<Opcode::BesselI0>, 1, 0.75},
    {Opcode::BesselI1, 1, refBessel<Opcode::BesselI1>, 1, 0.75},
    {Opcode::Erfc, 1, [](const std::vector<long double>& v) { return erfcl(v[0]); }, 1, 3},
    {Opcode::Normcdf, 1, [](const std::vector<long double>& v) { return ir::normcdfLong(v[0]); }, 1, 4},
    {Opcode::Erfinv, 1, [](const std::vector<long double>& v) { return ir::erfinvLong(v[0]); }, 1, 3},
    {Opcode::Erfcinv, 1, [](const std::vector<long double>& v) { return ir::erfcinvLong(v[0]); }, 1, 3},
    {Opcode::Normcdfinv, 1, [](const std::vector<long double>& v) { return ir::normcdfinvLong(v[0]); }, 1, 3},
    {Opcode::Trunc, 1, [](const std::vector<long double>& v) { return truncl(v[0]); }, 0.0001, 0.0001},
    {Opcode::Rint, 1, [](const std::vector<long double>& v) { return nearbyintl(v[0]); }, 0.0001, 0.0001},
};

std::vector<double> edgeValues(Scalar t) {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 0.25, 1.5, -1.5, 2.5, -2.5,
                           10.0, -10.0, 0.1, -0.1, 1e-3, 1e-8, -1e-8, 1e-30, 30.0, 88.0, -88.0, 89.5, -104.0,
                           700.0, 709.0, 710.0, -745.0, 1e10, -1e10, 1e30, 1e300, INFINITY, -INFINITY, NAN,
                           0.9999999, -0.9999999, 1.0000001, 0.2679491924311227, 0.57735, 1e5, 0x1p-149, 0x1p-126};
  if (t == Scalar::F64)
    for (double x : {DBL_TRUE_MIN, DBL_MIN, DBL_MAX, -DBL_MAX, 1 - 0x1p-53, 1 + 0x1p-52, 0x1p28, 0x1p29})
      v.push_back(x);
  return v;
}

std::vector<double> randomValues(Scalar t, int n, std::mt19937_64& rng) {
  std::vector<double> v;
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: v.push_back(unit(rng)); break;                                      // [-1, 1]
      case 1: v.push_back(unit(rng) * 8); break;                                  // [-8, 8]
      case 2: v.push_back(std::ldexp(unit(rng), int(rng() % 60) - 30)); break;    // log-uniform, moderate
      default: {                                                                  // any bits
        uint64_t b = rng();
        double x;
        if (t == Scalar::F64) {
          std::memcpy(&x, &b, 8);
        } else {
          uint32_t b32 = uint32_t(b);
          float f;
          std::memcpy(&f, &b32, 4);
          x = f;
        }
        v.push_back(std::isnan(x) ? 0.0 : x);
      }
    }
  }
  if (t == Scalar::F32)
    for (double& x : v) x = double(float(x));
  return v;
}

// Uniform inputs over the ranges where a function's sequence is hardest (the tails).
struct ExtraRange {
  Opcode op;
  double lo, hi;
};
const ExtraRange kExtraRanges[] = {{Opcode::Erfc, -6, 28},   {Opcode::Normcdf, -39, 9},  {Opcode::Erfinv, -1, 1},
                                   {Opcode::Erfcinv, 0, 2},    {Opcode::Normcdfinv, 0, 1}};

// pow's hard inputs: results across the whole exponent range (y log|x| uniform in [-745, 710]), x near 1
// with large y, negative x with integer y, and subnormal x.
void addPowInputs(Scalar t, std::mt19937_64& rng, std::vector<std::vector<double>>& in) {
  std::uniform_real_distribution<double> unit(0, 1);
  const double maxLog = t == Scalar::F64 ? 709.7 : 88.7, minLog = t == Scalar::F64 ? -745.1 : -103.9;
  for (int i = 0; i < 8000; ++i) {
    double x, y;
    switch (i % 4) {
      case 0: x = std::ldexp(0.5 + unit(rng), int(rng() % 200) - 100); break;
      case 1: x = 1 + std::ldexp(unit(rng) - 0.5, -int(rng() % 50)); break;
      case 2: x = -std::ldexp(0.5 + unit(rng), int(rng() % 20) - 10); break;
      default: x = std::ldexp(unit(rng), t == Scalar::F64 ? -1022 - int(rng() % 30) : -126 - int(rng() % 20));
    }
    if (t == Scalar::F32) x = double(float(x));
    double lx = std::log(std::fabs(x));
    y = lx == 0 ? unit(rng) : (minLog + (maxLog - minLog) * unit(rng)) / lx;
    if (i % 4 == 2) y = std::nearbyint(y);
    if (t == Scalar::F32) y = double(float(y));
    in[0].push_back(x), in[1].push_back(y);
  }
}

// i0 and i1's inputs: dense around the series/asymptotic crossover at 20 and across [0, 714] (where f64
// overflows), and |x| log-uniform in [2^-12, 2^12] as the device test draws them; random signs; the
// crossover itself and the last finite results.
void addBesselIInputs(Scalar t, std::mt19937_64& rng, std::vector<double>& in) {
  std::uniform_real_distribution<double> unit(0, 1);
  for (double a : {20.0, std::nextafter(20.0, 0.0), std::nextafter(20.0, 21.0), 713.98, 713.987, 714.0})
    in.push_back(t == Scalar::F32 ? double(float(a)) : a), in.push_back(-in.back());
  for (int i = 0; i < 9000; ++i) {
    double a = i % 3 == 0   ? 15 + 10 * unit(rng)
               : i % 3 == 1 ? 714 * unit(rng)
                            : std::exp2(-12 + 24 * unit(rng));
    if (rng() % 2) a = -a;
    in.push_back(t == Scalar::F32 ? double(float(a)) : a);
  }
}

void check(const Fn& fn, Scalar t, std::mt19937_64& rng) {
  double bound = t == Scalar::F64 ? fn.boundF64 : fn.boundF32;
  if (bound == 0) return;
  std::vector<double> edges = edgeValues(t);
  if (t == Scalar::F32)
    for (double& x : edges) x = double(float(x));
  std::vector<std::vector<double>> in(fn.arity);
  if (fn.arity == 1) {
    in[0] = edges;
    for (double x : randomValues(t, 6000, rng)) in[0].push_back(x);
  } else {
    for (double a : edges)
      for (double b : edges) in[0].push_back(a), in[1].push_back(b);
    std::vector<double> ra = randomValues(t, 6000, rng), rb = randomValues(t, 6000, rng);
    in[0].insert(in[0].end(), ra.begin(), ra.end());
    in[1].insert(in[1].end(), rb.begin(), rb.end());
  }
  if (fn.op == Opcode::Pow) addPowInputs(t, rng, in);
  if (fn.op == Opcode::BesselI0 || fn.op == Opcode::BesselI1) addBesselIInputs(t, rng, in[0]);
  for (const auto& [op, lo, hi] : kExtraRanges)
    if (op == fn.op) {
      std::uniform_real_distribution<double> d(lo, hi);
      for (int i = 0; i < 3000; ++i) in[0].push_back(t == Scalar::F32 ? double(float(d(rng))) : d(rng));
    }
  const bool viaSinCos = fn.op == Opcode::Tan || fn.op == Opcode::BesselJ0 || fn.op == Opcode::BesselJ1 ||
                         fn.op == Opcode::BesselY0 || fn.op == Opcode::BesselY1;
  if (viaSinCos)  // the f64 sin/cos reduction is exact for |x| < 2^33 only (docs/ptx.md)
    in[0].erase(std::remove_if(in[0].begin(), in[0].end(), [](double x) { return std::fabs(x) > 0x1p33; }), in[0].end());
  for (const Target& target : {kSm80, kSm90a}) {
    std::vector<double> got = simulate(kernelPtx(fn.op, t, fn.arity, target), t, in);
    ASSERT_EQ(got.size(), in[0].size());
    double maxUlp = 0, worst = 0, maxAbs = 0;
    int failures = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      std::vector<long double> args;
      for (size_t k = 0; k < fn.arity; ++k) args.push_back(in[k][i]);
      long double want = fn.ref(args);
      double wantT = t == Scalar::F64 ? double(want) : double(float(want));
      bool ok;
      double ulps = 0;
      if (std::isnan(wantT) || std::isinf(wantT) || wantT == 0) {
        ok = std::isnan(wantT) ? std::isnan(got[i])
                               : (got[i] == wantT && std::signbit(got[i]) == std::signbit(wantT)) ||
                                     (wantT == 0 && std::fabs(got[i]) <= double(ulpAt(0, t)) &&
                                      std::fabs(want) > 0);  // a tiny result may round either way
      } else {
        ulps = double(std::fabs((long double)got[i] - want) / ulpAt(want, t));
        double absErr = double(std::fabs((long double)got[i] - want));
        ok = (ulps <= bound && std::signbit(got[i]) == std::signbit(wantT)) || absErr <= fn.absBound;
        if (absErr > fn.absBound && ulps > maxUlp) maxUlp = ulps, worst = in[0][i];
        maxAbs = std::max(maxAbs, absErr);
      }
      if (!ok && ++failures <= 5) {
        std::string xs;
        for (size_t k = 0; k < fn.arity; ++k) xs += (k ? ", " : "") + std::to_string(in[k][i]);
        std::string hx;
        for (size_t k = 0; k < fn.arity; ++k) {
          char h[40];
          std::snprintf(h, sizeof h, "%s%a", k ? ", " : "", in[k][i]);
          hx += h;
        }
        ADD_FAILURE() << ir::info(fn.op).spelling << "(" << xs << " [" << hx << "]) " << ir::name(t) << " on "
                      << target.name() << ": got " << got[i] << ", want " << double(want) << " (" << ulps << " ulp)";
      }
    }
    if (target == kSm90a)
      std::printf("  %s %-6s %6zu inputs  max %.3f ulp (at %.9g)%s, max abs error %.2e\n",
                  std::string(ir::name(t)).c_str(), ir::info(fn.op).spelling, got.size(), maxUlp, worst,
                  fn.absBound > 0 ? " where the abs error is above its bound" : "", maxAbs);
  }
}

class SimLibdeviceMath : public ::testing::TestWithParam<Fn> {};

TEST_P(SimLibdeviceMath, F32) {
  std::mt19937_64 rng(7);
  check(GetParam(), Scalar::F32, rng);
}
TEST_P(SimLibdeviceMath, F64) {
  std::mt19937_64 rng(11);
  check(GetParam(), Scalar::F64, rng);
}

INSTANTIATE_TEST_SUITE_P(All, SimLibdeviceMath, ::testing::ValuesIn(kFns),
                         [](const ::testing::TestParamInfo<Fn>& i) { return std::string(ir::info(i.param.op).spelling); });

}  // namespace
}  // namespace kiln::ptx::test
