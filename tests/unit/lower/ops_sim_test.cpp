// The CTA simulator the ops tests rely on must fail loudly: missing barriers, unknown instructions and
// registers read before they are written are errors, and shfl.sync follows the PTX rules.
#include <gtest/gtest.h>

#include "layout/named_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

std::string without(std::string text, const std::string& line, int which) {
  size_t at = std::string::npos;
  for (int i = 0; i <= which; ++i) at = text.find(line, at == std::string::npos ? 0 : at + 1);
  if (at == std::string::npos) return "";
  return text.erase(at, line.size());
}

std::string runPtx(const std::string& ptx, int threads, std::vector<uint8_t>* out = nullptr) {
  CtaSim sim(ptx, threads, 4096);
  uint64_t base = sim.addBuffer(std::vector<uint8_t>(size_t(threads) * 4, 0));
  sim.setParam("k_y", base);
  std::string err = sim.run();
  if (out) *out = sim.buffer(base);
  return err;
}

const char* kHeader = ".visible .entry k(.param .u64 k_y)\n{\n";

TEST(OpsSim, MissingBarriersAreRaces) {
  auto src = layout::defaultBlocked({32, 32}, 4, 4, {1, 0}), dst = layout::defaultBlocked({32, 32}, 4, 4, {0, 1});
  std::string text = convertKernel({32, 32}, "f32", src, dst);
  std::string ptx = emit(text, {}, ptx::kSm80, 4).ptx;
  Bytes x = randomElems(ir::Scalar::F32, 1024, 1);
  auto run = [&](const std::string& p) {
    CtaSim sim(p, 128, 4096);
    sim.setParam("k_x", sim.addBuffer(x));
    sim.setParam("k_y", sim.addBuffer(Bytes(x.size())));
    return sim.run();
  };
  EXPECT_EQ(run(ptx), "");
  std::string noFirst = without(ptx, "bar.sync 0;", 0);
  ASSERT_NE(noFirst, "");
  EXPECT_NE(run(noFirst).find("another thread wrote since the last barrier"), std::string::npos);
  // Thread t reads word t, then writes word t + 1 (read by its neighbour): a barrier must separate them.
  std::string war = std::string(kHeader) +
                    "mov.u32 %r0, %tid.x;\n"
                    "shl.b32 %r1, %r0, 2;\n"
                    "mov.u32 %r2, smem;\n"
                    "add.u32 %r3, %r2, %r1;\n"
                    "st.shared.u32 [%r3], %r0;\n"
                    "bar.sync 0;\n"
                    "ld.shared.u32 %r4, [%r3];\n"
                    "BARRIER"
                    "st.shared.u32 [%r3+4], %r4;\n"
                    "ret;\n}\n";
  std::string ok = war, racy = war;
  ok.replace(ok.find("BARRIER"), 7, "bar.sync 0;\n");
  racy.replace(racy.find("BARRIER"), 7, "");
  EXPECT_EQ(runPtx(ok, 64), "");
  EXPECT_NE(runPtx(racy, 64).find("another thread read since the last barrier"), std::string::npos);
}

TEST(OpsSim, ShuffleFollowsPtx) {
  std::string ptx = std::string(kHeader) +
                    "mov.u32 %r0, %tid.x;\n"
                    "and.b32 %r1, %r0, 31;\n"
                    "mul.lo.u32 %r2, %r1, 10;\n"
                    "shfl.sync.idx.b32 %r3, %r2, 5, 0x1f, 0xFFFFFFFF;\n"      // everyone reads lane 5
                    "shfl.sync.bfly.b32 %r4, %r2, 3, 0x1f, 0xFFFFFFFF;\n"     // lane ^ 3
                    "shfl.sync.down.b32 %r5, %r2, 4, 0x1f, 0xFFFFFFFF;\n"     // lane + 4, own past 31
                    "shfl.sync.bfly.b32 %r6, %r2, 1, 0x181f, 0xFFFFFFFF;\n"   // width 8 segments
                    "add.u32 %r7, %r3, %r4;\n"
                    "mul.lo.u32 %r8, %r5, 1000;\n"
                    "add.u32 %r7, %r7, %r8;\n"
                    "mul.lo.u32 %r9, %r6, 1000000;\n"
                    "add.u32 %r7, %r7, %r9;\n"
                    "ld.param.u64 %rd0, [k_y];\n"
                    "mul.wide.u32 %rd1, %r0, 4;\n"
                    "add.s64 %rd2, %rd0, %rd1;\n"
                    "st.global.u32 [%rd2], %r7;\n"
                    "ret;\n}\n";
  std::vector<uint8_t> out;
  ASSERT_EQ(runPtx(ptx, 32, &out), "");
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t got;
    std::memcpy(&got, out.data() + 4 * l, 4);
    uint32_t down = l + 4 < 32 ? l + 4 : l;
    EXPECT_EQ(got, 50 + 10 * (l ^ 3) + 1000 * 10 * down + 1000000 * 10 * (l ^ 1)) << l;
  }
}

TEST(OpsSim, RefusesWhatItDoesNotModel) {
  EXPECT_NE(runPtx(std::string(kHeader) + "mov.u32 %r0, %r1;\nret;\n}\n", 32).find("read before it is written"),
            std::string::npos);
  EXPECT_NE(runPtx(std::string(kHeader) + "mov.u32 %r0, 1;\nbfind.u32 %r1, %r0;\nret;\n}\n", 32).find("not modelled"),
            std::string::npos);
  EXPECT_NE(runPtx(std::string(kHeader) + "mov.u32 %r0, %tid.x;\nsetp.lt.u32 %p0, %r0, 3;\n@%p0 bra L;\nL:\nret;\n}\n", 64)
                .find("divergent"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::lower::test
