// Whole-tile ops on the interpreter: shape manipulation, reductions (index order, rounding after
// each step, NaN and tie rules of max/argmax) and dot (operand conversion, tf32, accumulation order).
#include <cmath>
#include <cstring>
#include <random>

#include "ir/scalar_eval.h"
#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

// Row-major offsets r * C + c of an [R, C] tile, through expand_dims and broadcast.
Value* offsets2d(KernelBuilder& k, int64_t R, int64_t C) {
  Value* rows = k.op(Opcode::ExpandDims, {k.arange(0, R)}, ten({R, 1}, Scalar::I32), {{"axis", int64_t(1)}});
  Value* cols = k.op(Opcode::ExpandDims, {k.arange(0, C)}, ten({1, C}, Scalar::I32), {{"axis", int64_t(0)}});
  Value* scaled = k.bin(Opcode::Mul, rows, k.splat(k.ci(C), {R, 1}));
  return k.bin(Opcode::Add, k.op(Opcode::Broadcast, {scaled}, ten({R, C}, Scalar::I32)),
               k.op(Opcode::Broadcast, {cols}, ten({R, C}, Scalar::I32)));
}

Value* offsets1d(KernelBuilder& k, int64_t n) { return k.arange(0, n); }

Value* loadTile(KernelBuilder& k, Value* p, Value* offs) {
  return k.load(k.ptrAdd(k.splat(p, offs->type.shape), offs));
}
void storeTile(KernelBuilder& k, Value* p, Value* offs, Value* v) {
  k.store(k.ptrAdd(k.splat(p, offs->type.shape), offs), v);
}

// Builds out = reduce(x[R, C], kind, axis) with the given element types and runs it.
template <class In, class Out>
std::vector<Out> reduce2d(Scalar in, Scalar out, std::vector<In> x, int64_t R, int64_t C, const char* kind,
                          int64_t axis) {
  KernelBuilder k("reduce");
  Value* xp = k.param(Type::ptr(in), "x");
  Value* op = k.param(Type::ptr(out), "out");
  Value* tile = loadTile(k, xp, offsets2d(k, R, C));
  int64_t n = axis == 0 ? C : R;
  Value* r = k.op(Opcode::Reduce, {tile}, ten({n}, out), {{"kind", std::string(kind)}, {"axis", axis}});
  storeTile(k, op, offsets1d(k, n), r);
  k.ret();
  std::vector<Out> o(static_cast<size_t>(n));
  run(k.fn, {}, {buf(x), buf(o)});
  return o;
}

uint16_t h(double v) { return uint16_t(ir::toBits(Scalar::F16, ir::floatElem(v))); }
double fromH(uint16_t b) { return ir::fromBits(Scalar::F16, b).f; }

using V32 = std::vector<int32_t>;

// An i32 reduction of x[R, C] into i32.
V32 reduceI32(const V32& x, int64_t R, int64_t C, const char* kind, int64_t axis) {
  return reduce2d<int32_t, int32_t>(Scalar::I32, Scalar::I32, x, R, C, kind, axis);
}

TEST(Reduce, IntegerSumsAlongEitherAxis) {
  V32 x = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(reduceI32(x, 2, 3, "sum", 0), (V32{5, 7, 9}));
  EXPECT_EQ(reduceI32(x, 2, 3, "sum", 1), (V32{6, 15}));
  EXPECT_EQ(reduceI32(x, 2, 3, "max", 1), (V32{3, 6}));
  EXPECT_EQ(reduceI32(x, 2, 3, "min", 0), (V32{1, 2, 3}));
  // i8 elements summed in the result type: i32 holds 300, i8 wraps it.
  std::vector<int8_t> b = {100, 100, 100, 0};
  EXPECT_EQ((reduce2d<int8_t, int32_t>(Scalar::I8, Scalar::I32, b, 1, 4, "sum", 1)), (V32{300}));
  EXPECT_EQ((reduce2d<int8_t, int8_t>(Scalar::I8, Scalar::I8, b, 1, 4, "sum", 1)), (std::vector<int8_t>{44}));
}

TEST(Reduce, FloatSumRoundsAfterEachAddInIndexOrder) {
  std::vector<uint16_t> big = {h(2048), h(1), h(1), h(1)}, small = {h(1), h(1), h(1), h(2048)};
  auto s1 = reduce2d<uint16_t, uint16_t>(Scalar::F16, Scalar::F16, big, 1, 4, "sum", 1);
  auto s2 = reduce2d<uint16_t, uint16_t>(Scalar::F16, Scalar::F16, small, 1, 4, "sum", 1);
  EXPECT_EQ(fromH(s1[0]), 2048);  // 2048 + 1 rounds back to 2048, three times
  EXPECT_EQ(fromH(s2[0]), 2052);  // 1 + 1 + 1 = 3, then 2051 rounds to even 2052
  // Summed into f32 instead, every partial sum is exact.
  auto s3 = reduce2d<uint16_t, float>(Scalar::F16, Scalar::F32, big, 1, 4, "sum", 1);
  EXPECT_EQ(s3[0], 2051.0f);
}

TEST(Reduce, ArgmaxTakesTheFirstOfTies) {
  V32 x = {1, 5, 5, 2, 3, 1, 1, 4};
  EXPECT_EQ(reduceI32(x, 2, 4, "argmax", 1), (V32{1, 3}));
  EXPECT_EQ(reduceI32(x, 2, 4, "argmin", 1), (V32{0, 1}));
  EXPECT_EQ(reduceI32(x, 2, 4, "argmax", 0), (V32{1, 0, 0, 1}));
  std::vector<uint32_t> u = {0xFFFFFFFF, 1, 0xFFFFFFFF, 0};  // unsigned order
  EXPECT_EQ((reduce2d<uint32_t, int32_t>(Scalar::U32, Scalar::I32, u, 1, 4, "argmax", 1)), (V32{0}));
  EXPECT_EQ((reduce2d<uint32_t, int32_t>(Scalar::U32, Scalar::I32, u, 1, 4, "argmin", 1)), (V32{3}));
}

TEST(Reduce, FloatMaxIgnoresNaNLikeTheMaxOp) {
  const float nan = std::nanf("");
  std::vector<float> x = {nan, 1, 3, 2, nan, nan, nan, nan, -0.0f, 0.0f, -0.0f, 0.0f};
  auto mx = reduce2d<float, float>(Scalar::F32, Scalar::F32, x, 3, 4, "max", 1);
  EXPECT_EQ(mx[0], 3.0f);
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 0.0f);
  EXPECT_FALSE(std::signbit(mx[2]));
  auto mn = reduce2d<float, float>(Scalar::F32, Scalar::F32, x, 3, 4, "min", 1);
  EXPECT_EQ(mn[0], 1.0f);
  EXPECT_TRUE(std::signbit(mn[2]));
  auto am = reduce2d<float, int32_t>(Scalar::F32, Scalar::I32, x, 3, 4, "argmax", 1);
  EXPECT_EQ(am, (std::vector<int32_t>{2, 0, 1}));  // +0.0 orders above -0.0, as in max
  auto an = reduce2d<float, int32_t>(Scalar::F32, Scalar::I32, x, 3, 4, "argmin", 1);
  EXPECT_EQ(an, (std::vector<int32_t>{1, 0, 0}));
}

// out[M, N] = dot(a[M, K], b[K, N], acc[M, N]) with the given types and precision attribute.
template <class A, class C>
std::vector<C> dot2d(Scalar at, Scalar ct, std::vector<A> a, std::vector<A> b, std::vector<C> acc, int64_t M,
                     int64_t K, int64_t N, const char* precision = nullptr) {
  KernelBuilder k("dot");
  Value* ap = k.param(Type::ptr(at), "a");
  Value* bp = k.param(Type::ptr(at), "b");
  Value* cp = k.param(Type::ptr(ct), "c");
  Value* av = loadTile(k, ap, offsets2d(k, M, K));
  Value* bv = loadTile(k, bp, offsets2d(k, K, N));
  Value* offs = offsets2d(k, M, N);
  Value* cv = loadTile(k, cp, offs);
  std::vector<ir::Attr> attrs;
  if (precision) attrs.push_back({"input_precision", std::string(precision)});
  storeTile(k, cp, offs, k.op(Opcode::Dot, {av, bv, cv}, ten({M, N}, ct), attrs));
  k.ret();
  run(k.fn, {}, {buf(a), buf(b), buf(acc)});
  return acc;
}

TEST(Dot, F16InputsAccumulateExactlyInF32) {
  double e = 1 + std::ldexp(1, -10);  // e*e = 1 + 2^-9 + 2^-20: exact in f32, not in f16
  std::vector<uint16_t> a = {h(e), h(2), h(-1), h(0.5)}, b = {h(e), h(0), h(0), h(4)};
  auto c = dot2d<uint16_t, float>(Scalar::F16, Scalar::F32, a, b, {1, 2, 3, 4}, 2, 2, 2);
  EXPECT_EQ(c[0], float(1 + e * e));
  EXPECT_EQ(c[1], 2 + 8.0f);
  EXPECT_EQ(c[2], 3 - float(e));
  EXPECT_EQ(c[3], 4 + 2.0f);
}

TEST(Dot, F32DefaultsToTF32) {
  float x = 1 + std::ldexp(1.0f, -12);
  std::vector<float> a = {x, 0, 0, 0}, b = {x, 0, 0, 0}, zero(4, 0.0f);
  // tf32 truncates x to 1 before multiplying; ieee multiplies exactly, then rounds to f32 once.
  EXPECT_EQ((dot2d<float, float>(Scalar::F32, Scalar::F32, a, b, zero, 2, 2, 2))[0], 1.0f);
  EXPECT_EQ((dot2d<float, float>(Scalar::F32, Scalar::F32, a, b, zero, 2, 2, 2, "tf32"))[0], 1.0f);
  float ieee = 1 + std::ldexp(1.0f, -11);  // (1 + 2^-11 + 2^-24) rounds to even
  EXPECT_EQ((dot2d<float, float>(Scalar::F32, Scalar::F32, a, b, zero, 2, 2, 2, "ieee"))[0], ieee);
  // The split precisions are rewritten into tf32 and bf16 dots before anything runs (split_dots).
  for (const char* split : {"tf32x3", "bf16x3", "bf16x6"})
    EXPECT_THROW((dot2d<float, float>(Scalar::F32, Scalar::F32, a, b, zero, 2, 2, 2, split)), InternalError) << split;
  // tf32 truncates toward zero, as the tensor cores read an f32: 1 + 2^-10 + 3 * 2^-12 (three quarters
  // of a step above 1 + 2^-10) stays 1 + 2^-10, and its negative -(1 + 2^-10).
  float t = 1 + std::ldexp(1.0f, -10) + 3 * std::ldexp(1.0f, -12);
  std::vector<float> a2 = {t, 0, 0, 0}, one = {1, 0, 0, 0}, a3 = {-t, 0, 0, 0};
  EXPECT_EQ((dot2d<float, float>(Scalar::F32, Scalar::F32, a2, one, zero, 2, 2, 2))[0], 1 + std::ldexp(1.0f, -10));
  EXPECT_EQ((dot2d<float, float>(Scalar::F32, Scalar::F32, a3, one, zero, 2, 2, 2))[0], -(1 + std::ldexp(1.0f, -10)));
}

TEST(Dot, AccumulatesInIndexOrderRoundingEachStep) {
  // acc = 0; acc += 2^24 * 1; acc += 1 (ties back to 2^24); acc += 1 (again): 2^24, not 2^24 + 2.
  float big = std::ldexp(1.0f, 24);
  std::vector<float> a = {big, 1, 1, 0, 0, 0, 0, 0, 0}, b = {1, 0, 0, 1, 0, 0, 1, 0, 0}, zero(9, 0.0f);
  auto c = dot2d<float, float>(Scalar::F32, Scalar::F32, a, b, zero, 3, 3, 3, "ieee");
  EXPECT_EQ(c[0], big);
  std::vector<float> a2 = {1, 1, big, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ((dot2d<float, float>(Scalar::F32, Scalar::F32, a2, b, zero, 3, 3, 3, "ieee"))[0], big + 2);
}

TEST(Dot, MatchesSequentialFmaOnRandomF32) {
  const int M = 4, K = 8, N = 4;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(M * K), b(K * N), c(M * N);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (float& v : c) v = dist(rng);
  auto r = dot2d<float, float>(Scalar::F32, Scalar::F32, a, b, c, M, K, N, "ieee");
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float s = c[m * N + n];
      for (int k = 0; k < K; ++k) s = std::fma(a[m * K + k], b[k * N + n], s);
      EXPECT_EQ(r[m * N + n], s) << m << "," << n;
    }
}

TEST(Dot, Int8AccumulatesInI32) {
  std::vector<int8_t> a = {127, 127, -128, -128}, b = {127, -128, 127, -128};
  auto c = dot2d<int8_t, int32_t>(Scalar::I8, Scalar::I32, a, b, {1, 0, 0, 0}, 2, 2, 2);
  EXPECT_EQ(c, (std::vector<int32_t>{1 + 127 * 127 + 127 * 127, 127 * -128 + 127 * -128, -128 * 127 * 2,
                                     128 * 128 * 2}));
}

TEST(Dot, BatchedRank3) {
  KernelBuilder k("bdot");
  Value* ap = k.param(Type::ptr(Scalar::F32), "a");
  Value* cp = k.param(Type::ptr(Scalar::F32), "c");
  Value* flat = k.arange(0, 8);
  Value* av = k.op(Opcode::Reshape, {loadTile(k, ap, flat)}, ten({2, 2, 2}, Scalar::F32));
  Value* zero = k.op(Opcode::Constant, {}, ten({2, 2, 2}, Scalar::F32), {{"value", 0.0}});
  Value* d = k.op(Opcode::Dot, {av, av, zero}, ten({2, 2, 2}, Scalar::F32),
                  {{"input_precision", std::string("ieee")}});
  storeTile(k, cp, flat, k.op(Opcode::Reshape, {d}, ten({8}, Scalar::F32)));
  k.ret();
  std::vector<float> a = {1, 2, 3, 4, 0, 1, 1, 0}, c(8);
  run(k.fn, {}, {buf(a), buf(c)});
  EXPECT_EQ(c, (std::vector<float>{7, 10, 15, 22, 1, 0, 0, 1}));
}

TEST(Shape, PermuteReshapeBroadcastSplatArange) {
  KernelBuilder k("shapes");
  Value* xp = k.param(Type::ptr(Scalar::I32), "x");
  Value* op = k.param(Type::ptr(Scalar::I32), "out");
  Value* x = loadTile(k, xp, offsets2d(k, 2, 3));  // [[0,1,2],[3,4,5]]
  Value* t = k.op(Opcode::Permute, {x}, ten({3, 2}, Scalar::I32), {{"order", std::vector<int64_t>{1, 0}}});
  storeTile(k, op, offsets2d(k, 3, 2), t);                                       // out[0:6]
  Value* rs = k.op(Opcode::Reshape, {x}, ten({3, 2}, Scalar::I32));
  Value* o6 = k.bin(Opcode::Add, offsets2d(k, 3, 2), k.splat(k.ci(6), {3, 2}));
  storeTile(k, op, o6, rs);                                                      // out[6:12]
  Value* col = k.op(Opcode::Reshape, {k.arange(5, 7)}, ten({2, 1}, Scalar::I32));  // [[5],[6]]
  Value* bc = k.op(Opcode::Broadcast, {col}, ten({2, 3}, Scalar::I32));
  Value* o12 = k.bin(Opcode::Add, offsets2d(k, 2, 3), k.splat(k.ci(12), {2, 3}));
  storeTile(k, op, o12, bc);                                                     // out[12:18]
  Value* cube = k.op(Opcode::Reshape, {k.arange(0, 8)}, ten({2, 2, 2}, Scalar::I32));
  Value* p3 = k.op(Opcode::Permute, {cube}, ten({2, 2, 2}, Scalar::I32),
                   {{"order", std::vector<int64_t>{2, 0, 1}}});
  Value* o18 = k.bin(Opcode::Add, k.arange(0, 8), k.splat(k.ci(18), {8}));
  storeTile(k, op, o18, k.op(Opcode::Reshape, {p3}, ten({8}, Scalar::I32)));   // out[18:26]
  k.ret();
  std::vector<int32_t> xs = {0, 1, 2, 3, 4, 5}, o(26, -1);
  run(k.fn, {}, {buf(xs), buf(o)});
  std::vector<int32_t> want = {0, 3, 1, 4, 2, 5, 0, 1, 2, 3, 4, 5, 5, 5, 5, 6, 6, 6,
                               // result[i][j][l] = cube[j][l][i]
                               0, 2, 4, 6, 1, 3, 5, 7};
  EXPECT_EQ(o, want);
}

TEST(Shape, ConstantsCastsAndBitcastsOnTiles) {
  KernelBuilder k("convert");
  Value* xp = k.param(Type::ptr(Scalar::F32), "x");
  Value* ip = k.param(Type::ptr(Scalar::I32), "i");
  Value* hp = k.param(Type::ptr(Scalar::F16), "h");
  Value* offs = k.arange(0, 4);
  Value* x = loadTile(k, xp, offs);
  storeTile(k, ip, offs, k.op(Opcode::Cast, {x}, ten({4}, Scalar::I32)));
  Value* tenth = k.op(Opcode::Constant, {}, ten({4}, Scalar::F16), {{"value", 0.1}});
  Value* bits = k.op(Opcode::Bitcast, {tenth}, ten({4}, Scalar::I16));
  Value* back = k.op(Opcode::Bitcast, {k.bin(Opcode::Add, bits, k.splat(k.ci(1, sc(Scalar::I16)), {4}))},
                     ten({4}, Scalar::F16));
  storeTile(k, hp, offs, back);
  k.ret();
  std::vector<float> xs = {3e9f, -2.5f, std::nanf(""), 7.9f};
  std::vector<int32_t> is(4);
  std::vector<uint16_t> hs(4);
  run(k.fn, {}, {buf(xs), buf(is), buf(hs)});
  EXPECT_EQ(is, (std::vector<int32_t>{INT32_MAX, -2, 0, 7}));
  for (uint16_t v : hs) EXPECT_EQ(v, 0x2E66 + 1);  // f16(0.1) = 0x2E66, then the next value up
}

}  // namespace
}  // namespace kiln::interp::test
