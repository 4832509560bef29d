// The f64 math sequences (src/ptx/math_f64*.cpp) run in the CTA simulator of the lowering tests on
// many inputs per function (edge values, each range that takes its own path, random bit patterns)
// and are compared with the long double C library: a ulp bound, and exact special values.
#include <cfloat>
#include <cstdio>
#include <random>

#include "../lower/ops_sim.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Opcode;
using ir::Scalar;

// The promised bound (docs/ptx.md); every function measures below 1 ulp.
constexpr double kBound = 1.5;
// Inputs per random range, relative to the default (raise for a one-off stress run).
constexpr int kScale = 1;

// The ulp of a double at |x| (subnormal spacing below 2^-1022).
long double ulpAt(long double x) {
  int e = x == 0 || !std::isfinite(x) ? -1022 : std::max(std::ilogb(x), -1022);
  return std::ldexp(1.0L, e - 52);
}

// The PTX of a kernel applying `op` element-wise to f64 inputs, and its results in the simulator.
std::string kernelPtx(Opcode op, const Target& target) {
  Module m(target);
  ElementOp o{op, Scalar::F64, CmpPred::Eq, false, false, {}};
  elementKernel(m, "f", {Scalar::F64}, Scalar::F64,
                [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectElementwise(e, o, d, s); });
  return m.str();
}

std::vector<double> simulate(const std::string& ptx, const std::vector<double>& in) {
  std::vector<double> out;
  const size_t kBlock = 1024;
  for (size_t first = 0; first < in.size(); first += kBlock) {
    size_t n = std::min(kBlock, in.size() - first);
    lower::test::CtaSim sim(ptx, int(n), 0);
    std::vector<uint8_t> bytes(n * 8), result(n * 8, 0xCD);
    std::memcpy(bytes.data(), in.data() + first, n * 8);
    uint64_t a = sim.addBuffer(bytes), o = sim.addBuffer(result);
    sim.setParam("f_in0", a);
    sim.setParam("f_out", o);
    sim.setParam("f_n", n);
    std::string err = sim.run();
    EXPECT_EQ(err, "");
    if (!err.empty()) return {};
    const std::vector<uint8_t>& r = sim.buffer(o);
    for (size_t i = 0; i < n; ++i) {
      double v;
      std::memcpy(&v, r.data() + 8 * i, 8);
      out.push_back(v);
    }
  }
  return out;
}

struct Range {
  const char* name;
  std::vector<double> inputs;
};

std::vector<double> uniform(double lo, double hi, int n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v;
  for (int i = 0; i < n * kScale; ++i) v.push_back(d(rng));
  return v;
}
// Random bit patterns: every exponent equally likely (sign as asked).
std::vector<double> anyBits(int n, bool positive, std::mt19937_64& rng) {
  std::vector<double> v;
  while (int(v.size()) < n * kScale) {
    uint64_t b = rng();
    if (positive) b &= ~(uint64_t(1) << 63);
    double x;
    std::memcpy(&x, &b, 8);
    if (!std::isnan(x)) v.push_back(x);
  }
  return v;
}

const std::vector<double>& specials() {
  static const std::vector<double> k = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, INFINITY, -INFINITY, NAN,
                                        DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MIN, -DBL_MIN, DBL_MIN - DBL_TRUE_MIN,
                                        DBL_MAX, -DBL_MAX, 1e-300, -1e-300, 0x1p-54, -0x1p-54, 1e300, -1e300};
  return k;
}

struct Measured {
  double maxUlp = 0;
  double worstInput = 0;
};

// Runs `ranges` through the sequence for `op`; every result must be within `bound` ulp of the
// long double reference, NaN exactly where it is NaN, and infinities and zeros (with their sign) exact.
void checkFunction(Opcode op, long double (*ref)(long double), const std::vector<Range>& ranges, double bound) {
  for (const Target& target : {kSm80, kSm90a}) {
    std::string ptx = kernelPtx(op, target);
    EXPECT_EQ(ptx.find("bra"), ptx.rfind("bra")) << "only the kernel's own bounds check may branch";
    for (const Range& range : ranges) {
      std::vector<double> got = simulate(ptx, range.inputs);
      ASSERT_EQ(got.size(), range.inputs.size());
      Measured m;
      int failures = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        double x = range.inputs[i];
        long double want = ref(x);
        double wantD = double(want);
        bool ok;
        double ulps = 0;
        if (std::isnan(wantD) || std::isinf(wantD) || (wantD == 0 && std::fabs(want) < ulpAt(0) / 2)) {
          ok = std::isnan(wantD) ? std::isnan(got[i]) : std::memcmp(&got[i], &wantD, 8) == 0;
        } else {
          ulps = double(std::fabs((long double)got[i] - want) / ulpAt(want));
          ok = ulps <= bound && std::signbit(got[i]) == std::signbit(wantD);
          if (ulps > m.maxUlp) m = {ulps, x};
        }
        if (!ok && ++failures <= 5)
          ADD_FAILURE() << ir::info(op).spelling << "(" << std::hexfloat << x << " = " << std::defaultfloat << x
                        << ") on " << target.name() << ": got " << got[i] << ", want " << double(want) << " ("
                        << ulps << " ulp)";
      }
      if (target == kSm90a)
        std::printf("  f64 %-5s %-32s %6zu inputs  max %.3f ulp (at %.17g)\n", ir::info(op).spelling, range.name,
                    got.size(), m.maxUlp, m.worstInput);
    }
  }
}

class SimF64Math : public ::testing::Test {
 protected:
  std::mt19937_64 rng{20240601};
};

TEST_F(SimF64Math, Exp) {
  std::vector<double> edges = specials();
  for (double x : {709.782712893384, 709.7827128933841, 709.78, -708.3964185322641, -708.4, -745.1332191019411,
                   -745.1332191019412, -745.2, -744.44, 1e-17, -1e-17, 0.34657359027997264, -0.34657359027997264})
    edges.push_back(x);
  checkFunction(Opcode::Exp, expl,
                {{"edges", edges},
                 {"[-1, 1]", uniform(-1, 1, 3000, rng)},
                 {"[-750, 750]", uniform(-750, 750, 5000, rng)},
                 {"subnormal results [-745.2, -708]", uniform(-745.2, -708, 2000, rng)},
                 {"any bits", anyBits(2000, false, rng)}},
                kBound);
}

TEST_F(SimF64Math, Exp2) {
  std::vector<double> edges = specials();
  for (double x : {1023.0, 1023.5, 1023.9999999999999, 1024.0, -1022.0, -1022.5, -1074.0, -1074.5, -1075.0,
                   -1075.5, -1073.25, 0.5, -0.5, 3.0, -7.0, 1e-17})
    edges.push_back(x);
  checkFunction(Opcode::Exp2, exp2l,
                {{"edges", edges},
                 {"[-1, 1]", uniform(-1, 1, 3000, rng)},
                 {"[-1080, 1030]", uniform(-1080, 1030, 5000, rng)},
                 {"any bits", anyBits(2000, false, rng)}},
                kBound);
}

std::vector<Range> logRanges(std::mt19937_64& rng) {
  std::vector<double> edges = specials();
  for (double x : {0.7071067811865476, 0.7071067811865475, 1.4142135623730951, 1.414213562373095,
                   1.0000000000000002, 0.9999999999999999, 3.0, 10.0, 0x1p-1074, 0x1p-1030, 0x1.fffffp-1023})
    edges.push_back(x);
  std::vector<double> nearOne = uniform(1 - 0x1p-8, 1 + 0x1p-8, 3000, rng);
  return {{"edges", edges},
          {"near 1 [1 - 2^-8, 1 + 2^-8]", nearOne},
          {"[0.5, 2]", uniform(0.5, 2, 3000, rng)},
          {"positive, any exponent", anyBits(5000, true, rng)},
          {"any bits (negatives: NaN)", anyBits(1000, false, rng)}};
}

TEST_F(SimF64Math, Log) { checkFunction(Opcode::Log, logl, logRanges(rng), kBound); }
TEST_F(SimF64Math, Log2) { checkFunction(Opcode::Log2, log2l, logRanges(rng), kBound); }

std::vector<Range> trigRanges(std::mt19937_64& rng) {
  // Doubles nearest to multiples of pi/2 (results far below 1: the reduction must be exact there).
  std::vector<double> nearZeros;
  for (int i = 0; i < 2000; ++i) {
    long double k = (long double)(int64_t(rng() % 127324) - 63662);
    nearZeros.push_back(double(k * 1.5707963267948966192313216916397514L));
  }
  std::vector<double> edges;
  for (double x : specials())
    if (!(std::fabs(x) > 1e5) || std::isinf(x)) edges.push_back(x);
  std::vector<double> wide;
  for (double m : uniform(-1, 1, 3000, rng)) wide.push_back(std::ldexp(m, int(rng() % 34)));
  return {{"edges", edges},
          {"|x| < 2^33 (log-uniform)", wide},
          {"[-pi, pi]", uniform(-3.1415926535897931, 3.1415926535897931, 3000, rng)},
          {"[-1e5, 1e5]", uniform(-1e5, 1e5, 4000, rng)},
          {"near k pi/2, |k| < 63662", nearZeros},
          {"tiny [-1e-6, 1e-6]", uniform(-1e-6, 1e-6, 500, rng)}};
}

TEST_F(SimF64Math, Sin) { checkFunction(Opcode::Sin, sinl, trigRanges(rng), kBound); }
TEST_F(SimF64Math, Cos) { checkFunction(Opcode::Cos, cosl, trigRanges(rng), kBound); }

TEST_F(SimF64Math, SinCosStayBoundedBeyondTheirRange) {
  // Past |x| = 2^33 the reduction may leave [-pi/4, pi/4]: results lose accuracy but stay in [-1, 1].
  std::vector<double> huge = {1e16, -1e16, 1e22, -1e300, DBL_MAX, -DBL_MAX, 0x1p60, 3e19};
  for (double m : uniform(-1, 1, 2000, rng)) huge.push_back(std::ldexp(m, 34 + int(rng() % 990)));
  for (Opcode op : {Opcode::Sin, Opcode::Cos}) {
    std::vector<double> got = simulate(kernelPtx(op, kSm80), huge);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_LE(std::fabs(got[i]), 1.0) << huge[i];
  }
}

TEST_F(SimF64Math, Tanh) {
  std::vector<double> edges = specials();
  for (double x : {0.55, -0.55, 0.5499999999999999, 0.5500000000000002, 19.0, 19.1, 20.0, 355.0, 1e-8})
    edges.push_back(x);
  checkFunction(Opcode::Tanh, tanhl,
                {{"edges", edges},
                 {"[-0.55, 0.55]", uniform(-0.55, 0.55, 3000, rng)},
                 {"[-25, 25]", uniform(-25, 25, 4000, rng)},
                 {"any bits", anyBits(1000, false, rng)}},
                kBound);
}

TEST_F(SimF64Math, Erf) {
  std::vector<double> edges = specials();
  for (double x : {0.9, -0.9, 0.8999999999999999, 0.9000000000000001, 5.92, 5.93, 5.95, 6.0, 1e-8, 2.0, 3.0})
    edges.push_back(x);
  checkFunction(Opcode::Erf, erfl,
                {{"edges", edges},
                 {"[-0.9, 0.9]", uniform(-0.9, 0.9, 3000, rng)},
                 {"[-7, 7]", uniform(-7, 7, 4000, rng)},
                 {"any bits", anyBits(1000, false, rng)}},
                kBound);
}

}  // namespace
}  // namespace kiln::ptx::test
