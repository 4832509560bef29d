// examples/atomics.py: contended atomics (many programs on one address). On the interpreter against
// references computed here (programs run in order, so tickets come out in program order); on the GPU,
// where programs race, against the interpreter: the same histogram, sums and lock-guarded data, and
// tickets that are a permutation of the interpreter's. The GPU half skips where there is no GPU.
#include <algorithm>
#include <numeric>

#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

std::optional<kiln::Kernel> example(std::string_view kernel, std::string_view signature) {
  return compileExample("atomics.py", kernel, signature);
}

// Runs on the GPU from `args` (the buffers are copied in and the results copied back into them).
::testing::AssertionResult onGpu(const kiln::Kernel& k, kiln::Grid grid, std::vector<Arg> args) {
  kiln::Status s = testGpu()->run(k, grid, args);
  if (!s) return ::testing::AssertionFailure() << s.error->text;
  return ::testing::AssertionSuccess();
}

TEST(Atomics, HistogramCountsEveryKeyOnce) {
  auto k = example("histogram_kernel", "*i32, *i32, i32, 256");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  for (int64_t n : {1, 255, 1000, 70001}) {
    auto keys = rng.ints<int32_t>(size_t(n), 0, 40);
    std::vector<int32_t> bins(41, 0), want(41, 0);
    for (int32_t key : keys) ++want[size_t(key)];
    // kt::run compares the GPU's bins with the interpreter's exactly (integer sums do not depend on order).
    ASSERT_TRUE(run(*k, {cdiv(n, 256)}, {Arg::buffer(keys), Arg::buffer(bins), Arg::integer(n)}));
    EXPECT_TRUE(allEqual(bins, want)) << "n " << n;
  }
}

TEST(Atomics, TicketsAreTheCounterBeforeEachIncrement) {
  auto k = example("ticket_kernel", "*i32, *i32");
  ASSERT_TRUE(k);
  const uint32_t programs = 3001;
  std::vector<int32_t> counter{7}, tickets(programs);
  poison(tickets);
  const std::vector<Arg> args = {Arg::buffer(counter), Arg::buffer(tickets)};
  ASSERT_TRUE(kiln::interpret(*k, {programs}, args));
  std::vector<int32_t> inOrder(programs);
  std::iota(inOrder.begin(), inOrder.end(), 7);
  EXPECT_TRUE(allEqual(tickets, inOrder));  // the interpreter runs the programs one after another
  EXPECT_EQ(counter[0], int32_t(7 + programs));
}

TEST(AtomicsGpu, TicketsArePermutedOnTheGpu) {
  if (!testGpu()) GTEST_SKIP() << "no GPU";
  auto k = example("ticket_kernel", "*i32, *i32");
  ASSERT_TRUE(k);
  const uint32_t programs = 100000;
  std::vector<int32_t> counter{0}, tickets(programs);
  poison(tickets);
  ASSERT_TRUE(onGpu(*k, {programs}, {Arg::buffer(counter), Arg::buffer(tickets)}));
  EXPECT_EQ(counter[0], int32_t(programs));  // one increment per program, not one per thread
  std::sort(tickets.begin(), tickets.end());
  std::vector<int32_t> all(programs);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_TRUE(allEqual(tickets, all));  // every ticket handed out once, and every thread of a program saw it
}

TEST(Atomics, SplitSumAndMaxOfAVector) {
  auto k = example("split_sum_max_kernel", "*fp32, *fp32, *fp32, i32, 128");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  for (int64_t n : {1, 129, 10000}) {
    // Small integers: the partial sums are exact in any order, so the GPU must match exactly.
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = float(rng.integer(-50, 50));
    std::vector<float> sum{0.0f}, mx{-1e30f};
    ASSERT_TRUE(run(*k, {cdiv(n, 128)}, {Arg::buffer(x), Arg::buffer(sum), Arg::buffer(mx), Arg::integer(n)}));
    double want = 0;
    for (float v : x) want += v;
    EXPECT_EQ(double(sum[0]), want) << "n " << n;
    EXPECT_EQ(mx[0], *std::max_element(x.begin(), x.end())) << "n " << n;
  }
}

TEST(Atomics, SpinLockSerialisesWholeBlocks) {
  auto k = example("locked_add_kernel", "*i32, *i32, 128");
  ASSERT_TRUE(k);
  for (uint32_t programs : {1u, 33u, 2000u}) {
    std::vector<int32_t> data(128, 5), lock{0};
    // kt::run: the interpreter, then the GPU from the same inputs, compared exactly.
    ASSERT_TRUE(run(*k, {programs}, {Arg::buffer(data), Arg::buffer(lock)}));
    const int32_t want = 5 + int32_t(programs * (programs + 1) / 2);
    EXPECT_TRUE(allEqual(data, std::vector<int32_t>(128, want))) << programs << " programs";
    EXPECT_EQ(lock[0], 0);
  }
}

}  // namespace
}  // namespace kt
