// The interpreter's long-run notice (RunOptions::longRun): a quarter of a second into a run whose grid
// the measured speed says will take minutes, it is told once, with the estimate; a short run never is.
#include <chrono>

#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

// out[pid & 63] = pid: a program of a few ops, the fastest kind of run.
struct Mark {
  KernelBuilder k{"mark"};
  std::vector<int32_t> out = std::vector<int32_t>(64, 0);
  Mark() {
    Value* p = k.param(Type::ptr(Scalar::I32), "out_ptr");
    Value* pid = k.pid();
    k.store(k.ptrAdd(p, k.bin(Opcode::And, pid, k.ci(63))), pid);
    k.ret();
  }
};

TEST(InterpLongRun, AGridOfMinutesIsAnnouncedEarlyWithItsEstimate) {
  Mark m;
  int told = 0;
  std::string message;
  RunOptions o;
  o.longRun = [&](const std::string& text) {
    ++told;
    message = text;
    return true;  // stop, as a warning filter that raises does
  };
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ArgValue> args{buf(m.out)};
  EXPECT_FALSE(interp::run(m.k.fn, {1u << 31, 1, 1}, args, o));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(told, 1);
  EXPECT_EQ(message.rfind("kernel 'mark': the interpreter runs 2147483648 programs for this launch at about ", 0), 0u)
      << message;
  EXPECT_NE(message.find(" programs/s, so it will take about "), std::string::npos) << message;
  EXPECT_NE(message.find("(Ctrl-C stops it"), std::string::npos) << message;
}

TEST(InterpLongRun, ANoticeAnsweredFalseLetsTheRunGoOn) {
  Mark m;
  int told = 0, asked = 0;
  RunOptions o;
  o.longRun = [&](const std::string&) { return ++told, false; };
  o.stop = [&] { return told > 0 && ++asked > 2; };  // stops a few polls after the notice
  const std::vector<ArgValue> args{buf(m.out)};
  EXPECT_FALSE(interp::run(m.k.fn, {1u << 31, 1, 1}, args, o));
  EXPECT_EQ(told, 1);
  EXPECT_EQ(asked, 3);
}

TEST(InterpLongRun, AShortRunIsNotAnnounced) {
  Mark m;
  int told = 0;
  RunOptions o;
  o.longRun = [&](const std::string&) { return ++told, true; };
  const std::vector<ArgValue> args{buf(m.out)};
  EXPECT_TRUE(interp::run(m.k.fn, {100000, 1, 1}, args, o));
  EXPECT_EQ(told, 0);
  EXPECT_EQ(m.out[63], 99967);  // the last program with pid & 63 == 63
}

}  // namespace
}  // namespace kiln::interp::test
