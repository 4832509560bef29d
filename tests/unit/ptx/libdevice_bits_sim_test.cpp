// libdevice's bit ops (clz, popc, brev, mulhi, byte_perm), the `rounded` op in every fn and direction,
// and the casts toward -inf and +inf, as the GPU code computes them in the CTA simulator: bit for bit
// what the interpreter's scalar semantics give, on edge and random inputs, for sm_80 and sm_90a.
#include <cfloat>
#include <random>

#include "../lower/ops_sim.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Opcode;
using ir::Scalar;

// Edge bit patterns of type t, then random ones (floats: also random values of moderate size).
std::vector<uint64_t> inputs(Scalar t, std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> v;
  if (ir::isFloat(t)) {
    for (double x : std::initializer_list<double>{0.0, -0.0, 1.0, -1.0, 0.1, 3.0, 1e-40, -1e-310, DBL_MIN, double(FLT_MIN), double(FLT_MAX), DBL_MAX, 1e30, -7.5,
                     HUGE_VAL, -HUGE_VAL, 0x1.000001p0, 0x1.fffffep-1, 0x1p-149, 0x1p-1074})
      v.push_back(ir::toBits(t, ir::floatElem(ir::roundTo(t, x))));
  } else {
    for (uint64_t x : {0ull, 1ull, ~0ull, 0x80000000ull, 0x7FFFFFFFull, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull,
                       0x12345678ull, 0xFFFFFF00ull, 0x00FFFFFFull, 0x76543210ull})
      v.push_back(x & (ir::bitWidth(t) == 64 ? ~0ull : 0xFFFFFFFFull));
  }
  std::uniform_real_distribution<double> unit(-1, 1);
  while (v.size() < n) {
    uint64_t b = rng();
    if (ir::isFloat(t) && v.size() % 2) b = ir::toBits(t, ir::floatElem(ir::roundTo(t, std::ldexp(unit(rng), int(rng() % 40) - 20))));
    v.push_back(ir::bitWidth(t) == 64 ? b : b & 0xFFFFFFFFull);
  }
  return v;
}

// Runs the kernel of `body` on the operands (bit patterns, one vector each, all of one length).
std::vector<uint64_t> simulate(const Target& target, const std::vector<Scalar>& ins, Scalar out, const ElementBody& body,
                               const std::vector<std::vector<uint64_t>>& in) {
  Module m(target);
  elementKernel(m, "f", ins, out, body);
  const size_t n = in[0].size();
  lower::test::CtaSim sim(m.str(), int(n), 0);
  for (size_t k = 0; k < ins.size(); ++k) {
    const size_t w = size_t(ir::bitWidth(ins[k]) / 8);
    std::vector<uint8_t> bytes(n * w);
    for (size_t i = 0; i < n; ++i) std::memcpy(bytes.data() + i * w, &in[k][i], w);
    sim.setParam("f_in" + std::to_string(k), sim.addBuffer(bytes));
  }
  const size_t ow = size_t(ir::bitWidth(out) / 8);
  uint64_t o = sim.addBuffer(std::vector<uint8_t>(n * ow, 0xCD));
  sim.setParam("f_out", o);
  sim.setParam("f_n", n);
  EXPECT_EQ(sim.run(), "");
  std::vector<uint64_t> r(n, 0);
  for (size_t i = 0; i < n; ++i) std::memcpy(&r[i], sim.buffer(o).data() + i * ow, ow);
  return r;
}

// The same bits, NaN matching any NaN.
bool sameBits(Scalar t, uint64_t got, uint64_t want) {
  if (ir::isFloat(t) && std::isnan(ir::fromBits(t, want).f)) return std::isnan(ir::fromBits(t, got).f);
  return got == want;
}

TEST(SimLibdeviceBits, EveryOpTypeAndDirectionMatchesTheInterpreter) {
  std::mt19937_64 rng(5);
  for (Opcode opc : {Opcode::Clz, Opcode::Popc, Opcode::Brev, Opcode::MulHi, Opcode::BytePerm, Opcode::Rounded}) {
    for (Scalar t : typesFor(opc)) {
      for (const Variant& v : variantsFor(opc, t)) {
        std::vector<Scalar> ins = operandTypes(v.op);
        std::vector<std::vector<uint64_t>> in;
        for (size_t k = 0; k < ins.size(); ++k) in.push_back(inputs(t, rng, 512));
        for (size_t k = 1; k < ins.size(); ++k) std::shuffle(in[k].begin(), in[k].end(), rng);
        ir::ElementwiseFn fn{opc, t, 0, false, v.op.roundedFn, v.op.mode};
        for (const Target& target : {kSm80, kSm90a}) {
          std::vector<uint64_t> got = simulate(target, ins, t, [&](Entry& e, Reg d, const std::vector<Reg>& s) {
            selectElementwise(e, v.op, d, s);
          }, in);
          int bad = 0;
          for (size_t i = 0; i < got.size() && bad < 3; ++i) {
            std::vector<ir::Elem> x;
            for (size_t k = 0; k < ins.size(); ++k) x.push_back(ir::fromBits(t, in[k][i]));
            ir::Elem want;
            bool divByZero = false;
            ir::evalElementwise(fn, x.data(), want, divByZero);
            if (!sameBits(t, got[i], ir::toBits(t, want)))
              ++bad, ADD_FAILURE() << ir::info(opc).spelling << v.suffix << " " << tname(t) << " on " << target.name()
                                   << " input " << i << ": got 0x" << std::hex << got[i] << ", want 0x" << ir::toBits(t, want);
          }
        }
      }
    }
  }
}

TEST(SimLibdeviceBits, CastsTowardMinusAndPlusInfinityMatchTheInterpreter) {
  std::mt19937_64 rng(9);
  for (Scalar from : {Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64, Scalar::F64})
    for (Scalar to : {Scalar::F32, Scalar::F64}) {
      if (from == to) continue;
      for (ir::RoundMode mode : {ir::RoundMode::Down, ir::RoundMode::Up}) {
        std::vector<std::vector<uint64_t>> in = {inputs(from, rng, 512)};
        std::vector<uint64_t> got = simulate(kSm90a, {from}, to, [&](Entry& e, Reg d, const std::vector<Reg>& s) {
          selectCast(e, from, to, mode, d, s[0], {});
        }, in);
        for (size_t i = 0, bad = 0; i < got.size() && bad < 3; ++i) {
          uint64_t want = ir::toBits(to, ir::convert(from, to, ir::fromBits(from, in[0][i]), mode));
          if (!sameBits(to, got[i], want))
            ++bad, ADD_FAILURE() << "cast " << tname(from) << " -> " << tname(to) << " " << ir::roundModeName(mode)
                                 << ": input 0x" << std::hex << in[0][i] << " got 0x" << got[i] << ", want 0x" << want;
        }
      }
    }
}

}  // namespace
}  // namespace kiln::ptx::test
