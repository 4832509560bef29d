// The interpreter's stop request (interp::run's `stop`): asked between programs, a `true` ends the run
// early with the programs so far done; a `false` lets it finish. The Python binding builds Ctrl-C on it.
#include <chrono>

#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

// out[pid] = pid + 1: which programs ran is readable afterwards.
struct MarkPrograms {
  KernelBuilder k{"mark"};
  MarkPrograms() {
    Value* out = k.param(Type::ptr(Scalar::I32), "out_ptr");
    Value* pid = k.pid();
    k.store(k.ptrAdd(out, pid), k.bin(Opcode::Add, pid, k.ci(1)));
    k.ret();
  }
};

TEST(InterpStop, ATrueAnswerEndsTheRunBetweenPrograms) {
  MarkPrograms m;
  const uint32_t grid = 1u << 24;  // minutes of interpreting: the test passes only if the run stops early
  std::vector<int32_t> out(grid, 0);
  int asked = 0;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ArgValue> args{buf(out)};
  bool finished = interp::run(m.k.fn, {grid, 1, 1}, args, [&] { return ++asked > 0; });
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(finished);
  EXPECT_EQ(asked, 1);
  EXPECT_LT(took, std::chrono::seconds(2));
  // Whole programs ran, in order, up to where it stopped; none after.
  size_t ran = 0;
  while (ran < out.size() && out[ran] == int32_t(ran + 1)) ++ran;
  EXPECT_GT(ran, 0u);
  EXPECT_LT(ran, out.size());
  for (size_t i = ran; i < out.size(); ++i) ASSERT_EQ(out[i], 0) << i;
}

TEST(InterpStop, AFalseAnswerLetsTheGridFinish) {
  MarkPrograms m;
  const uint32_t grid = 200000;
  std::vector<int32_t> out(grid, 0);
  int asked = 0;
  const std::vector<ArgValue> args{buf(out)};
  bool finished = interp::run(m.k.fn, {grid, 1, 1}, args, [&] {
    ++asked;
    return false;
  });
  EXPECT_TRUE(finished);
  for (uint32_t i = 0; i < grid; ++i) ASSERT_EQ(out[i], int32_t(i + 1)) << i;
}

TEST(InterpStop, WithoutARequestTheRunFinishes) {
  MarkPrograms m;
  std::vector<int32_t> out(64, 0);
  const std::vector<ArgValue> args{buf(out)};
  EXPECT_TRUE(interp::run(m.k.fn, {64, 1, 1}, args));
  EXPECT_EQ(out[63], 64);
}

}  // namespace
}  // namespace kiln::interp::test
