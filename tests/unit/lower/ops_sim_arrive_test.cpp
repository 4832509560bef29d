// The CTA simulator's arrivals that do not wait (ops_sim_groups.h, ops_sim_async.h), on hand-written PTX
// for two warpgroups: bar.arrive with bar.sync (a ping-pong between warpgroups, its order, a missing
// arrival, an unmatched one, mismatched counts), the race model of bar.arrive (it releases, it does not
// acquire), barrier ids that differ between the warpgroups of one group, and
// cp.async.mbarrier.arrive.noinc (copies land for the threads that wait on the mbarrier; no wait, a
// count one short, the form without .noinc).
#include <gtest/gtest.h>

#include "ops_sim.h"

namespace kiln::lower::test {
namespace {

const char* kHeader = ".visible .entry k(.param .u64 k_y, .param .u64 k_x)\n{\n";

// Runs `body` (after the header; it must end with ret) on `threads` threads with `sharedBytes` of shared
// memory, a global buffer of one word per thread at k_y and `x` at k_x; returns the verdict and k_y.
std::pair<std::string, std::vector<uint32_t>> runBody(const std::string& body, int threads, int64_t sharedBytes = 4096,
                                                      std::vector<uint8_t> x = std::vector<uint8_t>(16, 0)) {
  CtaSim sim(std::string(kHeader) + body + "}\n", threads, sharedBytes);
  const uint64_t y = sim.addBuffer(std::vector<uint8_t>(size_t(threads) * 4, 0));
  sim.setParam("k_y", y);
  sim.setParam("k_x", sim.addBuffer(std::move(x)));
  const std::string verdict = sim.run();
  std::vector<uint32_t> words(static_cast<size_t>(threads));
  std::memcpy(words.data(), sim.buffer(y).data(), words.size() * 4);
  return {verdict, words};
}

std::string replaced(std::string s, const std::string& what, const std::string& with) {
  const size_t at = s.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  return at == std::string::npos ? s : s.replace(at, what.size(), with);
}

// %r0 = tid, %rd1 = &y[tid], %r2 = warpgroup w, %r3 = 1 + w (its barrier), %r4 = 1 + (w ^ 1) (the other's)
const std::string kPrologue =
    "mov.u32 %r0, %tid.x;\n"
    "ld.param.u64 %rd0, [k_y];\n"
    "mul.wide.u32 %rd2, %r0, 4;\n"
    "add.s64 %rd1, %rd0, %rd2;\n"
    "shr.u32 %r2, %r0, 7;\n"
    "add.u32 %r3, %r2, 1;\n"
    "xor.b32 %r4, %r2, 1;\n"
    "add.u32 %r4, %r4, 1;\n";

// Ping-pong: warpgroup 1 arrives at barrier 1 once; then three times each warpgroup waits at its own
// barrier, takes its turn and arrives at the other's; warpgroup 0 finally waits at barrier 1 for the last
// arrival. In a turn the warpgroup's first thread stores the turn counter (shared word 256) in shared word
// iteration * 2 + w and increments it; warpgroup 0 then copies words 0..5 to y. MEET is an optional
// bar.sync 0 after the first arrival, after which both warpgroups reach the loop as one group.
const std::string kPingPong = kPrologue +
                              "shl.b32 %r5, %r2, 2;\n"
                              "and.b32 %r6, %r0, 127;\n"
                              "setp.eq.u32 %p0, %r6, 0;\n"
                              "setp.eq.u32 %p1, %r2, 1;\n"
                              "@!%p1 bra.uni ENTRY;\n"
                              "bar.arrive 1, 256;\n"
                              "ENTRY:\n"
                              "MEET"
                              "mov.u32 %r7, 0;\n"
                              "LOOP:\n"
                              "bar.sync %r3, 256;\n"
                              "@%p0 ld.shared.u32 %r8, [1024];\n"
                              "mad.lo.u32 %r9, %r7, 8, %r5;\n"
                              "@%p0 st.shared.u32 [%r9], %r8;\n"
                              "@%p0 add.u32 %r8, %r8, 1;\n"
                              "@%p0 st.shared.u32 [1024], %r8;\n"
                              "bar.arrive %r4, 256;\n"
                              "add.u32 %r7, %r7, 1;\n"
                              "setp.lt.u32 %p2, %r7, 3;\n"
                              "@%p2 bra.uni LOOP;\n"
                              "@%p1 bra.uni DONE;\n"
                              "bar.sync 1, 256;\n"
                              "setp.lt.u32 %p3, %r0, 6;\n"
                              "shl.b32 %r10, %r0, 2;\n"
                              "@%p3 ld.shared.u32 %r11, [%r10];\n"
                              "@%p3 st.global.u32 [%rd1], %r11;\n"
                              "DONE:\n"
                              "ret;\n";

TEST(OpsSimArrive, TwoWarpgroupsTakeTurnsThroughNamedBarriers) {
  for (const std::string meet : {"", "bar.sync 0;\n"}) {
    auto [verdict, y] = runBody(replaced(kPingPong, "MEET", meet), 256);
    ASSERT_EQ(verdict, "") << meet;
    // Turn k stored k: warpgroup 0, 1, 0, 1, 0, 1.
    for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(y[k], k) << meet;
    EXPECT_EQ(y[6], 0u);
  }
}

TEST(OpsSimArrive, APingPongWithoutItsFirstArrivalDeadlocks) {
  for (const std::string meet : {"", "bar.sync 0;\n"}) {
    const std::string verdict =
        runBody(replaced(replaced(kPingPong, "MEET", meet), "bar.arrive 1, 256;\n", ""), 256).first;
    EXPECT_NE(verdict.find("deadlock: no group of threads can run; threads 0..127 wait at `bar.sync %r3, 256;` (128 of "
                           "256 threads arrived); threads 128..255 wait at `bar.sync %r3, 256;` (128 of 256 threads "
                           "arrived);"),
              std::string::npos)
        << verdict;
  }
}

TEST(OpsSimArrive, AnArrivalNoOneWaitsForIsAnError) {
  // Without the final bar.sync (and the copy it orders), warpgroup 1's last arrival at barrier 1 stays.
  std::string body = replaced(kPingPong, "MEET", "");
  body = replaced(body, "bar.sync 1, 256;\n", "");
  body = replaced(body, "@%p3 ld.shared.u32 %r11, [%r10];\n@%p3 st.global.u32 [%rd1], %r11;\n", "");
  EXPECT_EQ(runBody(body, 256).first, "named barrier 1 has arrivals left at the end (128 of 256 threads)");
}

TEST(OpsSimArrive, ArrivalsAndSyncsAgreeOnTheCountAndDoNotExceedIt) {
  // Warpgroup 0 waits at barrier 1 for 256 threads; warpgroup 1 arrives there counting 128.
  EXPECT_NE(runBody(replaced(replaced(kPingPong, "MEET", ""), "bar.arrive 1, 256;", "bar.arrive 1, 128;"), 256)
                .first.find("threads arrive at barrier 1 with different counts at `bar.arrive 1, 128;`"),
            std::string::npos);
  const std::string body = kPrologue + "bar.arrive 1, 128;\nret;\n";
  EXPECT_NE(runBody(body, 256).first.find("more threads at barrier 1 than its count at `bar.arrive 1, 128;`"),
            std::string::npos);
  EXPECT_NE(runBody(kPrologue + "bar.arrive 1;\nret;\n", 256).first.find("bar.arrive without a thread count"),
            std::string::npos);
  EXPECT_NE(runBody(kPrologue + "setp.eq.u32 %p0, %r2, 1;\n@%p0 bar.arrive 1, 128;\nret;\n", 256)
                .first.find("guarded barrier"),
            std::string::npos);
}

// Warpgroup 1 (A) stores 42 in word 0 by its first thread and arrives at barrier 1; warpgroup 0 (B) waits
// there and reads the word. The placeholders add accesses before and after each side's barrier.
const std::string kArriveOrders = kPrologue +
                                  "setp.eq.u32 %p0, %r0, 128;\n"
                                  "setp.eq.u32 %p1, %r0, 0;\n"
                                  "setp.eq.u32 %p2, %r2, 0;\n"
                                  "@%p2 bra.uni B;\n"
                                  "@%p0 st.shared.u32 [0], 42;\n"
                                  "bar.arrive 1, 256;\n"
                                  "A_AFTER"
                                  "bra.uni DONE;\n"
                                  "B:\n"
                                  "B_BEFORE"
                                  "bar.sync 1, 256;\n"
                                  "ld.shared.u32 %r5, [0];\n"
                                  "st.global.u32 [%rd1], %r5;\n"
                                  "B_AFTER"
                                  "DONE:\n"
                                  "ret;\n";

std::string arriveOrders(const std::string& aAfter, const std::string& bBefore, const std::string& bAfter) {
  return replaced(replaced(replaced(kArriveOrders, "A_AFTER", aAfter), "B_BEFORE", bBefore), "B_AFTER", bAfter);
}

TEST(OpsSimArrive, BarArriveReleasesWhatCameBeforeButAcquiresNothing) {
  auto [verdict, y] = runBody(arriveOrders("", "", ""), 256);
  ASSERT_EQ(verdict, "");
  EXPECT_EQ(y[0], 42u);
  EXPECT_EQ(y[127], 42u);
  EXPECT_EQ(y[128], 0u);
  // B writes word 2 after its bar.sync, A reads it after its bar.arrive: nothing orders them (A, released
  // first, reads before B writes).
  const std::string readAfter = "@%p0 ld.shared.u32 %r6, [8];\n";
  const std::string write = "@%p1 st.shared.u32 [8], 7;\n";
  EXPECT_NE(runBody(arriveOrders(readAfter, "", write), 256)
                .first.find("shared write of a byte another thread read since the last barrier (thread 0)"),
            std::string::npos);
  // Even a write B made before its bar.sync is not ordered before A's reads after its bar.arrive.
  EXPECT_NE(runBody(arriveOrders(readAfter, write, ""), 256)
                .first.find("shared read of a byte another thread wrote since the last barrier (thread 128)"),
            std::string::npos);
}

// Each thread stores its tid in its word, arrives at the other warpgroup's barrier and waits at its own
// (the whole CTA is one group at both: the barrier ids differ by warpgroup), then reads the word of the
// thread 128 away.
const std::string kExchange = kPrologue +
                              "shl.b32 %r5, %r0, 2;\n"
                              "st.shared.u32 [%r5], %r0;\n"
                              "bar.arrive %r4, 256;\n"
                              "bar.sync %r3, 256;\n"
                              "xor.b32 %r6, %r0, 128;\n"
                              "shl.b32 %r7, %r6, 2;\n"
                              "ld.shared.u32 %r8, [%r7];\n"
                              "st.global.u32 [%rd1], %r8;\n"
                              "ret;\n";

TEST(OpsSimArrive, EachWarpgroupOfAGroupArrivesAtItsOwnBarrier) {
  auto [verdict, y] = runBody(kExchange, 256);
  ASSERT_EQ(verdict, "");
  for (uint32_t t = 0; t < 256; t += 37) EXPECT_EQ(y[t], t ^ 128u);
  // Arriving at its own barrier, each warpgroup fills it alone: nothing orders the other's store.
  EXPECT_NE(runBody(replaced(kExchange, "bar.arrive %r4", "bar.arrive %r3"), 256)
                .first.find("shared read of a byte another thread wrote since the last barrier"),
            std::string::npos);
  // Half warps naming different barriers.
  const std::string halves = replaced(kExchange, "bar.arrive %r4, 256;\n",
                                      "shr.u32 %r9, %r0, 4;\nand.b32 %r9, %r9, 1;\nadd.u32 %r9, %r9, 1;\nbar.sync %r9, 128;\n");
  EXPECT_NE(runBody(halves, 256).first.find("barrier id differs inside a warp (warp 0)"), std::string::npos);
}

// Each thread copies its 16 bytes of x into its own 16-byte chunk of shared memory (8 bytes in a committed
// group, 8 still open), arrives on the mbarrier at 4096 (count COUNT) with cp.async.mbarrier.arrive.noinc,
// waits for phase 0 and stores the sum of words 1 and 3 of the next thread's chunk.
const std::string kNoinc = kPrologue +
                           "ld.param.u64 %rd3, [k_x];\n"
                           "mul.wide.u32 %rd4, %r0, 16;\n"
                           "add.s64 %rd5, %rd3, %rd4;\n"
                           "shl.b32 %r5, %r0, 4;\n"
                           "setp.eq.u32 %p0, %r0, 0;\n"
                           "@%p0 mbarrier.init.shared::cta.b64 [4096], COUNT;\n"
                           "bar.sync 0;\n"
                           "cp.async.ca.shared.global [%r5], [%rd5], 8;\n"
                           "cp.async.commit_group;\n"
                           "cp.async.ca.shared.global [%r5+8], [%rd5+8], 8;\n"
                           "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [4096];\n"
                           "WAIT:\n"
                           "mbarrier.try_wait.parity.shared::cta.b64 %p1, [4096], 0;\n"
                           "@!%p1 bra.uni WAIT;\n"
                           "READ"
                           "ret;\n";
const std::string kNoincRead =
    "add.u32 %r6, %r0, 1;\n"
    "and.b32 %r6, %r6, 255;\n"
    "shl.b32 %r7, %r6, 4;\n"
    "ld.shared.u32 %r8, [%r7+4];\n"
    "ld.shared.u32 %r9, [%r7+12];\n"
    "add.u32 %r10, %r8, %r9;\n"
    "st.global.u32 [%rd1], %r10;\n";

std::pair<std::string, std::vector<uint32_t>> runNoinc(const std::string& body) {
  std::vector<uint8_t> x(256 * 16);
  for (uint32_t i = 0; i < 256 * 4; ++i) {
    const uint32_t w = 1000 + i;
    std::memcpy(x.data() + 4 * i, &w, 4);
  }
  return runBody(body, 256, 4096 + 64, std::move(x));
}

std::string noinc(const std::string& count, const std::string& read = kNoincRead) {
  return replaced(replaced(kNoinc, "COUNT", count), "READ", read);
}

TEST(OpsSimArrive, CpAsyncMbarrierArriveNoincDeliversTheCopiesToTheWaiters) {
  for (const std::string form : {"shared::cta", "shared"}) {
    auto [verdict, y] = runNoinc(replaced(noinc("256"), "noinc.shared::cta", "noinc." + form));
    ASSERT_EQ(verdict, "") << form;
    for (uint32_t t = 0; t < 256; t += 17) {
      const uint32_t next = (t + 1) & 255;
      EXPECT_EQ(y[t], (1000 + 4 * next + 1) + (1000 + 4 * next + 3)) << t;
    }
  }
}

TEST(OpsSimArrive, CpAsyncMbarrierArriveNoincOrdersOnlyThroughTheWait) {
  // No wait: thread 0 reads thread 1's chunk unordered.
  const std::string noWait = replaced(noinc("256"),
                                      "WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 %p1, [4096], 0;\n@!%p1 bra.uni WAIT;\n", "");
  EXPECT_NE(runNoinc(noWait).first.find("shared read of a byte another thread wrote since the last barrier (thread 0)"),
            std::string::npos);
  // A count of 255: thread 255's arrival goes into phase 1, so the wait on phase 0 does not order its
  // copy before thread 254's read; and without the reads the phase it went into is left incomplete.
  EXPECT_NE(runNoinc(noinc("255")).first.find("shared read of a byte another thread wrote since the last barrier (thread 254)"),
            std::string::npos);
  EXPECT_EQ(runNoinc(noinc("255", "")).first,
            "mbarrier at 4096 has a phase left incomplete at the end (1 of 255 arrivals, 0 transaction bytes pending)");
  // The form that increments the pending count is not modelled.
  EXPECT_NE(runNoinc(replaced(noinc("256"), ".noinc", "")).first.find("cp.async.mbarrier.arrive without .noinc is not modelled"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::lower::test
