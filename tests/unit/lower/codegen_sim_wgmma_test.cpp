// The tutorial matmul on sm_90a's wgmma, end to end in the CTA simulator (ops_sim_wgmma.h runs each
// wgmma group when its wait retires, reading shared memory and the accumulators then): 64x64 tiles on
// one warpgroup, B stored K-contiguous and N-contiguous, unpipelined and pipelined 2..4 deep, K not a
// multiple of the tile. A missing fence, wait or barrier, or a slot refilled while a group still reads
// it, shows as wrong values or a race.
#include <cmath>

#include "codegen_sim_util.h"
#include "ir/scalar_eval.h"

namespace kiln::lower::test {
namespace {

// Runs program `pid` (rows 64 * pid on, columns 0..63) of a lowered matmul_wgmma_* kernel on M x 80 x
// 144 with A's row stride `lda` and checks that its rows below M are the product and every other row is
// left alone. Which version ran is seen in the values: A's tensor map is encoded over -A, so the TMA
// version's product is -A·B. Which store ran is seen in where the product is: C's tensor map is encoded
// over one buffer and the pointer store writes another, so a TMA store (expected where C's row stride
// `ldc` is a multiple of 16 bytes) leaves the second all zeros, and a pointer store the first.
// With `batch`, the program is (pid, batch) and A's base is moved by batch * ldc elements (a kernel's
// per-batch offset, borrowing C's row stride as the batch stride).
void runTile(SimRun& r, bool nMajor, int M, int lda, bool tmaRuns, int pid = 0, int batch = 0, int ldc = 96) {
  const int N = 80, K = 144, ldb = nMajor ? 96 : 160, rowsC = std::max(M, 80);
  const bool tmaStores = ldc % 8 == 0;
  const int aBase = batch * ldc;
  std::vector<float> af = randomFloats(size_t(aBase) + size_t(M) * std::max(lda, K), 31);
  std::vector<float> bf = randomFloats(size_t(nMajor ? K : N) * ldb, 32);
  std::vector<uint16_t> a(af.size()), b(bf.size()), c(size_t(rowsC) * ldc, 0);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(af[i])));
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(bf[i])));
  std::vector<uint16_t> negated(a.size());
  for (size_t i = 0; i < a.size(); ++i) negated[i] = uint16_t(a[i] ^ 0x8000);
  r.buffer("a_ptr", negated);
  r.buffer("b_ptr", b);
  const uint64_t mapped = r.buffer("c_ptr", c);
  auto bAt = [&](int k, int n) { return size_t(nMajor ? k * ldb + n : n * ldb + k); };
  for (auto [name, v] : std::vector<std::pair<const char*, uint64_t>>{
           {"M", M}, {"N", N}, {"K", K}, {"stride_am", lda}, {"stride_ak", 1},
           {"stride_bk", nMajor ? ldb : 1}, {"stride_bn", nMajor ? 1 : ldb}, {"stride_cm", ldc}, {"stride_cn", 1}})
    r.param(name, v);
  r.encodeTensorMaps();
  r.buffer("a_ptr", a);  // what the pointer loads read
  const uint64_t pointed = r.buffer("c_ptr", c);  // what the pointer store writes
  ASSERT_EQ(r.sim.run({uint64_t(pid), uint64_t(batch), 0}, {uint64_t(pid) + 1, uint64_t(batch) + 1, 1}), "") << r.k.ptx;
  std::vector<uint16_t> got = r.read<uint16_t>(tmaStores ? mapped : pointed);
  EXPECT_EQ(r.read<uint16_t>(tmaStores ? pointed : mapped), c) << "the other store's buffer is left alone";
  const int first = 64 * pid, end = std::min(M, first + 64);
  for (int m = first; m < end; ++m)
    for (int n = 0; n < 64; ++n) {
      double want = 0;
      for (int k = 0; k < K; ++k)
        want += ir::fromBits(ir::Scalar::F16, a[size_t(aBase + m * lda + k)]).f *
                ir::fromBits(ir::Scalar::F16, b[bAt(k, n)]).f;
      const double g = ir::fromBits(ir::Scalar::F16, got[size_t(m * ldc + n)]).f;
      ASSERT_NEAR(g, tmaRuns ? -want : want, 1e-2 + 2e-3 * std::fabs(want)) << m << ", " << n;
    }
  for (int m = 0; m < rowsC; ++m)
    if (m < first || m >= end) EXPECT_EQ(got[size_t(m * ldc)], 0) << "row " << m << " is not the program's";
}

// With M = 80 the program's 64 rows lie inside A, the `% M` wrap of its row indices is the identity,
// and the pipelined loop (B N-contiguous) copies A and B with TMA through the tensor maps the launcher
// encodes (the K tail of 16 zero-filled past K). With M = 50 the wrap is not (rows 50..63 read rows
// 0..13), but the store's mask keeps those rows of the product from memory (schedule/lane_reach.h), so
// the TMA version still runs, its copies zero-filling them. With A's row stride 0 (every row A's first)
// the check before the loop fails (TMA takes no zero stride) and the cp.async version runs. Program 1
// of M = 80 has rows 64..79 inside A and 80..127 wrapped.
TEST(CodegenSimWgmma, MatmulTileOnAWarpgroup) {
  for (bool nMajor : {false, true})
    for (int stages = 1; stages <= 4; ++stages)
      for (auto [M, lda, pid] : {std::tuple{80, 160, 0}, std::tuple{80, 160, 1}, std::tuple{50, 160, 0},
                                 std::tuple{50, 0, 0}}) {
        const std::string input = nMajor ? "matmul_wgmma_nmajor" : "matmul_wgmma_kmajor";
        SCOPED_TRACE(input + " stages " + std::to_string(stages) + " M " + std::to_string(M) + " lda " +
                     std::to_string(lda) + " program " + std::to_string(pid));
        SimRun r(lowerInput(input, 4, stages, ptx::kSm90a));
        EXPECT_GE(count(r.k.ptx, "wgmma.mma_async"), 1);
        EXPECT_EQ(count(r.k.ptx, "mma.sync"), 0);
        EXPECT_EQ(r.k.ptx.find("cp.async.c") != std::string::npos, stages > 1);
        // (B K-contiguous is copied with its dims swapped: boxes of N rows of K elements, K-major in the slot)
        const bool tma = stages > 1;
        EXPECT_EQ(r.k.ptx.find("shared::cluster.global") != std::string::npos, tma) << "the TMA version beside it";
        // (C's tile leaves through shared memory and one bulk copy where its check holds: every case here)
        EXPECT_NE(r.k.ptx.find("cp.async.bulk.tensor.2d.global.shared::cta"), std::string::npos);
        EXPECT_EQ(r.k.tensorMaps.size(), tma ? 3u : 1u) << "A's and B's, and C's";
        for (const TensorMapSpec& s : r.k.tensorMaps) EXPECT_TRUE(s.guarded);
        if (stages > 1) {
          EXPECT_GE(count(r.k.ptx, "fence.proxy.async"), 1);
          EXPECT_NE(r.k.ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos)
              << "a matmul keeps one group in flight";
        }
        runTile(r, nMajor, M, lda, tma && lda > 0, pid);
      }
}

// A row stride axis info proves a multiple of 4 elements only (8 bytes; the launcher's maps need 16):
// the TMA version checks `stride_am & 7 == 0` before the loop, its slot along A's rows as the tensor
// runs, though the fallback's registers run along the columns. A stride of 160 takes TMA, 148 the
// cp.async loop (8-byte copies).
TEST(CodegenSimWgmma, MatmulTileWithARowStrideCheckedAtRunTime) {
  std::string text = inputText("matmul_wgmma_nmajor");
  const std::string hint = "multiple_of %stride_am {values = [16]}";
  ASSERT_NE(text.find(hint), std::string::npos);
  text.replace(text.find(hint), hint.size(), "multiple_of %stride_am {values = [4]}");
  for (int lda : {160, 148}) {
    SCOPED_TRACE("lda " + std::to_string(lda));
    SimRun r(lowerText("matmul_wgmma_nmajor", text, 4, 3, ptx::kSm90a));
    EXPECT_NE(r.k.ptx.find("cp.async.bulk.tensor"), std::string::npos);
    EXPECT_NE(r.k.ptx.find("cp.async.ca.shared.global [%r"), std::string::npos) << "8-byte copies beside it";
    EXPECT_EQ(r.k.tensorMaps.size(), 3u);  // (C's the third)
    runTile(r, true, 50, lda, lda == 160);
  }
}

// A's tile addressed from a base moved to the program's rows (`a_ptr += pid_m * 64 * stride_am`, the
// rows then 0..63, unwrapped): the TMA copy's row coordinate is pid_m * 64, the offset's factor of the
// row stride (schedule/pointer_box.h). Program 1 of a 128-row matmul, its rows 64..127.
TEST(CodegenSimWgmma, MatmulTileFromAnOffsetBase) {
  std::string text = inputText("matmul_wgmma_nmajor");
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"%40 = expand_dims %33 {axis = 1}", "%40 = expand_dims %29 {axis = 1}"},
           {"  %47 = splat %0 :", "  %a_off = mul %28, %6 : i32\n  %a_base = ptr_add %0, %a_off : ptr<f16>\n  %47 = splat %a_base :"}}) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
  }
  SimRun r(lowerText("matmul_offset_base", text, 4, 3, ptx::kSm90a));
  EXPECT_NE(r.k.ptx.find("cp.async.bulk.tensor"), std::string::npos);
  EXPECT_EQ(r.k.tensorMaps.size(), 3u);  // (C's the third)
  runTile(r, true, 128, 160, true, 1);
}

// A's base moved per batch by a stride that is none of its tile's (`a_ptr + pid_b * stride_b`, here
// program_id(1) times the parameter stride_cm): a dim of its own in the tensor map, before the tile's
// (rank 3, one element at coordinate pid_b, schedule/pointer_box.h). In 32 bits, and in 64 as a kernel
// computes a large batch's offset (`pid_b.to(tl.int64) * stride_b`). Program (0, 1).
TEST(CodegenSimWgmma, MatmulTileOfABatch) {
  for (bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "64-bit offset" : "32-bit offset");
    std::string text = inputText("matmul_wgmma_nmajor");
    const std::string offset = wide ? "  %pid_b = program_id {axis = 1} : i32\n  %b64 = cast %pid_b : i64\n"
                                      "  %s64 = cast %8 : i64\n  %a_off = mul %b64, %s64 : i64\n"
                                    : "  %pid_b = program_id {axis = 1} : i32\n  %a_off = mul %pid_b, %8 : i32\n";
    const std::string from = "  %47 = splat %0 :";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), offset + "  %a_base = ptr_add %0, %a_off : ptr<f16>\n  %47 = splat %a_base :");
    SimRun r(lowerText("matmul_batch", text, 4, 3, ptx::kSm90a));
    EXPECT_NE(r.k.ptx.find("cp.async.bulk.tensor.3d"), std::string::npos) << "A's copies through a rank-3 map";
    ASSERT_EQ(r.k.tensorMaps.size(), 3u);  // (C's the last)
    EXPECT_EQ(r.k.tensorMaps[0].box, (std::vector<int64_t>{1, 64, 32}));
    runTile(r, true, 80, 160, true, 0, 1);
  }
}

// C's row stride proven a multiple of 4 elements only: the store's check also tests it for 16 bytes
// (stride_cm & 7 == 0). Rows 96 apart take the TMA store, 100 apart (8-byte aligned) the pointer store.
// With M = 50 the TMA store clips the program's rows 50..63, as the mask does.
TEST(CodegenSimWgmma, MatmulTileStoredBehindARowStrideCheck) {
  std::string text = inputText("matmul_wgmma_nmajor");
  const std::string hint = "multiple_of %stride_cm {values = [16]}";
  ASSERT_NE(text.find(hint), std::string::npos);
  text.replace(text.find(hint), hint.size(), "multiple_of %stride_cm {values = [4]}");
  for (int ldc : {96, 100}) {
    SCOPED_TRACE("ldc " + std::to_string(ldc));
    SimRun r(lowerText("matmul_store_check", text, 4, 3, ptx::kSm90a));
    EXPECT_EQ(count(r.k.ptx, "cp.async.bulk.tensor.2d.global.shared::cta"), 1);
    EXPECT_NE(r.k.ptx.find("st.global"), std::string::npos) << "the pointer store beside it";
    runTile(r, true, 50, 160, true, 0, 0, ldc);
  }
}

// The loop asking for warp specialization: its TMA version (inside the check's `if`) runs on a producer
// warpgroup that copies only when the check holds, beside the consumer warps, which run the cp.async
// version themselves when it fails (their barriers named, the producer's warps not taking part).
TEST(CodegenSimWgmma, MatmulTileWarpSpecializedInsideItsCheck) {
  std::string text = inputText("matmul_wgmma_nmajor");
  const std::string loop = "= for %63, %62, %12, %58, %48, %57 :";
  ASSERT_NE(text.find(loop), std::string::npos);
  text.replace(text.find(loop), loop.size(), "= for %63, %62, %12, %58, %48, %57 {warp_specialize = 1} :");
  for (auto [M, lda, tma] : {std::tuple{80, 160, true}, std::tuple{50, 160, true}, std::tuple{50, 0, false}}) {
    SCOPED_TRACE("M " + std::to_string(M) + " lda " + std::to_string(lda));
    SimRun r(lowerText("matmul_ws", text, 4, 3, ptx::kSm90a));
    EXPECT_EQ(r.k.info.numWarps, 8) << "a producer warpgroup beside the consumers";
    EXPECT_GE(count(r.k.ptx, "bar.sync 1, 128;"), 1) << "the consumers' barriers";
    EXPECT_NE(r.k.ptx.find("cp.async.cg"), std::string::npos) << "the cp.async version among the consumers";
    runTile(r, true, M, lda, tma);
  }
}

}  // namespace
}  // namespace kiln::lower::test
