// GPU checks (skipped without a GPU): every element-wise selection, cast and bitcast, in every
// dtype, for sm_80 and sm_90a PTX, against kiln's scalar semantics on many inputs. Exact ops must
// match bit for bit; approximations must stay within the bounds docs/ptx.md promises.
#include <gtest/gtest.h>

#include <cstdio>

#include "device_check.h"
#include "ir/scalar_special.h"

namespace kiln::ptx::test {
namespace {

using ir::Opcode;
using ir::Scalar;

CudaDriver* gpu() { return CudaDriver::get(); }

// libdevice's functions that run as f64 sequences (math_libdevice.cpp, math_erfc.cpp, math_erfinv.cpp,
// math_bessel.cpp, math_pow.cpp); trunc and rint are exact.
bool ptxLibdevice(Opcode o) {
  for (Opcode l : {Opcode::Expm1, Opcode::Log1p, Opcode::Log10, Opcode::Exp10, Opcode::Tan, Opcode::Asin, Opcode::Acos,
                   Opcode::Atan, Opcode::Sinh, Opcode::Cosh, Opcode::Asinh, Opcode::Acosh, Opcode::Atanh, Opcode::Cbrt,
                   Opcode::Atan2, Opcode::Hypot, Opcode::Pow, Opcode::BesselJ0, Opcode::BesselJ1, Opcode::BesselY0,
                   Opcode::BesselY1, Opcode::BesselI0, Opcode::BesselI1, Opcode::Erfc, Opcode::Normcdf, Opcode::Erfinv,
                   Opcode::Erfcinv, Opcode::Normcdfinv})
    if (o == l) return true;
  return false;
}

// The error bound of an approximate selection (docs/ptx.md), or exact. f16/bf16/fp8 compute in
// f32 and round, so their approximations are within one ulp of their own type. f64 math is within
// 1.5 ulp of the exact result; the double-precision reference adds up to ~0.5 ulp of its own.
Tolerance toleranceFor(const ElementOp& op) {
  if (!ir::isFloat(op.type)) return {};
  const Opcode o = op.op;
  const bool f32 = op.type == Scalar::F32, f64 = op.type == Scalar::F64;
  auto ulp = [&](double u32, double abs = 0) {
    return Tolerance{false, f32 ? u32 : f64 && o != Opcode::Rsqrt ? 2 : 1, abs};
  };
  if (o == Opcode::BesselJ0 || o == Opcode::BesselJ1 || o == Opcode::BesselY0 || o == Opcode::BesselY1)
    return Tolerance{false, f32 ? 2.0 : f64 ? 4.0 : 1.0, 1e-11};  // an absolute bound near their zeros
  if (o == Opcode::BesselI0 || o == Opcode::BesselI1)  // f64: 0.56 ulp (docs/ptx.md) + the double reference's 0.5
    return Tolerance{false, f32 || f64 ? 2.0 : 1.0, 0};
  if (ir::familyOf(o) == ir::Family::Math && ptxLibdevice(o))  // f64 inside: docs/ptx.md's bounds + the reference's
    return Tolerance{false, f32 ? 2.0 : f64 ? 4.0 : 1.0, 0};
  if ((o == Opcode::Div || o == Opcode::Sqrt) && !op.ieee && !f64) return ulp(2);
  if (o == Opcode::Rsqrt || o == Opcode::Exp2) return ulp(2);
  if (o == Opcode::Exp || o == Opcode::Log || o == Opcode::Log2 || o == Opcode::Sin || o == Opcode::Cos ||
      o == Opcode::Tanh || o == Opcode::Erf)
    return ulp(3);
  return {};
}

double refDouble(Opcode op, const std::vector<double>& x) {
  static const std::pair<Opcode, double (*)(const std::vector<double>&)> kRefs[] = {
      {Opcode::Div, [](const std::vector<double>& v) { return v[0] / v[1]; }},
      {Opcode::Sqrt, [](const std::vector<double>& v) { return std::sqrt(v[0]); }},
      {Opcode::Rsqrt, [](const std::vector<double>& v) { return 1.0 / std::sqrt(v[0]); }},
      {Opcode::Exp2, [](const std::vector<double>& v) { return std::exp2(v[0]); }},
      {Opcode::Exp, [](const std::vector<double>& v) { return std::exp(v[0]); }},
      {Opcode::Log, [](const std::vector<double>& v) { return std::log(v[0]); }},
      {Opcode::Log2, [](const std::vector<double>& v) { return std::log2(v[0]); }},
      {Opcode::Sin, [](const std::vector<double>& v) { return std::sin(v[0]); }},
      {Opcode::Cos, [](const std::vector<double>& v) { return std::cos(v[0]); }},
      {Opcode::Tanh, [](const std::vector<double>& v) { return std::tanh(v[0]); }},
      {Opcode::Erf, [](const std::vector<double>& v) { return std::erf(v[0]); }},
      {Opcode::Expm1, [](const std::vector<double>& v) { return std::expm1(v[0]); }},
      {Opcode::Log1p, [](const std::vector<double>& v) { return std::log1p(v[0]); }},
      {Opcode::Log10, [](const std::vector<double>& v) { return std::log10(v[0]); }},
      {Opcode::Exp10, [](const std::vector<double>& v) { return std::pow(10.0, v[0]); }},
      {Opcode::Tan, [](const std::vector<double>& v) { return std::tan(v[0]); }},
      {Opcode::Asin, [](const std::vector<double>& v) { return std::asin(v[0]); }},
      {Opcode::Acos, [](const std::vector<double>& v) { return std::acos(v[0]); }},
      {Opcode::Atan, [](const std::vector<double>& v) { return std::atan(v[0]); }},
      {Opcode::Sinh, [](const std::vector<double>& v) { return std::sinh(v[0]); }},
      {Opcode::Cosh, [](const std::vector<double>& v) { return std::cosh(v[0]); }},
      {Opcode::Asinh, [](const std::vector<double>& v) { return std::asinh(v[0]); }},
      {Opcode::Acosh, [](const std::vector<double>& v) { return std::acosh(v[0]); }},
      {Opcode::Atanh, [](const std::vector<double>& v) { return std::atanh(v[0]); }},
      {Opcode::Cbrt, [](const std::vector<double>& v) { return std::cbrt(v[0]); }},
      {Opcode::Atan2, [](const std::vector<double>& v) { return std::atan2(v[0], v[1]); }},
      {Opcode::Hypot, [](const std::vector<double>& v) { return std::hypot(v[0], v[1]); }},
      {Opcode::Pow, [](const std::vector<double>& v) { return std::pow(v[0], v[1]); }},
      {Opcode::BesselJ0, [](const std::vector<double>& v) { return ir::besselOf(Opcode::BesselJ0, v[0]); }},
      {Opcode::BesselJ1, [](const std::vector<double>& v) { return ir::besselOf(Opcode::BesselJ1, v[0]); }},
      {Opcode::BesselY0, [](const std::vector<double>& v) { return ir::besselOf(Opcode::BesselY0, v[0]); }},
      {Opcode::BesselY1, [](const std::vector<double>& v) { return ir::besselOf(Opcode::BesselY1, v[0]); }},
      {Opcode::BesselI0, [](const std::vector<double>& v) { return ir::besselOf(Opcode::BesselI0, v[0]); }},
      {Opcode::BesselI1, [](const std::vector<double>& v) { return ir::besselOf(Opcode::BesselI1, v[0]); }},
      {Opcode::Erfc, [](const std::vector<double>& v) { return double(erfcl(v[0])); }},
      {Opcode::Normcdf, [](const std::vector<double>& v) { return double(ir::normcdfLong(v[0])); }},
      {Opcode::Erfinv, [](const std::vector<double>& v) { return double(ir::erfinvLong(v[0])); }},
      {Opcode::Erfcinv, [](const std::vector<double>& v) { return double(ir::erfcinvLong(v[0])); }},
      {Opcode::Normcdfinv, [](const std::vector<double>& v) { return double(ir::normcdfinvLong(v[0])); }},
  };
  for (const auto& [o, f] : kRefs)
    if (o == op) return f(x);
  return NAN;
}

std::vector<Case> elementwiseCases(const Target& target) {
  std::vector<Case> cases;
  for (Opcode opc : elementwiseOps()) {
    for (Scalar t : typesFor(opc)) {
      for (const Variant& v : variantsFor(opc, t)) {
        if (unsupported(v.op, target)) continue;
        ElementOp op = v.op;
        ir::ElementwiseFn fn{opc, t, uint8_t(op.pred), op.propagateNan, op.roundedFn, op.mode};
        Case c;
        c.name = std::string(ir::info(opc).spelling) + "_" + tname(t) + v.suffix;
        c.ins = operandTypes(op);
        c.out = opc == Opcode::Cmp ? Scalar::I1 : t;
        c.body = [op](Entry& e, Reg d, const std::vector<Reg>& s) { selectElementwise(e, op, d, s); };
        // f32 exp2 is ex2.approx.ftz.f32 (Triton's; docs/semantics.md): a result below 2^-126 is 0 on the GPU,
        // also where bf16 rounds it; the interpreter keeps the subnormal.
        const bool flushes = opc == Opcode::Exp2 && (t == Scalar::F32 || t == Scalar::BF16);
        c.exact = [fn, flushes](const std::vector<ir::Elem>& in) {
          ir::Elem out;
          bool divByZero = false;
          ir::evalElementwise(fn, in.data(), out, divByZero);
          if (flushes && std::fabs(out.f) < 0x1p-126) out = ir::floatElem(0.0);
          return out;
        };
        c.tol = toleranceFor(op);
        c.approxRef = [opc](const std::vector<double>& x) { return refDouble(opc, x); };
        if (opc == Opcode::Sin || opc == Opcode::Cos)  // promised for |x| <= 1e5
          c.skip = [](const std::vector<ir::Elem>& in) { return !(std::fabs(in[0].f) <= 1e5); };
        if (opc == Opcode::Tan || opc == Opcode::BesselJ0 || opc == Opcode::BesselJ1 || opc == Opcode::BesselY0 ||
            opc == Opcode::BesselY1)  // the f64 reduction is exact for |x| < 2^33
          c.skip = [](const std::vector<ir::Elem>& in) { return !(std::fabs(in[0].f) <= 1e9); };
        cases.push_back(std::move(c));
      }
    }
  }
  return cases;
}

std::vector<Case> castCases(const Target& target) {
  std::vector<Case> cases;
  std::vector<Scalar> types = allScalars();
  for (Scalar from : types) {
    for (Scalar to : types) {
      for (bool rtz : {false, true}) {
        if (rtz && !ir::isFloat(to)) continue;
        bool narrowFp8 = (to == Scalar::F8E4M3 || to == Scalar::F8E5M2) && from != to && from != Scalar::I1;
        if (narrowFp8 && (target.sm < 89 || rtz)) continue;
        Case c;
        c.name = "cast_" + tname(from) + "_" + tname(to) + (rtz ? "_rtz" : "");
        c.ins = {from};
        c.out = to;
        c.body = [=](Entry& e, Reg d, const std::vector<Reg>& s) { selectCast(e, from, to, rtz, d, s[0], {}); };
        c.exact = [=](const std::vector<ir::Elem>& in) { return ir::convert(from, to, in[0], rtz); };
        cases.push_back(std::move(c));
      }
    }
  }
  // Toward -inf and +inf: from every integer and f64 to f32, from the integers to f64 (libdevice's
  // int2float_rd, double2float_ru, ll2double_rd, ...).
  for (Scalar from : types)
    for (Scalar to : {Scalar::F32, Scalar::F64})
      for (ir::RoundMode mode : {ir::RoundMode::Down, ir::RoundMode::Up}) {
        if (!(ir::isInt(from) || (from == Scalar::F64 && to == Scalar::F32))) continue;
        Case c;
        c.name = "cast_" + tname(from) + "_" + tname(to) + "_" + std::string(ir::roundModeName(mode));
        c.ins = {from};
        c.out = to;
        c.body = [=](Entry& e, Reg d, const std::vector<Reg>& s) { selectCast(e, from, to, mode, d, s[0], {}); };
        c.exact = [=](const std::vector<ir::Elem>& in) { return ir::convert(from, to, in[0], mode); };
        cases.push_back(std::move(c));
      }
  // fp8e4b15 converts to and from f16 and f32 only (sema refuses the rest, as Triton does), and
  // bitcasts to and from the 8-bit integers. Its inputs are all 256 patterns, f16's and f32's many.
  for (Scalar other : {Scalar::F16, Scalar::F32})
    for (bool up : {true, false}) {
      Scalar from = up ? Scalar::F8E4B15 : other, to = up ? other : Scalar::F8E4B15;
      Case c;
      c.name = "cast_" + tname(from) + "_" + tname(to);
      c.ins = {from};
      c.out = to;
      c.body = [=](Entry& e, Reg d, const std::vector<Reg>& s) { selectCast(e, from, to, false, d, s[0], {}); };
      c.exact = [=](const std::vector<ir::Elem>& in) { return ir::convert(from, to, in[0], false); };
      cases.push_back(std::move(c));
    }
  for (Scalar other : {Scalar::I8, Scalar::U8})
    for (bool up : {true, false}) {
      Scalar from = up ? Scalar::F8E4B15 : other, to = up ? other : Scalar::F8E4B15;
      Case c;
      c.name = "bitcast_" + tname(from) + "_" + tname(to);
      c.ins = {from};
      c.out = to;
      c.body = [=](Entry& e, Reg d, const std::vector<Reg>& s) { selectBitcast(e, from, to, d, s[0]); };
      c.exact = [=](const std::vector<ir::Elem>& in) { return ir::bitcast(from, to, in[0]); };
      cases.push_back(std::move(c));
    }
  types.push_back(Scalar::Ptr);
  for (Scalar from : types) {
    for (Scalar to : types) {
      if (ir::bitWidth(from) != ir::bitWidth(to)) continue;
      Case c;
      c.name = "bitcast_" + tname(from) + "_" + tname(to);
      c.ins = {from};
      c.out = to;
      c.body = [=](Entry& e, Reg d, const std::vector<Reg>& s) { selectBitcast(e, from, to, d, s[0]); };
      c.exact = [=](const std::vector<ir::Elem>& in) { return ir::bitcast(from, to, in[0]); };
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

void check(const Target& target, const std::vector<Case>& cases) {
  CudaDriver* cuda = gpu();
  if (!cuda) GTEST_SKIP() << "no GPU";
  if (cuda->sm() < 90 && target.archSpecific) GTEST_SKIP() << "sm_90a PTX needs a Hopper GPU";
  std::vector<CaseReport> reports = runCases(*cuda, target, cases, 70000);
  for (size_t i = 0; i < reports.size(); ++i) {
    const CaseReport& r = reports[i];
    if (!cases[i].tol.exact)
      std::printf("  %-26s %s checked %7zu  max %6.2f ulp  max abs %.3g%s\n", r.name.c_str(), target.name().c_str(),
                  r.checked, r.maxUlps, r.maxAbs, r.failures ? "  FAIL" : "");
    EXPECT_EQ(r.failures, 0u) << r.name << " on " << target.name() << ": " << r.failures << " of " << r.checked
                              << " wrong, e.g.\n"
                              << r.firstFailures;
    EXPECT_GT(r.checked, 0u) << r.name;
  }
}

TEST(DeviceElementwise, Sm80) { check(kSm80, elementwiseCases(kSm80)); }
TEST(DeviceElementwise, Sm90a) { check(kSm90a, elementwiseCases(kSm90a)); }
TEST(DeviceCasts, Sm80) { check(kSm80, castCases(kSm80)); }
TEST(DeviceCasts, Sm90a) { check(kSm90a, castCases(kSm90a)); }

}  // namespace
}  // namespace kiln::ptx::test
