// LaunchOptions::blocking (kiln/launcher.h): a launch calls the hooks around compiling a new variant,
// once and in pairs, and not when it reuses one; JitFunction::compile (a warmup) calls them around all
// of its work; a failed compile leaves them balanced too. A GPU launch's first load on a device is the
// other blocking part (jit_device.cpp), run on the device tests. Runs on the interpreter with host
// buffers: no GPU needed.
#include <gtest/gtest.h>

#include <vector>

#include "kiln/launcher.h"

namespace {

using kiln::LaunchArg;

const char* const kSource = R"(
import triton
import triton.language as tl

@triton.jit
def twice(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

@triton.jit
def broken(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), undefined_name)
)";

// Counts the calls and checks they alternate, enter first.
struct CountingHooks final : kiln::BlockingHooks {
  int entered = 0, left = 0;
  bool inside = false, misordered = false;
  void enter() override {
    misordered |= inside;
    inside = true;
    ++entered;
  }
  void leave() override {
    misordered |= !inside;
    inside = false;
    ++left;
  }
};

kiln::JitFunction make(const char* name) {
  auto f = kiln::JitFunction::create(kiln::Runtime(), kiln::Source::fromString(kSource, "hooks.py"), name);
  EXPECT_TRUE(f) << (f ? "" : f.error().text);
  return f.value();
}

// Interpreter launches with the hooks.
kiln::LaunchOptions withHooks(CountingHooks& hooks) {
  kiln::LaunchOptions o;
  o.interpret = true;
  o.blocking = &hooks;
  return o;
}

TEST(BlockingHooks, AroundCompilingOnlyAndBalanced) {
  kiln::JitFunction f = make("twice");
  std::vector<float> x(16, 1.0f);
  CountingHooks hooks;
  const kiln::LaunchOptions o = withHooks(hooks);
  auto args = [&](int64_t block) {
    return std::vector<LaunchArg>{LaunchArg::hostBuffer(x.data(), x.size() * sizeof(float), "fp32"),
                                  LaunchArg::integer(16), LaunchArg::integer(block)};
  };
  ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args(16), o));  // compiles: one pair
  EXPECT_EQ(hooks.entered, 1);
  ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args(16), o));  // the same variant: none
  ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args(16), o));
  EXPECT_EQ(hooks.entered, 1);
  ASSERT_TRUE(f.launch(kiln::Grid{1, 1, 1}, args(32), o));  // another constexpr: another compile
  EXPECT_EQ(hooks.entered, 2);
  EXPECT_EQ(x[0], 16.0f);  // every launch ran
  std::shared_ptr<const kiln::CompiledKernel> compiled;
  ASSERT_TRUE(f.compile(args(64), o, /*gpu=*/false, &compiled));  // a warmup
  EXPECT_EQ(hooks.entered, 3);
  EXPECT_EQ(hooks.left, hooks.entered);
  EXPECT_FALSE(hooks.misordered);
  EXPECT_FALSE(hooks.inside);
}

TEST(BlockingHooks, BalancedWhenTheCompileFails) {
  kiln::JitFunction f = make("broken");
  std::vector<float> x(16, 1.0f);
  CountingHooks hooks;
  const kiln::LaunchOptions o = withHooks(hooks);
  std::vector<LaunchArg> args{LaunchArg::hostBuffer(x.data(), x.size() * sizeof(float), "fp32"),
                              LaunchArg::integer(16)};
  kiln::LaunchStatus s = f.launch(kiln::Grid{1, 1, 1}, args, o);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.kind, kiln::LaunchErrorKind::Compile);
  std::shared_ptr<const kiln::CompiledKernel> compiled;
  EXPECT_FALSE(f.compile(args, o, /*gpu=*/false, &compiled));
  EXPECT_EQ(hooks.entered, 2);
  EXPECT_EQ(hooks.left, 2);
  EXPECT_FALSE(hooks.misordered);
}

}  // namespace
