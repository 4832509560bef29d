// for / if / while / assert: the emitted control flow run by the PTX evaluator (iteration counts,
// loop-carried values that swap, bounds near overflow, a non-positive step, loop-carried pointer
// tiles kept as base + offsets), scoping of cached registers, nesting limits, and ptxas.
#include "codegen_ptx_eval.h"
#include "codegen_test_util.h"

namespace kiln::lower::test {
namespace {

// Runs thread `tid` of `ptx` with the given parameters (symbols without the "<kernel>_" prefix).
PtxThread run(const Emitted& e, std::map<std::string, uint64_t> params, uint32_t tid = 0,
              const std::map<uint64_t, uint32_t>& memory = {}) {
  PtxThread t;
  t.tid = tid;
  for (const auto& [k, v] : params) t.params[e.info.name + "_" + k] = v;
  t.memory = memory;
  runThread(e.ptx, t);
  return t;
}

// The single value thread 0 stores (the kernels below store one scalar).
int64_t stored(const Emitted& e, std::map<std::string, uint64_t> params) {
  PtxThread t = run(e, std::move(params));
  EXPECT_EQ(t.error, "") << e.ptx;
  EXPECT_FALSE(t.trapped);
  if (t.stores.size() != 1) {
    ADD_FAILURE() << t.stores.size() << " stores\n" << e.ptx;
    return -1;
  }
  return int64_t(int32_t(uint32_t(t.stores[0].value)));
}

const char* kFib = R"(func @fib(%out: ptr<i32>, %n: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %a, %b = for %0, %n, %1, %0, %1 : i32, i32 {
  ^(%i: i32, %x: i32, %y: i32):
    %s = add %x, %y : i32
    yield %y, %s
  }
  store %out, %a
  return
})";

TEST(CodegenControl, ForCarriesValuesAcrossIterations) {
  Emitted e = emit(kFib);
  int64_t fib[] = {0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55};
  for (int n = 0; n <= 10; ++n) EXPECT_EQ(stored(e, {{"out", 64}, {"n", uint64_t(n)}}), fib[n]) << n;
  EXPECT_EQ(stored(e, {{"out", 64}, {"n", uint64_t(uint32_t(-3))}}), 0);  // no iteration
  // Scalar loop bounds: every branch is uniform.
  EXPECT_EQ(count(e.ptx, "bra.uni"), 2) << e.ptx;
  EXPECT_EQ(count(e.ptx, " bra "), 0) << e.ptx;
  // A constant positive step needs no check.
  EXPECT_EQ(count(e.ptx, "trap"), 0) << e.ptx;
  expectAssembles(kFib);
}

TEST(CodegenControl, YieldThatSwapsIterationValues) {
  Emitted e = emit(R"(func @swap(%out: ptr<i32>, %n: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %7 = constant {value = 7} : i32
  %a, %b = for %0, %n, %1, %7, %0 : i32, i32 {
  ^(%i: i32, %x: i32, %y: i32):
    yield %y, %x
  }
  %c = mul %a, %1 : i32
  %d = add %c, %b : i32
  %e = mul %a, %7 : i32
  %f = add %e, %b : i32
  store %out, %f
  return
})");
  // (a, b) = (7, 0) after an even number of iterations, (0, 7) after an odd one: 7a + b.
  for (int n = 0; n < 5; ++n) EXPECT_EQ(stored(e, {{"out", 64}, {"n", uint64_t(n)}}), n % 2 ? 7 : 49) << n;
}

const char* kCount = R"(func @count(%out: ptr<T>, %lb: T, %ub: T, %step: T) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %c = for %lb, %ub, %step, %0 : i32 {
  ^(%i: T, %k: i32):
    %k1 = add %k, %1 : i32
    yield %k1
  }
  %cc = cast %c : T
  store %out, %cc
  return
})";

std::string withType(std::string text, const std::string& t) {
  for (size_t at = text.find(": T"); at != std::string::npos; at = text.find(": T", at)) text.replace(at + 2, 1, t);
  for (size_t at = text.find("<T>"); at != std::string::npos; at = text.find("<T>", at)) text.replace(at + 1, 1, t);
  return text;
}

TEST(CodegenControl, ForBoundsStepsAndOverflow) {
  Emitted e = emit(withType(kCount, "i32"));
  auto iterations = [&](int64_t lb, int64_t ub, int64_t step) {
    return stored(e, {{"out", 64}, {"lb", uint64_t(lb)}, {"ub", uint64_t(ub)}, {"step", uint64_t(step)}});
  };
  EXPECT_EQ(iterations(0, 10, 3), 4);
  EXPECT_EQ(iterations(-5, 5, 1), 10);
  EXPECT_EQ(iterations(5, 5, 1), 0);
  // The interpreter stops when the induction variable would pass INT32_MAX; so does the GPU.
  EXPECT_EQ(iterations(INT32_MAX - 5, INT32_MAX, 4), 2);
  EXPECT_EQ(iterations(INT32_MIN, INT32_MAX, 1 << 30), 4);
  // A step <= 0 traps (the interpreter reports it as an error).
  PtxThread t = run(e, {{"out", 64}, {"lb", 0}, {"ub", 10}, {"step", 0}});
  EXPECT_TRUE(t.trapped) << e.ptx;
  t = run(e, {{"out", 64}, {"lb", 0}, {"ub", 10}, {"step", uint64_t(uint32_t(-1))}});
  EXPECT_TRUE(t.trapped);
  // Unsigned bounds compare unsigned.
  Emitted u = emit(withType(kCount, "u32"));
  EXPECT_EQ(stored(u, {{"out", 64}, {"lb", 0x7FFFFFF0u}, {"ub", 0x80000010u}, {"step", 8}}), 4);
  EXPECT_EQ(stored(u, {{"out", 64}, {"lb", 0xFFFFFFF0u}, {"ub", 0xFFFFFFFFu}, {"step", 0x10}}), 1);  // wraps: stop
  expectAssembles(withType(kCount, "i64"));
  expectAssembles(withType(kCount, "u8"));
}

TEST(CodegenControl, IfYieldsThroughPhiRegisters) {
  std::string text = R"(func @pick(%out: ptr<i32>, %x: i32, %c: i1) {
  %1 = constant {value = 1} : i32
  %2 = constant {value = 2} : i32
  %r, %s = if %c : i32, i32 {
    %a = add %x, %1 : i32
    yield %a, %x
  } {
    %b = mul %x, %2 : i32
    yield %b, %1
  }
  %t = add %r, %s : i32
  store %out, %t
  return
})";
  Emitted e = emit(text);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x", 10}, {"c", 1}}), 21);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x", 10}, {"c", 0}}), 21);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x", 5}, {"c", 1}}), 11);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x", 5}, {"c", 0}}), 11);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x", 7}, {"c", 0}}), 15);
  EXPECT_EQ(count(e.ptx, "bra.uni"), 2) << e.ptx;
  expectAssembles(text);
}

// Collatz steps with a while loop whose condition passes values to the after region.
TEST(CodegenControl, WhileLoop) {
  std::string text = R"(func @collatz(%out: ptr<i32>, %x0: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %3 = constant {value = 3} : i32
  %x, %n = while %x0, %0 : i32, i32 {
  ^(%x: i32, %n: i32):
    %go = cmp %x, %1 {pred = "gt"} : i1
    condition %go, %x, %n
  } {
  ^(%y: i32, %m: i32):
    %odd = and %y, %1 : i32
    %isodd = cmp %odd, %1 {pred = "eq"} : i1
    %up0 = mul %y, %3 : i32
    %up = add %up0, %1 : i32
    %down = shr %y, %1 : i32
    %next = select %isodd, %up, %down : i32
    %m1 = add %m, %1 : i32
    yield %next, %m1
  }
  %r = mul %n, %x : i32
  store %out, %r
  return
})";
  Emitted e = emit(text);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x0", 1}}), 0);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x0", 6}}), 8);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x0", 27}}), 111);
  EXPECT_EQ(stored(e, {{"out", 64}, {"x0", 0}}), 0);  // x = 0 at exit: 0 steps * 0
  expectAssembles(text);
}

TEST(CodegenControl, AssertTrapsWhenAnElementFails) {
  std::string text = R"(func @check(%x: i32, %lim: i32) {
  %a = arange {end = 128, start = 0} : tensor<128xi32, #L>
  %s = splat %x : tensor<128xi32, #L>
  %v = add %a, %s : tensor<128xi32, #L>
  %l = splat %lim : tensor<128xi32, #L>
  %ok = cmp %v, %l {pred = "lt"} : tensor<128xi1, #L>
  assert %ok {message = "out of range"}
  return
})";
  Layouts l{{"L", blocked1d(128, 1)}};
  Emitted e = emit(text, l);
  EXPECT_EQ(countMatching(e.ptx, R"(@!%p\d+ trap;)"), 1) << e.ptx;
  // Thread 7 holds element 7: 7 + x < lim?
  EXPECT_FALSE(run(e, {{"x", 0}, {"lim", 8}}, 7).trapped);
  EXPECT_TRUE(run(e, {{"x", 1}, {"lim", 8}}, 7).trapped);
  EXPECT_FALSE(run(e, {{"x", 1}, {"lim", 8}}, 6).trapped);
  expectAssembles(text, l);
}

// A tile accumulator and a pointer tile advanced by a scalar stride: out[j] = sum_i in[j + i*stride].
const char* kStrided = R"(func @strided(%in: ptr<i32>, %out: ptr<i32>, %n: i32, %stride: i32) {
  %0 = constant {value = 0} : i32
  %1 = constant {value = 1} : i32
  %a = arange {end = 256, start = 0} : tensor<256xi32, #L>
  %ip = splat %in : tensor<256xptr<i32>, #L>
  %p0 = ptr_add %ip, %a : tensor<256xptr<i32>, #L>
  %z = constant {value = 0} : tensor<256xi32, #L>
  %ss = splat %stride : tensor<256xi32, #L>
  %acc, %p = for %0, %n, %1, %z, %p0 : tensor<256xi32, #L>, tensor<256xptr<i32>, #L> {
  ^(%i: i32, %acc_i: tensor<256xi32, #L>, %p_i: tensor<256xptr<i32>, #L>):
    %v = load %p_i : tensor<256xi32, #L>
    %acc1 = add %acc_i, %v : tensor<256xi32, #L>
    %p1 = ptr_add %p_i, %ss : tensor<256xptr<i32>, #L>
    yield %acc1, %p1
  }
  %op = splat %out : tensor<256xptr<i32>, #L>
  %oa = ptr_add %op, %a : tensor<256xptr<i32>, #L>
  store %oa, %acc
  %q = ptr_add %p, %a : tensor<256xptr<i32>, #L>
  store %q, %acc
  return
})";

class PointerTiles : public ::testing::TestWithParam<bool> {};

// With a splat stride (as written) or the constant tile canonicalization folds a constant stride into.
TEST_P(PointerTiles, AdvancedByAUniformOffsetCarryOnlyTheirBase) {
  std::string text = kStrided;
  if (GetParam()) text.replace(text.find("%ss = splat %stride : "), 22, "%ss = constant {value = 300} : ");
  Layouts l{{"L", blocked1d(256, 1)}};
  Emitted e = emit(text, l);
  // In the loop: one 64-bit add of the base, no per-element pointer arithmetic but the addresses.
  std::string loop = e.ptx.substr(e.ptx.find("_for:"), e.ptx.find("_for_end:") - e.ptx.find("_for:"));
  // base += stride; one address: the second register's element is an immediate offset from the first.
  EXPECT_EQ(countMatching(loop, R"(mad\.wide\.s32 %rd\d+, %r\d+, 4, %rd\d+;)"), 2) << loop;
  EXPECT_EQ(countMatching(loop, R"(ld\.global\.b32 %r\d+, \[%rd\d+\+512\];)"), 1) << loop;
  EXPECT_EQ(countMatching(loop, R"(mov\.b64 )"), 1) << loop;  // the base phi
  const uint32_t n = 5, stride = 300;
  std::map<uint64_t, uint32_t> mem;
  for (uint32_t k = 0; k < 256 + n * stride; ++k) mem[0x10000 + 4 * k] = k * k;
  std::map<uint64_t, int> seen;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t = run(e, {{"in", 0x10000}, {"out", 0x80000}, {"n", n}, {"stride", stride}}, tid, mem);
    ASSERT_EQ(t.error, "") << e.ptx;
    for (const Store& s : t.stores) {
      // out + j, or q = in + n*stride + 2j
      uint64_t j = s.address >= 0x80000 ? (s.address - 0x80000) / 4 : ((s.address - 0x10000) / 4 - n * stride) / 2;
      uint32_t want = 0;
      for (uint32_t i = 0; i < n; ++i) want += (j + i * stride) * (j + i * stride);
      EXPECT_EQ(uint32_t(s.value), want) << "element " << j;
      ++seen[s.address];
    }
  }
  EXPECT_EQ(seen.size(), 512u);
  expectAssembles(text, l);
}

INSTANTIATE_TEST_SUITE_P(CodegenControl, PointerTiles, ::testing::Bool());

// The thread part of a layout's coordinates, first needed inside a branch, is computed again after
// it: the branch's registers hold nothing on the path that skips it.
TEST(CodegenControl, CachedRegistersDoNotLeakOutOfRegions) {
  std::string text = R"(func @scoped(%out: ptr<i32>, %c: i1) {
  %op = splat %out : tensor<128xptr<i32>, #L>
  if %c {
    %a = arange {end = 128, start = 0} : tensor<128xi32, #L>
    %pa = ptr_add %op, %a : tensor<128xptr<i32>, #L>
    store %pa, %a
    yield
  } {
    yield
  }
  %b = arange {end = 128, start = 0} : tensor<128xi32, #L>
  %pb = ptr_add %op, %b : tensor<128xptr<i32>, #L>
  store %pb, %b
  return
})";
  Layouts l{{"L", layout::defaultBlocked({128}, 4, 1, {0})}};
  Emitted e = emit(text, l);
  for (uint64_t c : {0u, 1u}) {
    PtxThread t = run(e, {{"out", 0x100}, {"c", c}}, 37);
    ASSERT_EQ(t.error, "") << e.ptx;
    ASSERT_EQ(t.stores.size(), c ? 2u : 1u);
    EXPECT_EQ(t.stores.back().value, 37u);
    EXPECT_EQ(t.stores.back().address, 0x100u + 4 * 37);
  }
}

TEST(CodegenControl, NestingDeeperThanTheLimitIsACompileError) {
  std::string text = "func @deep(%c: i1) {\n";
  for (int i = 0; i < 80; ++i) text += "if %c {\n";
  for (int i = 0; i < 80; ++i) text += "yield\n} {\nyield\n}\n";
  text += "return\n}";
  auto m = parseGpu(text);
  EXPECT_THROW(emit(*m->functions.at(0)), CompileError);
}

}  // namespace
}  // namespace kiln::lower::test
