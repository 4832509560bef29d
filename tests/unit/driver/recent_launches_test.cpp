// The launch path's recent-launch table (driver/recent_launches.h): a launch whose
// arguments print like an earlier one reuses its variant, and every change that changes the key
// (an integer's divisibility or value 1, a pointer's alignment or dtype, a constexpr's value, the
// options) still selects its own variant, alternating between functions and threads too, and threads
// sharing one function's table at once find only their own variants. Runs on the
// interpreter with host buffers: no GPU needed.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "driver/recent_launches.h"
#include "kiln/launcher.h"

namespace {

using kiln::LaunchArg;

const char* const kSource = R"(
import triton
import triton.language as tl

@triton.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)
)";

struct Buffers {
  std::vector<float> x = std::vector<float>(80, 2.0f), out = std::vector<float>(80, 0.0f);
  // A host pointer at element `offset`: offset 1 makes it 4-byte aligned only.
  LaunchArg in(size_t offset = 0) {
    return LaunchArg::hostBuffer(x.data() + offset, (x.size() - offset) * sizeof(float), "fp32");
  }
  LaunchArg output() { return LaunchArg::hostBuffer(out.data(), out.size() * sizeof(float), "fp32"); }
};

kiln::JitFunction makeScale() {
  auto f = kiln::JitFunction::create(kiln::Runtime(), kiln::Source::fromString(kSource, "scale.py"), "scale");
  EXPECT_TRUE(f) << (f ? "" : f.error().text);
  return f.value();
}

std::string signatureOf(kiln::JitFunction& f, const std::vector<LaunchArg>& args) {
  std::shared_ptr<const kiln::CompiledKernel> used;
  kiln::LaunchOptions o;
  o.interpret = true;
  kiln::LaunchStatus s = f.launch(kiln::Grid{1, 1, 1}, args, o, &used);
  EXPECT_TRUE(s) << (s ? "" : s.error->text);
  return used ? used->signature : "";
}

TEST(RecentLaunch, EveryKeyChangeSelectsItsOwnVariant) {
  kiln::JitFunction f = makeScale();
  Buffers b;
  auto args = [&](LaunchArg x, int64_t n, double factor, int64_t block) {
    return std::vector<LaunchArg>{x, b.output(), LaunchArg::integer(n), LaunchArg::real(factor),
                                  LaunchArg::integer(block)};
  };
  const std::string base = signatureOf(f, args(b.in(), 64, 3.0, 64));
  EXPECT_EQ(base, "*fp32:16, *fp32:16, i32:16, fp32, 64");
  EXPECT_EQ(signatureOf(f, args(b.in(), 64, 3.0, 64)), base);   // the cached variant
  EXPECT_EQ(signatureOf(f, args(b.in(), 48, 5.0, 64)), base);   // another value, the same key
  EXPECT_EQ(signatureOf(f, args(b.in(), 60, 3.0, 64)), "*fp32:16, *fp32:16, i32, fp32, 64");
  EXPECT_EQ(signatureOf(f, args(b.in(), 56, 3.0, 64)), "*fp32:16, *fp32:16, i32:8, fp32, 64");
  EXPECT_EQ(signatureOf(f, args(b.in(), 1, 3.0, 64)), "*fp32:16, *fp32:16, 1, fp32, 64");
  EXPECT_EQ(signatureOf(f, args(b.in(1), 64, 3.0, 64)), "*fp32, *fp32:16, i32:16, fp32, 64");
  EXPECT_EQ(signatureOf(f, args(b.in(), 64, 3.0, 32)), "*fp32:16, *fp32:16, i32:16, fp32, 32");
  EXPECT_EQ(signatureOf(f, args(b.in(), 64, 3.0, 64)), base);  // back to the first
  std::vector<LaunchArg> half = args(b.in(), 64, 3.0, 64);
  half[3] = LaunchArg::real(3.0, "fp16");
  EXPECT_EQ(signatureOf(f, half), "*fp32:16, *fp32:16, i32:16, fp16, 64");
  EXPECT_EQ(f.cacheSize(), 7u);
  // The results are the interpreter's for the last launch: x * 3 (fp16 3.0 is exact) on 64 elements.
  EXPECT_EQ(b.out[0], 6.0f);
  EXPECT_EQ(b.out[63], 6.0f);
}

TEST(RecentLaunch, OptionsAndFunctionsDoNotShareEntries) {
  kiln::JitFunction f = makeScale(), g = makeScale();
  Buffers b;
  std::vector<LaunchArg> args{b.in(), b.output(), LaunchArg::integer(64), LaunchArg::real(2.0), LaunchArg::integer(64)};
  std::shared_ptr<const kiln::CompiledKernel> used;
  kiln::LaunchOptions o;
  o.interpret = true;
  for (int round = 0; round < 3; ++round) {
    for (int warps : {4, 8}) {
      o.num_warps = warps;
      for (kiln::JitFunction* fn : {&f, &g}) {
        ASSERT_TRUE(fn->launch(kiln::Grid{1, 1, 1}, args, o, &used));
        EXPECT_EQ(used->numWarps, warps);
      }
    }
    o.num_warps = 4;
    o.enable_fp_fusion = false;
    ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args, o, &used));
    EXPECT_EQ(used->key.find("|nofma") != std::string::npos, true);
    o.enable_fp_fusion = true;
    // Every compile option the key holds is in the print: launches that differ only in warp_specialize
    // (or maxnreg) after one another each get their own variant.
    o.warp_specialize = true;
    ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args, o, &used));
    EXPECT_NE(used->key.find("|ws"), std::string::npos);
    o.warp_specialize = false;
    o.maxnreg = 128;
    ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args, o, &used));
    EXPECT_NE(used->key.find("|r128"), std::string::npos);
    o.maxnreg = 0;
    ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args, o, &used));
    EXPECT_EQ(used->key.find('|', used->key.find("|w") + 1), std::string::npos);
  }
  EXPECT_EQ(f.cacheSize(), 5u);
  EXPECT_EQ(g.cacheSize(), 2u);
  // Another thread finds the variants through the key, then through its own recent launches.
  std::thread t([&] {
    std::shared_ptr<const kiln::CompiledKernel> mine;
    for (int i = 0; i < 2; ++i) EXPECT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args, o, &mine));
    EXPECT_EQ(mine->numWarps, 4);
  });
  t.join();
  EXPECT_EQ(f.cacheSize(), 5u);
}

TEST(RecentLaunch, PrintsTellApartWhatTheKeyTellsApart) {
  using kiln::ArgPrint;
  auto print = [](const LaunchArg& a) {
    ArgPrint p;
    EXPECT_TRUE(kiln::printArgs(std::span<const LaunchArg>(&a, 1), &p));
    return p;
  };
  EXPECT_EQ(print(LaunchArg::devicePointer(0x1000, "fp32")), print(LaunchArg::devicePointer(0x2000, "fp32")));
  EXPECT_FALSE(print(LaunchArg::devicePointer(0x1000, "fp32")) == print(LaunchArg::devicePointer(0x1008, "fp32")));
  EXPECT_FALSE(print(LaunchArg::devicePointer(0x1000, "fp32")) == print(LaunchArg::devicePointer(0x1000, "fp16")));
  EXPECT_FALSE(print(LaunchArg::integer(16)) == print(LaunchArg::integer(32)));
  EXPECT_FALSE(print(LaunchArg::real(1.0)) == print(LaunchArg::real(1.0, "fp16")));
  EXPECT_FALSE(print(LaunchArg::real(0.0)) == print(LaunchArg::real(-0.0)));
  ArgPrint p;
  LaunchArg s = LaunchArg::string("text");
  EXPECT_FALSE(kiln::printArgs(std::span<const LaunchArg>(&s, 1), &p));  // strings build the key
}

}  // namespace

// The table belongs to the function and is shared by the threads that launch it: threads that
// remember and look up their own prints at once only ever find the variant their own print selected
// (a lookup overlapping a write misses, never returns a torn entry), and each thread finds its own
// entry again once no other thread writes.
TEST(RecentLaunch, ThreadsSharingATableFindOnlyTheirOwnVariants) {
  kiln::RecentLaunches table;
  auto printOf = [](int thread, int round) {
    std::vector<LaunchArg> args{LaunchArg::integer(thread), LaunchArg::integer(round % 3),
                                LaunchArg::devicePointer(0x1000, "fp32")};
    kiln::LaunchOptions o;
    o.num_warps = 1 << (thread % 6);
    return kiln::printLaunch(args, o);
  };
  auto variantOf = [](int thread, int round) {
    return reinterpret_cast<void*>(uintptr_t(1 + thread * 16 + round % 3));
  };
  constexpr int kThreads = 6, kRounds = 20000;
  std::vector<int> wrong(kThreads, 0), hits(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const kiln::LaunchPrint p = printOf(t, r);
        if (void* v = table.find(p)) {
          ++hits[t];
          if (v != variantOf(t, r)) ++wrong[t];
        } else {
          table.remember(p, variantOf(t, r));
        }
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  // Alone, a thread finds what it remembered.
  std::thread([&] {
    table.remember(printOf(9, 1), variantOf(9, 1));
    EXPECT_EQ(table.find(printOf(9, 1)), variantOf(9, 1));
    EXPECT_EQ(table.find(printOf(9, 2)), nullptr);
  }).join();
  EXPECT_EQ(table.find(printOf(9, 1)), variantOf(9, 1));  // and so does every other thread
}

// Threads launching one function with different options at once each get the variant of their own
// options, from the recent table or the key.
TEST(RecentLaunch, ConcurrentLaunchesSelectTheirOwnVariant) {
  kiln::JitFunction f = makeScale();
  constexpr int kThreads = 4;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Buffers b;
      std::vector<LaunchArg> args{b.in(), b.output(), LaunchArg::integer(64), LaunchArg::real(2.0),
                                  LaunchArg::integer(64)};
      kiln::LaunchOptions o;
      o.interpret = true;
      for (int r = 0; r < 40; ++r) {
        o.num_warps = 1 << ((t + r) % 4);
        std::shared_ptr<const kiln::CompiledKernel> used;
        kiln::LaunchStatus s = f.launch(kiln::Grid{1, 1, 1}, args, o, &used);
        if (!s || !used || used->numWarps != o.num_warps) ++wrong[t];
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  EXPECT_EQ(f.cacheSize(), 4u);
}
