// The CTA simulator's groups (ops_sim_groups.h) and the race model they need (ops_sim.h, "Races"), on
// hand-written PTX: warps that branch apart and meet at a barrier, a branch divergent inside a warp, a
// named barrier that orders only its own threads, a hand-off through an mbarrier (and the same without
// its arrival, or with the arrival before the write), a named barrier that never fills, and setmaxnreg.
#include <gtest/gtest.h>

#include "ops_sim.h"

namespace kiln::lower::test {
namespace {

const char* kHeader = ".visible .entry k(.param .u64 k_y)\n{\n";

// Runs `body` (after the header; it must end with ret) on `threads` threads with 4 KiB of shared memory
// and a global buffer of one word per thread at k_y; returns the verdict and the buffer.
std::pair<std::string, std::vector<uint32_t>> runBody(const std::string& body, int threads) {
  CtaSim sim(std::string(kHeader) + body + "}\n", threads, 4096);
  const uint64_t y = sim.addBuffer(std::vector<uint8_t>(size_t(threads) * 4, 0));
  sim.setParam("k_y", y);
  const std::string verdict = sim.run();
  std::vector<uint32_t> words(static_cast<size_t>(threads));
  std::memcpy(words.data(), sim.buffer(y).data(), words.size() * 4);
  return {verdict, words};
}

// %r0 = tid, %r1 = warp, %rd1 = &y[tid]
const std::string kPrologue =
    "mov.u32 %r0, %tid.x;\n"
    "shr.u32 %r1, %r0, 5;\n"
    "ld.param.u64 %rd0, [k_y];\n"
    "mul.wide.u32 %rd2, %r0, 4;\n"
    "add.s64 %rd1, %rd0, %rd2;\n";

TEST(OpsSimGroups, WarpsBranchApartAndMeetAtTheCtaBarrier) {
  // Warp 0 writes 7 to shared word 0, warp 1 writes 9 to word 1; after bar.sync 0 everyone reads both.
  const std::string body = kPrologue +
                           "setp.eq.u32 %p0, %r1, 0;\n"
                           "@%p0 bra.uni WARP0;\n"
                           "st.shared.u32 [4], 9;\n"
                           "bra.uni JOIN;\n"
                           "WARP0:\n"
                           "st.shared.u32 [0], 7;\n"
                           "JOIN:\n"
                           "bar.sync 0;\n"
                           "ld.shared.u32 %r2, [0];\n"
                           "ld.shared.u32 %r3, [4];\n"
                           "mad.lo.u32 %r4, %r2, 10, %r3;\n"
                           "st.global.u32 [%rd1], %r4;\n"
                           "ret;\n";
  auto [verdict, y] = runBody(body, 64);
  ASSERT_EQ(verdict, "");
  EXPECT_EQ(y, std::vector<uint32_t>(64, 79));
  // Without the barrier warp 0 reads word 1 before warp 1 writes it (warp 0 runs first): a race, whatever
  // the order.
  std::string racy = body;
  racy.erase(racy.find("bar.sync 0;\n"), 12);
  EXPECT_NE(runBody(racy, 64).first.find("shared write of a byte another thread read since the last barrier"),
            std::string::npos);
}

TEST(OpsSimGroups, ABranchDivergentInsideAWarpIsAnError) {
  const std::string body = kPrologue +
                           "setp.lt.u32 %p0, %r0, 16;\n"
                           "@%p0 bra.uni DONE;\n"
                           "DONE:\n"
                           "ret;\n";
  EXPECT_NE(runBody(body, 64).first.find("divergent branch (inside warp 0)"), std::string::npos);
}

// Warp 0 writes word 0; warps 0 and 1 meet at named barrier 1 of 64 threads, warp 2 passes barrier 2 of
// its own 32; then warp 1 (or, in the racy variant, warp 2) reads the word.
std::string namedBarrierBody(int reader) {
  return kPrologue +
         "setp.eq.u32 %p0, %r1, 0;\n"
         "@%p0 st.shared.u32 [0], 5;\n"
         "setp.eq.u32 %p1, %r1, 2;\n"
         "@%p1 bra.uni THIRD;\n"
         "bar.sync 1, 64;\n"
         "bra.uni READ;\n"
         "THIRD:\n"
         "bar.sync 2, 32;\n"
         "READ:\n"
         "setp.eq.u32 %p2, %r1, " + std::to_string(reader) + ";\n"
         "@%p2 ld.shared.u32 %r2, [0];\n"
         "@%p2 st.global.u32 [%rd1], %r2;\n"
         "bar.sync 0;\n"
         "ret;\n";
}

TEST(OpsSimGroups, ANamedBarrierOrdersOnlyItsOwnThreads) {
  auto [verdict, y] = runBody(namedBarrierBody(1), 96);
  ASSERT_EQ(verdict, "");
  EXPECT_EQ(y[40], 5u);
  EXPECT_NE(runBody(namedBarrierBody(2), 96).first.find("another thread wrote since the last barrier"), std::string::npos);
}

// Warp 1 writes word 8 and arrives on the mbarrier at 0 (32 arrivals); warp 0 waits for phase 0 and reads
// the word. ARRIVE_EARLY / ARRIVE_LATE place the arrival before or after the write.
const std::string kHandOff = kPrologue +
                             "setp.eq.u32 %p0, %r0, 0;\n"
                             "@%p0 mbarrier.init.shared::cta.b64 [0], 32;\n"
                             "bar.sync 0;\n"
                             "setp.eq.u32 %p1, %r1, 0;\n"
                             "@%p1 bra.uni CONSUMER;\n"
                             "ARRIVE_EARLY"
                             "st.shared.u32 [8], 3;\n"
                             "ARRIVE_LATE"
                             "bra.uni JOIN;\n"
                             "CONSUMER:\n"
                             "WAIT:\n"
                             "mbarrier.try_wait.parity.shared::cta.b64 %p2, [0], 0;\n"
                             "@!%p2 bra.uni WAIT;\n"
                             "ld.shared.u32 %r2, [8];\n"
                             "st.global.u32 [%rd1], %r2;\n"
                             "JOIN:\n"
                             "bar.sync 0;\n"
                             "ret;\n";

std::string handOff(const std::string& early, const std::string& late) {
  std::string s = kHandOff;
  s.replace(s.find("ARRIVE_EARLY"), 12, early);
  s.replace(s.find("ARRIVE_LATE"), 11, late);
  return s;
}

TEST(OpsSimGroups, AnMbarrierHandsDataFromOneWarpToAnother) {
  const std::string arrive = "mbarrier.arrive.shared::cta.b64 _, [0];\n";
  auto [verdict, y] = runBody(handOff("", arrive), 64);
  ASSERT_EQ(verdict, "");
  EXPECT_EQ(y[0], 3u);
  EXPECT_EQ(y[31], 3u);
  // The consumer runs first and blocks; without the arrival nothing can complete its phase.
  const std::string never = runBody(handOff("", ""), 64).first;
  EXPECT_NE(never.find("deadlock"), std::string::npos) << never;
  EXPECT_NE(never.find("threads 0..31 wait at `mbarrier.try_wait.parity.shared::cta.b64 %p2, [0], 0;` on an mbarrier "
                       "phase whose arrivals are not all in (32 missing)"),
            std::string::npos)
      << never;
  // Arriving before the write releases nothing the reader needs.
  EXPECT_NE(runBody(handOff(arrive, ""), 64).first.find("another thread wrote since the last barrier"), std::string::npos);
}

TEST(OpsSimGroups, ANamedBarrierThatNeverFillsDeadlocks) {
  const std::string body = kPrologue +
                           "setp.eq.u32 %p0, %r1, 0;\n"
                           "@%p0 bra.uni DONE;\n"
                           "bar.sync 1, 64;\n"
                           "DONE:\n"
                           "ret;\n";
  const std::string verdict = runBody(body, 64).first;
  EXPECT_NE(verdict.find("deadlock: no group of threads can run; threads 32..63 wait at `bar.sync 1, 64;` (32 of 64 "
                         "threads arrived)"),
            std::string::npos)
      << verdict;
}

TEST(OpsSimGroups, SetmaxnregTakesWholeWarpgroupsAndAValidCount) {
  const std::string split = kPrologue +
                            "setp.lt.u32 %p0, %r1, 4;\n"
                            "@%p0 bra.uni LOW;\n"
                            "setmaxnreg.dec.sync.aligned.u32 40;\n"
                            "bra.uni JOIN;\n"
                            "LOW:\n"
                            "setmaxnreg.inc.sync.aligned.u32 232;\n"
                            "JOIN:\n"
                            "bar.sync 0;\n"
                            "ret;\n";
  EXPECT_EQ(runBody(split, 256).first, "");
  std::string partial = split;
  partial.replace(partial.find("%r1, 4;"), 7, "%r1, 2;");
  EXPECT_NE(runBody(partial, 256).first.find("setmaxnreg executed by part of a warpgroup"), std::string::npos);
  std::string odd = split;
  odd.replace(odd.find("u32 40;"), 7, "u32 44;");
  EXPECT_NE(runBody(odd, 256).first.find("setmaxnreg takes a multiple of 8"), std::string::npos);
}

}  // namespace
}  // namespace kiln::lower::test
