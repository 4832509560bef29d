// atomic_rmw and atomic_cas on the interpreter: the sequential meaning (programs in order, elements of
// a tile in index order, so a repeated address sees the earlier elements' updates), the old values
// returned, masked-off elements (0, memory untouched), every kind on its types, bitwise compare-and-swap,
// and out-of-bounds atomics reported at the op.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/scalar_eval.h"
#include "ir/text.h"
#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

// Parses one function of IR text (it must verify).
std::unique_ptr<ir::Module> parse(const std::string& text) {
  auto m = ir::parseModule(makeSource("atomic.tir", text));
  if (auto d = ir::verify(*m->functions.at(0))) ADD_FAILURE() << d->render();
  return m;
}

// k(%p: ptr<T>, %idx: ptr<i32>, %val: ptr<T>, %out: ptr<T>): out[i] = atomic KIND(p + idx[i], val[i])
// over a tile of N, with `mask` (an i1 tile %m from idx[i] >= 0) when asked.
std::string rmwKernel(const std::string& t, int n, const std::string& kind, bool masked = false) {
  const std::string N = std::to_string(n), tile = "tensor<" + N + "x", tp = tile + "ptr<" + t + ">>";
  std::string s = "func @k(%p: ptr<" + t + ">, %idx: ptr<i32>, %val: ptr<" + t + ">, %out: ptr<" + t + ">) {\n";
  s += "  %i = arange {end = " + N + ", start = 0} : " + tile + "i32>\n";
  s += "  %ip = splat %idx : " + tile + "ptr<i32>>\n  %ia = ptr_add %ip, %i : " + tile + "ptr<i32>>\n";
  s += "  %o = load %ia : " + tile + "i32>\n";
  s += "  %vp = splat %val : " + tp + "\n  %va = ptr_add %vp, %i : " + tp + "\n  %v = load %va : " + tile + t + ">\n";
  s += "  %pp = splat %p : " + tp + "\n  %pa = ptr_add %pp, %o : " + tp + "\n";
  std::string mask;
  if (masked) {
    s += "  %z = constant {value = 0} : " + tile + "i32>\n  %m = cmp %o, %z {pred = \"ge\"} : " + tile + "i1>\n";
    mask = ", %m";
  }
  s += "  %old = atomic_rmw %pa, %v" + mask + " {kind = \"" + kind + "\", scope = \"gpu\", sem = \"acq_rel\"} : " + tile +
       t + ">\n";
  s += "  %op = splat %out : " + tp + "\n  %oa = ptr_add %op, %i : " + tp + "\n  store %oa, %old\n  return\n}\n";
  return s;
}

TEST(InterpAtomic, RepeatedAddressesUpdateInIndexOrder) {
  auto m = parse(rmwKernel("i32", 4, "add"));
  std::vector<int32_t> p = {100, 200}, idx = {0, 0, 1, 0}, val = {1, 2, 3, 4}, out(4, -1);
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
  EXPECT_EQ(p, (std::vector<int32_t>{107, 203}));
  EXPECT_EQ(out, (std::vector<int32_t>{100, 101, 200, 103}));  // each sees the elements before it
}

TEST(InterpAtomic, ProgramsRunInOrderAndEachSeesTheLast) {
  // Every program adds its val to p[0] and gets the running sum before it: a ticket counter.
  auto m = parse(rmwKernel("i64", 1, "add"));
  std::vector<int64_t> p = {5}, val = {1}, out(1);
  std::vector<int32_t> idx = {0};
  for (int64_t prog = 0; prog < 3; ++prog) {
    run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
    EXPECT_EQ(out[0], 5 + prog);
  }
  EXPECT_EQ(p[0], 8);
}

TEST(InterpAtomic, HalfAddsRoundAfterEveryElement) {
  // 2048 + 1 rounds back to 2048 in f16 (tie to even), so the order of the elements shows.
  auto m = parse(rmwKernel("f16", 4, "add"));
  auto half = [](double x) { return uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(x))); };
  auto value = [](uint16_t b) { return ir::fromBits(ir::Scalar::F16, b).f; };
  std::vector<uint16_t> p = {half(0), half(0)}, val = {half(2048), half(1), half(1), half(5)}, out(4);
  std::vector<int32_t> idx = {0, 0, 0, 1};
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
  EXPECT_EQ(value(p[0]), 2048.0);
  EXPECT_EQ(value(out[0]), 0.0);
  EXPECT_EQ(value(out[1]), 2048.0);
  EXPECT_EQ(value(out[2]), 2048.0);
  val = {half(1), half(1), half(2048), half(5)};
  p = {half(0), half(0)};
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
  EXPECT_EQ(value(p[0]), 2050.0);
}

TEST(InterpAtomic, MaskedOffElementsReturnZeroAndTouchNothing) {
  auto m = parse(rmwKernel("f32", 4, "xchg", true));
  std::vector<float> p = {1.5f, 2.5f}, val = {7, 8, 9, 10}, out(4, -1);
  std::vector<int32_t> idx = {1, -1000000, 0, -1};  // the masked-off offsets point far outside p
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
  EXPECT_EQ(p, (std::vector<float>{9, 7}));
  EXPECT_EQ(out, (std::vector<float>{2.5f, 0, 1.5f, 0}));
}

TEST(InterpAtomic, MaxAndMinOrderBySignedness) {
  auto m = parse(rmwKernel("u32", 2, "max"));
  std::vector<uint32_t> p = {1, 0xFFFFFFF0u}, val = {0xFFFFFFFFu, 3}, out(2);
  std::vector<int32_t> idx = {0, 1};
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
  EXPECT_EQ(p, (std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFF0u}));
  EXPECT_EQ(out, (std::vector<uint32_t>{1, 0xFFFFFFF0u}));
  auto s = parse(rmwKernel("i64", 2, "min"));
  std::vector<int64_t> q = {1, -5}, sval = {-1, 3}, sout(2);
  run(*s->functions[0], {1, 1, 1}, {buf(q), buf(idx), buf(sval), buf(sout)});
  EXPECT_EQ(q, (std::vector<int64_t>{-1, -5}));
  EXPECT_EQ(sout, (std::vector<int64_t>{1, -5}));
}

TEST(InterpAtomic, BitwiseKindsOnWideIntegers) {
  const uint64_t a = 0xF0F0F0F0F0F0F0F0ull, b = 0xFF00FF00FF00FF00ull, c = 0x0FFFFFFFFFFFFFF0ull;
  std::vector<int32_t> idx = {0, 0};
  for (auto [kind, want] : {std::pair{"and", a & b & c}, std::pair{"or", a | b | c}, std::pair{"xor", a ^ b ^ c}}) {
    auto m = parse(rmwKernel("u64", 2, kind));
    std::vector<uint64_t> p = {a}, val = {b, c}, out(2);
    run(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
    EXPECT_EQ(p[0], want) << kind;
    EXPECT_EQ(out[0], a) << kind;
  }
}

// k(%p, %cmp, %val, %out): out = atomic_cas(p + [0, 0, 0, 1], cmp, val), f32.
const char* kCas = R"(func @k(%p: ptr<f32>, %c: ptr<f32>, %v: ptr<f32>, %out: ptr<f32>) {
  %i = arange {end = 4, start = 0} : tensor<4xi32>
  %one = constant {value = 3} : tensor<4xi32>
  %last = cmp %i, %one {pred = "eq"} : tensor<4xi1>
  %zero = constant {value = 0} : tensor<4xi32>
  %o = select %last, %i, %zero : tensor<4xi32>
  %o1 = cmp %o, %zero {pred = "ne"} : tensor<4xi1>
  %o2 = cast %o1 : tensor<4xi32>
  %pp = splat %p : tensor<4xptr<f32>>
  %pa = ptr_add %pp, %o2 : tensor<4xptr<f32>>
  %cp = splat %c : tensor<4xptr<f32>>
  %ca = ptr_add %cp, %i : tensor<4xptr<f32>>
  %cv = load %ca : tensor<4xf32>
  %vp = splat %v : tensor<4xptr<f32>>
  %va = ptr_add %vp, %i : tensor<4xptr<f32>>
  %vv = load %va : tensor<4xf32>
  %old = atomic_cas %pa, %cv, %vv {scope = "cta", sem = "relaxed"} : tensor<4xf32>
  %op = splat %out : tensor<4xptr<f32>>
  %oa = ptr_add %op, %i : tensor<4xptr<f32>>
  store %oa, %old
  return
}
)";

TEST(InterpAtomic, CompareAndSwapComparesBitsInIndexOrder) {
  auto m = parse(kCas);
  const float nan = std::nanf("");
  // Element 0 swaps 0 -> 1, element 1 (cmp 0) then fails, element 2 swaps 1 -> 2; p[1] holds -0.0,
  // which +0.0 does not match.
  std::vector<float> p = {0.0f, -0.0f}, c = {0, 0, 1, 0.0f}, v = {1, 5, 2, 9}, out(4, -1);
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(c), buf(v), buf(out)});
  EXPECT_EQ(p[0], 2.0f);
  EXPECT_TRUE(std::signbit(p[1]) && p[1] == 0.0f);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_EQ(out[2], 1.0f);
  EXPECT_TRUE(std::signbit(out[3]));
  // A NaN matches its own bits.
  p = {nan, nan};
  c = {nan, 0, 0, nan};
  run(*m->functions[0], {1, 1, 1}, {buf(p), buf(c), buf(v), buf(out)});
  EXPECT_EQ(p[0], 1.0f);
  EXPECT_EQ(p[1], 9.0f);
}

TEST(InterpAtomic, OutOfBoundsAtomicIsAnErrorAtTheOp) {
  const std::string text = rmwKernel("i32", 2, "add");
  auto m = parse(text);
  std::vector<int32_t> p = {0}, idx = {0, 1}, val = {1, 1}, out(2);
  Diagnostic d = runExpectingError(*m->functions[0], {1, 1, 1}, {buf(p), buf(idx), buf(val), buf(out)});
  EXPECT_NE(d.message.find("out-of-bounds atomic_rmw of i32 at program (0, 0, 0), element [1]"), std::string::npos)
      << d.message;
  const std::string before = text.substr(0, text.find("atomic_rmw"));
  EXPECT_EQ(d.loc.line, 1 + std::count(before.begin(), before.end(), '\n'));  // the atomic_rmw line
  EXPECT_EQ(p[0], 1);  // element 0 ran before element 1 failed
}

}  // namespace
}  // namespace kiln::interp::test
