// Loads and stores: vector widths from the layout, axis info, mask constancy and 16 bytes;
// duplicated elements loaded once and stored by one thread; scalar accesses; `other`; cache hints;
// and a 2-D masked copy run for every thread (each element stored exactly once, with its value).
#include "codegen_ptx_eval.h"
#include "codegen_test_util.h"

namespace kiln::lower::test {
namespace {

using layout::LinearLayout;

// out[i] = in[i] for i < n over one tile of `len` elements of type T; `hint` is the multiple_of of
// the pointers and n (16: vectors allowed), `mask` whether the access is masked.
std::string copy1d(int len, const std::string& t, int hint, bool mask = true) {
  std::string L = std::to_string(len);
  std::string s = "func @copy(%in: ptr<" + t + ">, %out: ptr<" + t + ">, %n: i32) {\n"
                  "  %i = multiple_of %in {values = [" + std::to_string(hint) + "]} : ptr<" + t + ">\n"
                  "  %o = multiple_of %out {values = [" + std::to_string(hint) + "]} : ptr<" + t + ">\n"
                  "  %nn = multiple_of %n {values = [" + std::to_string(hint) + "]} : i32\n"
                  "  %a = arange {end = " + L + ", start = 0} : tensor<" + L + "xi32, #L>\n"
                  "  %ns = splat %nn : tensor<" + L + "xi32, #L>\n"
                  "  %m = cmp %a, %ns {pred = \"lt\"} : tensor<" + L + "xi1, #L>\n"
                  "  %ip = splat %i : tensor<" + L + "xptr<" + t + ">, #L>\n"
                  "  %ia = ptr_add %ip, %a : tensor<" + L + "xptr<" + t + ">, #L>\n"
                  "  %op = splat %o : tensor<" + L + "xptr<" + t + ">, #L>\n"
                  "  %oa = ptr_add %op, %a : tensor<" + L + "xptr<" + t + ">, #L>\n";
  s += mask ? "  %v = load %ia, %m : tensor<" + L + "x" + t + ", #L>\n  store %oa, %v, %m\n"
            : "  %v = load %ia : tensor<" + L + "x" + t + ", #L>\n  store %oa, %v\n";
  return s + "  return\n}";
}

int vectorLoads(const std::string& ptx, const std::string& form) { return countMatching(ptx, "ld\\.global\\." + form + " "); }

TEST(CodegenMemory, VectorWidthFollowsTheLayout) {
  EXPECT_EQ(vectorLoads(emit(copy1d(1024, "f32", 16), {{"L", blocked1d(1024, 2)}}).ptx, "v2\\.f32"), 4);
  EXPECT_EQ(vectorLoads(emit(copy1d(1024, "f32", 16), {{"L", blocked1d(1024, 8)}}).ptx, "v4\\.f32"), 2);  // 16 bytes at most
  EXPECT_EQ(vectorLoads(emit(copy1d(1024, "f32", 16), {{"L", blocked1d(1024, 1)}}).ptx, "f32"), 8);
  // f16: 8 elements = 16 bytes, packed into four .b32 words.
  std::string h = emit(copy1d(1024, "f16", 16), {{"L", blocked1d(1024, 8)}}).ptx;
  EXPECT_EQ(vectorLoads(h, "v4\\.b32"), 1) << h;
  EXPECT_EQ(countMatching(h, "st\\.global\\.v4\\.b32 "), 1) << h;
  // f64: two elements fill 16 bytes.
  EXPECT_EQ(vectorLoads(emit(copy1d(256, "f64", 16), {{"L", blocked1d(256, 2)}}).ptx, "v2\\.f64"), 1);
  EXPECT_EQ(vectorLoads(emit(copy1d(256, "i8", 16), {{"L", blocked1d(256, 2)}}).ptx, "v2\\.s8"), 1);
}

TEST(CodegenMemory, VectorWidthFollowsAxisInfo) {
  const Layouts l{{"L", blocked1d(1024, 4)}};
  // 8-byte aligned pointers: two floats at once.
  EXPECT_EQ(vectorLoads(emit(copy1d(1024, "f32", 8), l).ptx, "v2\\.f32"), 4);
  // Unknown alignment: one at a time.
  EXPECT_EQ(vectorLoads(emit(copy1d(1024, "f32", 1), l).ptx, "f32"), 8);
  // n only a multiple of 2: the mask changes every 2 elements.
  std::string text = copy1d(1024, "f32", 16);
  text.replace(text.find("%nn = multiple_of %n {values = [16]}"), 36, "%nn = multiple_of %n {values = [2]} ");
  EXPECT_EQ(vectorLoads(emit(text, l).ptx, "v2\\.f32"), 4);
  // No mask at all: full vectors, no predicates.
  std::string unmasked = emit(copy1d(1024, "f32", 16, false), l).ptx;
  EXPECT_EQ(vectorLoads(unmasked, "v4\\.f32"), 2);
  EXPECT_EQ(count(unmasked, "@"), 0) << unmasked;
}

TEST(CodegenMemory, CopiesAssemble) {
  for (const char* t : {"i1", "i8", "u16", "i32", "i64", "f16", "bf16", "f32", "f64", "f8e5m2"})
    for (int vec : {1, 4, 16}) {
      SCOPED_TRACE(std::string(t) + " x" + std::to_string(vec));
      expectAssembles(copy1d(512, t, 16), {{"L", blocked1d(512, vec)}});
    }
}

// Registers 2 and 3 repeat registers 0 and 1 (a zero register basis): loaded once, stored once.
TEST(CodegenMemory, DuplicatedRegistersAreLoadedAndStoredOnce) {
  LinearLayout dup({{"register", {{1}, {0}}}, {"lane", {{2}, {4}, {8}, {16}, {32}}}, {"warp", {{64}, {128}}}}, {{"dim0", 256}});
  Emitted e = emit(copy1d(256, "f32", 16), {{"L", dup}});
  EXPECT_EQ(vectorLoads(e.ptx, "v2\\.f32"), 1) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, "st\\.global\\.v2\\.f32 "), 1) << e.ptx;
}

// 16 elements over 128 threads: lanes 16..31 and warps 1..3 hold copies and must not store.
TEST(CodegenMemory, BroadcastCopiesAreStoredByOneThread) {
  Emitted e = emit(copy1d(16, "i32", 1), {{"L", blocked1d(16, 1)}});
  std::map<uint64_t, int> stores;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t;
    t.tid = tid;
    t.params = {{"copy_in", 0x1000}, {"copy_out", 0x2000}, {"copy_n", 16}};
    for (uint32_t k = 0; k < 16; ++k) t.memory[0x1000 + 4 * k] = 100 + k;
    runThread(e.ptx, t);
    ASSERT_EQ(t.error, "") << e.ptx;
    for (const Store& s : t.stores) {
      ++stores[s.address];
      EXPECT_EQ(s.value, 100 + (s.address - 0x2000) / 4);
      EXPECT_LT(tid, 16u);  // lanes 0..15 of warp 0 own the elements
    }
  }
  EXPECT_EQ(stores.size(), 16u);
  for (const auto& [a, n] : stores) EXPECT_EQ(n, 1) << a;
}

TEST(CodegenMemory, ScalarAccesses) {
  Emitted e = emit(R"(func @scalar(%p: ptr<i32>, %q: ptr<i32>, %c: i1) {
  %v = load %p : i32
  %w = load %p, %c, %v : i32
  %s = add %v, %w : i32
  store %q, %s, %c
  return
})");
  std::string b = body(e.ptx);
  // Every thread loads (no guard on the unmasked load); the masked one falls back to %v.
  EXPECT_EQ(countMatching(b, R"(^ld\.global\.b32 %r\d+, \[%rd0\];)"), 1) << b;
  EXPECT_EQ(countMatching(b, R"(^@%p0 ld\.global\.b32 %r\d+, \[%rd0\];)"), 1) << b;
  // One thread stores, and only when %c holds.
  EXPECT_EQ(countMatching(b, R"(^and\.pred %p\d+, %p\d+, %p0;)"), 1) << b;
  for (uint32_t tid : {0u, 5u}) {
    for (uint64_t c : {0u, 1u}) {
      PtxThread t;
      t.tid = tid;
      t.params = {{"scalar_p", 64}, {"scalar_q", 128}, {"scalar_c", c}};
      t.memory[64] = 20;
      runThread(e.ptx, t);
      ASSERT_EQ(t.error, "") << e.ptx;
      ASSERT_EQ(t.stores.size(), tid == 0 && c ? 1u : 0u);
      if (!t.stores.empty()) {
        EXPECT_EQ(t.stores[0].value, 40u);
      }
    }
  }
  expectAssembles(R"(func @scalar(%p: ptr<i32>, %q: ptr<i32>, %c: i1) {
  %v = load %p : i32
  %w = load %p, %c, %v : i32
  %s = add %v, %w : i32
  store %q, %s, %c
  return
})");
}

TEST(CodegenMemory, OtherFillsMaskedLanes) {
  std::string text = R"(func @fill(%in: ptr<f32>, %out: ptr<f32>) {
  %i = multiple_of %in {values = [16]} : ptr<f32>
  %a = arange {end = 512, start = 0} : tensor<512xi32, #L>
  %k = constant {value = 100} : i32
  %ks = splat %k : tensor<512xi32, #L>
  %m = cmp %a, %ks {pred = "lt"} : tensor<512xi1, #L>
  %x = constant {value = -1.5} : f32
  %xs = splat %x : tensor<512xf32, #L>
  %ip = splat %i : tensor<512xptr<f32>, #L>
  %ia = ptr_add %ip, %a : tensor<512xptr<f32>, #L>
  %v = load %ia, %m, %xs {cache = "cg", evict = "evict_last"} : tensor<512xf32, #L>
  %op = splat %out : tensor<512xptr<f32>, #L>
  %oa = ptr_add %op, %a : tensor<512xptr<f32>, #L>
  store %oa, %v {cache = "cs"}
  return
})";
  Emitted e = emit(text, {{"L", blocked1d(512, 4)}});
  // The constant is one register; each loaded element starts as a copy of it.
  EXPECT_EQ(countMatching(e.ptx, R"(mov\.f32 %f\d+, 0fBFC00000;)"), 1) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(mov\.f32 %f\d+, %f0;)"), 4) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(@%p\d+ ld\.global\.cg\.L2::cache_hint\.v4\.f32 )"), 1) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(st\.global\.cs\.f32 )"), 4) << e.ptx;  // %out has no alignment promise
  expectAssembles(text, {{"L", blocked1d(512, 4)}});
}

// Pointer tiles kept as base + offsets are formed into pointers where an op needs them (select here).
TEST(CodegenMemory, SelectBetweenPointerTiles) {
  std::string text = R"(func @pick(%x: ptr<i32>, %y: ptr<i32>, %out: ptr<i32>, %k: i32) {
  %a = arange {end = 256, start = 0} : tensor<256xi32, #L>
  %xs = splat %x : tensor<256xptr<i32>, #L>
  %xp = ptr_add %xs, %a : tensor<256xptr<i32>, #L>
  %ys = splat %y : tensor<256xptr<i32>, #L>
  %yp = ptr_add %ys, %a : tensor<256xptr<i32>, #L>
  %ks = splat %k : tensor<256xi32, #L>
  %c = cmp %a, %ks {pred = "lt"} : tensor<256xi1, #L>
  %p = select %c, %xp, %yp : tensor<256xptr<i32>, #L>
  %v = load %p : tensor<256xi32, #L>
  %os = splat %out : tensor<256xptr<i32>, #L>
  %op = ptr_add %os, %a : tensor<256xptr<i32>, #L>
  store %op, %v
  return
})";
  Layouts l{{"L", blocked1d(256, 2)}};
  Emitted e = emit(text, l);
  std::map<uint64_t, uint32_t> mem;
  for (uint32_t i = 0; i < 256; ++i) mem[0x1000 + 4 * i] = i, mem[0x2000 + 4 * i] = 1000 + i;
  int stores = 0;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t;
    t.tid = tid;
    t.params = {{"pick_x", 0x1000}, {"pick_y", 0x2000}, {"pick_out", 0x8000}, {"pick_k", 100}};
    t.memory = mem;
    runThread(e.ptx, t);
    ASSERT_EQ(t.error, "") << e.ptx;
    for (const Store& s : t.stores) {
      uint64_t i = (s.address - 0x8000) / 4;
      EXPECT_EQ(s.value, i < 100 ? i : 1000 + i) << i;
      ++stores;
    }
  }
  EXPECT_EQ(stores, 256);
  expectAssembles(text, l);
}

// A 2-D masked copy (rows < M, columns < N, row stride N) through expand_dims and broadcast, for
// every thread: each element in range is stored exactly once, with the value loaded for it.
void check2dCopy(const LinearLayout& l, int hint) {
  SCOPED_TRACE(l.str());
  Layouts ls{{"L", l}, {"R2", zeroDim(l, 1)}, {"C2", zeroDim(l, 0)}, {"R", removeDim(zeroDim(l, 1), 1)},
             {"C", removeDim(zeroDim(l, 0), 0)}};
  int64_t rows = l.getOutDimSize("dim0"), cols = l.getOutDimSize("dim1");
  std::string R = std::to_string(rows), C = std::to_string(cols), H = std::to_string(hint);
  std::string text = "func @copy2d(%in: ptr<i32>, %out: ptr<i32>, %M: i32, %N: i32) {\n"
                     "  %i = multiple_of %in {values = [" + H + "]} : ptr<i32>\n"
                     "  %o = multiple_of %out {values = [" + H + "]} : ptr<i32>\n"
                     "  %NN = multiple_of %N {values = [" + H + "]} : i32\n"
                     "  %r = arange {end = " + R + ", start = 0} : tensor<" + R + "xi32, #R>\n"
                     "  %c = arange {end = " + C + ", start = 0} : tensor<" + C + "xi32, #C>\n"
                     "  %r2 = expand_dims %r {axis = 1} : tensor<" + R + "x1xi32, #R2>\n"
                     "  %c2 = expand_dims %c {axis = 0} : tensor<1x" + C + "xi32, #C2>\n"
                     "  %n = splat %NN : tensor<" + R + "x1xi32, #R2>\n"
                     "  %rm = mul %r2, %n : tensor<" + R + "x1xi32, #R2>\n"
                     "  %rb = broadcast %rm : tensor<" + R + "x" + C + "xi32, #L>\n"
                     "  %cb = broadcast %c2 : tensor<" + R + "x" + C + "xi32, #L>\n"
                     "  %off = add %rb, %cb : tensor<" + R + "x" + C + "xi32, #L>\n"
                     "  %m = splat %M : tensor<" + R + "x1xi32, #R2>\n"
                     "  %rok = cmp %r2, %m {pred = \"lt\"} : tensor<" + R + "x1xi1, #R2>\n"
                     "  %nn = splat %NN : tensor<1x" + C + "xi32, #C2>\n"
                     "  %cok = cmp %c2, %nn {pred = \"lt\"} : tensor<1x" + C + "xi1, #C2>\n"
                     "  %rokb = broadcast %rok : tensor<" + R + "x" + C + "xi1, #L>\n"
                     "  %cokb = broadcast %cok : tensor<" + R + "x" + C + "xi1, #L>\n"
                     "  %mask = and %rokb, %cokb : tensor<" + R + "x" + C + "xi1, #L>\n"
                     "  %ip = splat %i : tensor<" + R + "x" + C + "xptr<i32>, #L>\n"
                     "  %ia = ptr_add %ip, %off : tensor<" + R + "x" + C + "xptr<i32>, #L>\n"
                     "  %v = load %ia, %mask : tensor<" + R + "x" + C + "xi32, #L>\n"
                     "  %op = splat %o : tensor<" + R + "x" + C + "xptr<i32>, #L>\n"
                     "  %oa = ptr_add %op, %off : tensor<" + R + "x" + C + "xptr<i32>, #L>\n"
                     "  store %oa, %v, %mask\n"
                     "  return\n}";
  Emitted e = emit(text, ls);
  const uint64_t M = uint64_t(rows) - 1, N = hint == 16 ? 16 : uint64_t(cols) - 3;
  std::map<uint64_t, int> stores;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t;
    t.tid = tid;
    t.params = {{"copy2d_in", 0x10000}, {"copy2d_out", 0x20000}, {"copy2d_M", M}, {"copy2d_N", N}};
    for (uint32_t k = 0; k < 4096; ++k) t.memory[0x10000 + 4 * k] = 3 * k + 1;
    runThread(e.ptx, t);
    ASSERT_EQ(t.error, "") << e.ptx;
    for (const Store& s : t.stores) {
      uint64_t k = (s.address - 0x20000) / 4;
      EXPECT_EQ(s.value, 3 * k + 1);
      ++stores[k];
    }
  }
  EXPECT_EQ(stores.size(), M * std::min<uint64_t>(N, uint64_t(cols)));
  for (const auto& [k, n] : stores) {
    EXPECT_LT(k / N, M);
    EXPECT_EQ(n, 1) << "element " << k;
  }
  expectAssembles(text, ls);
}

TEST(CodegenMemory, MaskedCopy2dStoresEachElementOnce) {
  check2dCopy(layout::defaultBlocked({16, 32}, 4, 4, {1, 0}), 1);
  check2dCopy(layout::defaultBlocked({16, 32}, 4, 4, {1, 0}), 16);
  check2dCopy(layout::defaultBlocked({32, 16}, 4, 2, {0, 1}), 1);  // columns fastest in the threads
  check2dCopy(layout::defaultBlocked({4, 8}, 4, 1, {1, 0}), 1);    // 32 elements, 128 threads
  check2dCopy(layout::defaultBlocked({64, 64}, 4, 4, {1, 0}), 16);
}

}  // namespace
}  // namespace kiln::lower::test
