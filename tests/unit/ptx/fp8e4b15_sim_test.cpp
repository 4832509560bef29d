// fp8e4b15's software conversions (isel_cast.cpp) in the CTA simulator, for sm_80 and sm_90a PTX,
// bit for bit against the interpreter's (ir::convert, itself checked against the format's definition
// in fp8_formats_test): every fp8 pattern to f16 and f32, every f16 pattern and ~70000 f32 values
// (ties, near-ties, clamps, NaN, inf, zeros, subnormals) to fp8e4b15.
#include <cstring>
#include <random>

#include "../lower/ops_sim.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Scalar;

size_t bytesOf(Scalar t) { return size_t(ir::bitWidth(t) / 8); }

// Converts every pattern in `in` (bits of `from`) on the simulator; returns the result bits.
std::vector<uint64_t> simulateCast(Scalar from, Scalar to, const Target& target, const std::vector<uint64_t>& in) {
  Module m(target);
  elementKernel(m, "f", {from}, to,
                [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectCast(e, from, to, false, d, s[0], {}); });
  const std::string ptx = m.str();
  std::vector<uint64_t> out;
  const size_t kBlock = 1024, wi = bytesOf(from), wo = bytesOf(to);
  for (size_t first = 0; first < in.size(); first += kBlock) {
    size_t n = std::min(kBlock, in.size() - first);
    lower::test::CtaSim sim(ptx, int(n), 0);
    std::vector<uint8_t> bytes(n * wi);
    for (size_t i = 0; i < n; ++i) std::memcpy(bytes.data() + i * wi, &in[first + i], wi);  // little-endian
    sim.setParam("f_in0", sim.addBuffer(bytes));
    uint64_t o = sim.addBuffer(std::vector<uint8_t>(n * wo, 0xCD));
    sim.setParam("f_out", o);
    sim.setParam("f_n", n);
    std::string err = sim.run();
    EXPECT_EQ(err, "");
    if (!err.empty()) return {};
    for (size_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, sim.buffer(o).data() + i * wo, wo);
      out.push_back(v);
    }
  }
  return out;
}

void expectMatchesInterpreter(Scalar from, Scalar to, const std::vector<uint64_t>& in) {
  for (const Target& target : {kSm80, kSm90a}) {
    std::vector<uint64_t> got = simulateCast(from, to, target, in);
    ASSERT_EQ(got.size(), in.size());
    int wrong = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      uint64_t want = ir::toBits(to, ir::convert(from, to, ir::fromBits(from, in[i])));
      if (got[i] != want && wrong++ < 5)
        ADD_FAILURE() << ir::name(from) << " 0x" << std::hex << in[i] << " -> " << ir::name(to) << " on "
                      << target.name() << ": 0x" << got[i] << ", want 0x" << want;
    }
    EXPECT_EQ(wrong, 0) << ir::name(from) << " -> " << ir::name(to) << " on " << target.name();
  }
}

TEST(SimFp8e4b15, EveryPatternWidens) {
  std::vector<uint64_t> all;
  for (uint64_t b = 0; b < 256; ++b) all.push_back(b);
  expectMatchesInterpreter(Scalar::F8E4B15, Scalar::F16, all);
  expectMatchesInterpreter(Scalar::F8E4B15, Scalar::F32, all);
}

TEST(SimFp8e4b15, EveryF16Narrows) {
  std::vector<uint64_t> all;
  for (uint64_t b = 0; b < 65536; ++b) all.push_back(b);
  expectMatchesInterpreter(Scalar::F16, Scalar::F8E4B15, all);
}

TEST(SimFp8e4b15, F32Narrows) {
  std::vector<uint64_t> in;
  // Every fp8 value, the ties between neighbours and the f32 numbers next to them, both signs.
  for (uint64_t b = 0; b < 256; ++b) {
    float v = float(ir::fromBits(Scalar::F8E4B15, b).f), next = float(ir::fromBits(Scalar::F8E4B15, (b & 0x7F) == 0x7F ? b : b + 1).f);
    float mid = (v + next) / 2;
    for (float x : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 10.0f)}) {
      uint32_t u;
      std::memcpy(&u, &x, 4);
      in.push_back(u);
    }
  }
  for (uint32_t u : {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x00000001u, 0x80000001u,
                     0x3FE00000u, 0x3FF00000u, 0x3FE80000u, 0x47800000u, 0x7F7FFFFFu, 0x33800000u, 0xB3800000u})
    in.push_back(u);
  std::mt19937 rng(4);
  for (int i = 0; i < 60000; ++i) {
    float f = std::ldexp(float(int(rng() % 2000001) - 1000000) / 1e6f, int(rng() % 30) - 22);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    in.push_back(i % 3 ? u : rng());
  }
  expectMatchesInterpreter(Scalar::F32, Scalar::F8E4B15, in);
}

}  // namespace
}  // namespace kiln::ptx::test
