// tl.dot beyond the matmul example: M, N or K below 16 (Triton's interpreter takes any size; its
// test_dot3d small blocks and test_dot small shapes), batched 3-D dots, and out_dtype=tl.float16 with
// f16 operands (Triton's interpreter sums the exact products in f32 and rounds once to f16, then adds
// the accumulator in f16). Checked against double-precision sums; every kernel also assembles with
// ptxas for sm_80 and sm_90a.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

constexpr const char* kDotSource = R"(
import triton
import triton.language as tl


@triton.jit
def dot_as_asked(a, b, cp, PRECISION: tl.constexpr, F16_OUT: tl.constexpr, ACC: tl.constexpr):
    # f16 out_dtype, or the inputs' own precision; with or without the accumulator stored at cp
    if F16_OUT:
        if ACC:
            return tl.dot(a, b, tl.load(cp), out_dtype=tl.float16)
        return tl.dot(a, b, out_dtype=tl.float16)
    if ACC:
        return tl.dot(a, b, tl.load(cp), input_precision=PRECISION)
    return tl.dot(a, b, input_precision=PRECISION)


@triton.jit
def dot3(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
         PRECISION: tl.constexpr, F16_OUT: tl.constexpr, ACC: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb * (M * K) + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    cp = c_ptr + rb * (M * N) + rm[None, :, None] * N + rn[None, None, :]
    tl.store(cp, dot_as_asked(a, b, cp, PRECISION, F16_OUT, ACC))


@triton.jit
def dot2(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
         PRECISION: tl.constexpr, F16_OUT: tl.constexpr, ACC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    cp = c_ptr + rm[:, None] * N + rn[None, :]
    tl.store(cp, dot_as_asked(a, b, cp, PRECISION, F16_OUT, ACC))
)";

enum class In { F16, F32, I8, F64 };

struct Case {
  int64_t b, m, n, k;  // b = 0: a 2-D dot
  In in;
  bool f16Out;
  const char* precision;  // for f32 operands
  bool acc;
  int numWarps;
};

std::string describe(const Case& c) {
  const char* in = c.in == In::F16 ? "f16" : c.in == In::F32 ? "f32" : c.in == In::I8 ? "i8" : "f64";
  return std::string(in) + (c.f16Out ? "->f16 " : " ") + (c.b ? std::to_string(c.b) + "x" : "") + std::to_string(c.m) +
         "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " " + c.precision + (c.acc ? " +acc" : "") +
         " warps " + std::to_string(c.numWarps);
}

// The elements of one operand: values, and the buffer the kernel reads.
struct Operand {
  std::vector<double> v;
  std::vector<uint8_t> bytes;
};

Operand draw(Rng& rng, In in, size_t n) {
  Operand o;
  if (in == In::F16) {
    auto h = rng.f16(n);
    o.v = halvesToDouble(h);
    o.bytes.resize(n * 2);
    std::memcpy(o.bytes.data(), h.data(), n * 2);
  } else if (in == In::F32) {
    auto f = rng.f32(n);
    o.v = toDouble(f);
    o.bytes.resize(n * 4);
    std::memcpy(o.bytes.data(), f.data(), n * 4);
  } else if (in == In::I8) {
    auto q = rng.ints<int8_t>(n, -128, 127);
    o.v = toDouble(q);
    o.bytes.resize(n);
    std::memcpy(o.bytes.data(), q.data(), n);
  } else {
    std::vector<double> d(n);
    for (double& x : d) x = rng.uniform(-1, 1);
    o.v = d;
    o.bytes.resize(n * 8);
    std::memcpy(o.bytes.data(), d.data(), n * 8);
  }
  return o;
}

void checkDot(const Case& c) {
  SCOPED_TRACE(describe(c));
  const bool f16In = c.in == In::F16;
  const std::string ab = f16In ? "fp16" : c.in == In::F32 ? "fp32" : c.in == In::I8 ? "i8" : "fp64";
  const std::string out = c.f16Out ? "fp16" : c.in == In::I8 ? "i32" : c.in == In::F64 ? "fp64" : "fp32";
  const std::string dims = (c.b ? std::to_string(c.b) + ", " : "") + std::to_string(c.m) + ", " +
                           std::to_string(c.n) + ", " + std::to_string(c.k);
  const std::string sig = "*" + ab + ", *" + ab + ", *" + out + ", " + dims + ", \"" + c.precision + "\", " +
                          (c.f16Out ? "1" : "0") + ", " + (c.acc ? "1" : "0");
  kiln::CompileOptions opt;
  opt.num_warps = c.numWarps;
  auto k = kiln::compile(kiln::Source::fromString(kDotSource, "dots.py"), c.b ? "dot3" : "dot2", sig, opt);
  ASSERT_TRUE(k) << k.error().text;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    auto cubin = kiln::assembleCubin(k.value(), arch);
    EXPECT_TRUE(cubin) << arch << ": " << cubin.error().text;
  }
  KT_RNG(rng);
  const int64_t nb = std::max<int64_t>(1, c.b);
  Operand a = draw(rng, c.in, size_t(nb * c.m * c.k)), b = draw(rng, c.in, size_t(nb * c.k * c.n));
  const size_t nc = size_t(nb * c.m * c.n);
  // The accumulator (and output) buffer in the result type.
  std::vector<double> acc(nc, 0.0);
  std::vector<uint16_t> c16(nc);
  std::vector<float> c32(nc);
  std::vector<int32_t> ci(nc);
  std::vector<double> c64(nc);
  if (c.acc) {
    if (c.f16Out) c16 = rng.f16(nc), acc = halvesToDouble(c16);
    else if (c.in == In::I8) ci = rng.ints<int32_t>(nc, -100000, 100000), acc = toDouble(ci);
    else if (c.in == In::F64) for (size_t i = 0; i < nc; ++i) acc[i] = c64[i] = rng.uniform(-1, 1);
    else c32 = rng.f32(nc), acc = toDouble(c32);
  } else {
    poison(c16), poison(c32), poison(ci), poison(c64);
  }
  Arg cArg = c.f16Out ? Arg::buffer(c16) : c.in == In::I8 ? Arg::buffer(ci) : c.in == In::F64 ? Arg::buffer(c64)
                                                                                              : Arg::buffer(c32);
  ASSERT_TRUE(run(k.value(), {1}, {Arg::buffer(a.bytes), Arg::buffer(b.bytes), cArg}));

  std::vector<double> got(nc), ref(nc), scale(nc);
  for (int64_t bi = 0; bi < nb; ++bi)
    for (int64_t m = 0; m < c.m; ++m)
      for (int64_t n = 0; n < c.n; ++n) {
        double s = 0, mag = 0;
        for (int64_t kk = 0; kk < c.k; ++kk) {
          double p = a.v[size_t((bi * c.m + m) * c.k + kk)] * b.v[size_t((bi * c.k + kk) * c.n + n)];
          s += p, mag += std::fabs(p);
        }
        const size_t i = size_t((bi * c.m + m) * c.n + n);
        // f16 out: the sum rounded once to f16, then the f16 accumulator added with one more rounding.
        ref[i] = c.f16Out ? roundToHalf(roundToHalf(s) + acc[i]) : s + acc[i];
        // f16 out: the sum's f32 rounding errors (at most k * 2^-24 * sum |products|, large beside a
        // result that cancels to near zero) come on top of the f16 roundings; rtol * scale covers both.
        scale[i] = c.f16Out ? std::fabs(roundToHalf(s)) + double(c.k) * 0x1p-14 * mag : mag + std::fabs(acc[i]);
        got[i] = c.f16Out ? halfToFloat(c16[i]) : c.in == In::I8 ? ci[i] : c.in == In::F64 ? c64[i] : c32[i];
      }
  if (c.in == In::I8) {
    std::vector<int64_t> g(got.begin(), got.end()), r(ref.begin(), ref.end());
    EXPECT_TRUE(allEqual(g, r));
  } else if (c.f16Out) {
    // Summing in f32 instead of exactly moves the rounded sum by at most one unit in its last place
    // (2^-10 of it), which the accumulator's addition may keep, plus that addition's own rounding;
    // rounding to f16 after every k drifts by several units.
    if (c.acc) EXPECT_TRUE(allClose(got, ref, Tol{0x1p-9, 0x1p-24}, scale));
    else EXPECT_TRUE(allClose(got, ref, Tol{0x1p-10, 0x1p-24}, scale));
  } else if (c.in == In::F64) {
    EXPECT_TRUE(allClose(got, ref, Tol{double(c.k + 2) * 0x1p-53, 0}, scale));
  } else if (c.in == In::F32 && std::string(c.precision) == "tf32") {
    EXPECT_TRUE(allClose(got, ref, Tol{2e-3, 0}, scale));  // inputs truncated to 10 mantissa bits
  } else if (c.in == In::F32 && std::string(c.precision) == "bf16x3") {
    EXPECT_TRUE(allClose(got, ref, Tol{0x1p-15, 0}, scale));  // about 16 bits of each operand
  } else if (c.in == In::F32 && std::string(c.precision) != "ieee") {
    // tf32x3, bf16x6: the parts' products leave out terms near 2^-21 of each product, and the
    // three or six dots' f32 sums round.
    EXPECT_TRUE(allClose(got, ref, Tol{double(3 * c.k + 2) * 0x1p-24 + 0x1p-20, 0}, scale));
  } else {
    // Exact (f16) or f32-rounded products, K + 1 f32 roundings of the sum at most.
    EXPECT_TRUE(allClose(got, ref, Tol{double(c.k + 2) * 0x1p-24, 0}, scale));
  }
}

// Triton's test_dot3d with out_dtype=float16: programs of B x 32x32 blocks with K = 32 and 64 (and
// 64x64 blocks of K = 64); 2-D dots too (mma.sync on the GPU), with and without an accumulator.
TEST(DotShapes, F16OutputRoundsOnce) {
  for (int64_t b : {0, 1, 2})
    for (int64_t k : {32, 64})
      for (bool acc : {false, true}) checkDot({b, 32, 32, k, In::F16, true, "ieee", acc, 4});
  checkDot({0, 64, 64, 64, In::F16, true, "ieee", false, 8});
  checkDot({0, 128, 64, 32, In::F16, true, "ieee", true, 4});
}

// Triton's test_dot3d small blocks: [B, 1, 32], [B, 32, 2], [B, 8, 8] outputs of K = 32, f16 -> f16
// and f32 -> f32, 1, 2 and 4 warps.
TEST(DotShapes, SmallBatchedBlocks) {
  const int64_t mn[][2] = {{1, 32}, {32, 2}, {8, 8}};
  for (int64_t b : {1, 2, 8})
    for (const auto& s : mn)
      for (int w : {1, 2, 4}) {
        checkDot({b, s[0], s[1], 32, In::F16, true, "ieee", false, w});
        checkDot({b, s[0], s[1], 32, In::F32, false, "ieee", false, w});
        checkDot({b, s[0], s[1], 32, In::F32, false, "tf32", false, w});
      }
}

// Triton's small test_dot shapes and more: M, N and K from 1 up, every operand type, with and
// without an accumulator.
TEST(DotShapes, SmallMatrices) {
  const int64_t shapes[][3] = {{2, 4, 32}, {1, 2, 32}, {8, 8, 4},  {8, 8, 8},   {16, 8, 4}, {8, 8, 16},
                               {1, 1, 1},  {4, 64, 16}, {16, 16, 2}, {32, 16, 8}, {64, 1, 16}};
  for (const auto& s : shapes)
    for (bool acc : {false, true}) {
      checkDot({0, s[0], s[1], s[2], In::F16, false, "ieee", acc, 4});
      checkDot({0, s[0], s[1], s[2], In::F16, true, "ieee", acc, 4});
      checkDot({0, s[0], s[1], s[2], In::F32, false, "ieee", acc, 4});
      checkDot({0, s[0], s[1], s[2], In::F32, false, "tf32", acc, 1});
      checkDot({0, s[0], s[1], s[2], In::I8, false, "ieee", acc, 4});
      checkDot({0, s[0], s[1], s[2], In::F64, false, "ieee", acc, 2});
    }
}

// f32 dots at the split precisions (tf32x3, bf16x3, bf16x6: tf32 or bf16 dots of the operands' parts,
// passes/split_dots.cpp) at small and awkward sizes, M = 1 and K below one mma step among them.
TEST(DotShapes, SplitPrecisions) {
  const int64_t shapes[][3] = {{1, 16, 16}, {16, 16, 8}, {32, 32, 64}, {8, 64, 4}, {64, 64, 32}, {1, 1, 1}};
  for (const auto& s : shapes)
    for (const char* p : {"tf32x3", "bf16x3", "bf16x6"})
      for (bool acc : {false, true}) checkDot({0, s[0], s[1], s[2], In::F32, false, p, acc, 4});
  checkDot({2, 16, 32, 32, In::F32, false, "tf32x3", true, 4});
}

// Dots at the tensor-core sizes next to the small ones keep their results: 16x8 (the smallest mma
// tile) and a K of one instruction.
TEST(DotShapes, SmallestMmaTiles) {
  checkDot({0, 16, 8, 16, In::F16, false, "ieee", true, 4});
  checkDot({0, 16, 8, 16, In::F16, true, "ieee", true, 4});
  checkDot({0, 16, 16, 8, In::F32, false, "tf32", false, 4});
  checkDot({0, 16, 8, 32, In::I8, false, "ieee", true, 1});
}

}  // namespace
}  // namespace kt
