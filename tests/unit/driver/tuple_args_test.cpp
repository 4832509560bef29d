// Tuple launch arguments from C++ (LaunchArg::tuple): their signature entries, the kernel parameters
// their leaves fill (on the interpreter), the recent-launch prints that tell tuples apart, and the
// messages for what a tuple element cannot be.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/recent_launches.h"
#include "kiln/launcher.h"

namespace {

using kiln::LaunchArg;

const char* const kSource = R"(
import triton
import triton.language as tl

@triton.jit
def axpy(xy, out, coef):
    offs = tl.arange(0, 16)
    tl.static_assert(coef[1] is None)
    tl.store(out + offs, tl.load(xy[0] + offs) * coef[0] + tl.load(xy[1][0] + offs) * coef[2])
)";

struct Case {
  std::vector<float> x = std::vector<float>(16, 2.0f), y = std::vector<float>(16, 3.0f), out = std::vector<float>(16);
  LaunchArg buf(std::vector<float>& v) { return LaunchArg::hostBuffer(v.data(), v.size() * sizeof(float), "fp32"); }
};

kiln::JitFunction makeAxpy() {
  auto f = kiln::JitFunction::create(kiln::Runtime(), kiln::Source::fromString(kSource, "axpy.py"), "axpy");
  EXPECT_TRUE(f) << (f ? "" : f.error().text);
  return f.value();
}

TEST(TupleArgs, LeavesFillTheKernelsParameters) {
  kiln::JitFunction f = makeAxpy();
  Case c;
  LaunchArg inner[] = {c.buf(c.y)};
  LaunchArg xy[] = {c.buf(c.x), LaunchArg::tuple(inner)};
  LaunchArg none;
  none.kind = LaunchArg::Kind::None;
  LaunchArg coef[] = {LaunchArg::real(10.0), none, LaunchArg::integer(1)};
  std::vector<LaunchArg> args = {LaunchArg::tuple(xy), c.buf(c.out), LaunchArg::tuple(coef)};
  auto sig = f.signature(args);
  ASSERT_TRUE(sig) << sig.error().text;
  EXPECT_EQ(sig.value(), "(*fp32:16, (*fp32:16,)), *fp32:16, (fp32, None, 1)");
  kiln::LaunchOptions o;
  o.interpret = true;
  std::shared_ptr<const kiln::CompiledKernel> used;
  for (int i = 0; i < 2; ++i) {  // the second launch finds its variant through the recent-launch print
    kiln::LaunchStatus s = f.launch(kiln::Grid{1, 1, 1}, args, o, &used);
    ASSERT_TRUE(s) << s.error->text;
  }
  EXPECT_EQ(f.cacheSize(), 1u);
  EXPECT_EQ(c.out[5], 2.0f * 10.0f + 3.0f * 1.0f);
  // Five kernel parameters: xy.0, xy.1.0, out, coef.0 and coef.2 (the 1 stays one, as at top level).
  EXPECT_EQ(used->kernel.params().size(), 5u);
  EXPECT_EQ(used->kernel.params()[1].name, "xy.1.0");
}

TEST(TupleArgs, PrintsTellTuplesApart) {
  auto print = [](std::vector<LaunchArg> args) { return kiln::printLaunch(args, kiln::LaunchOptions{}); };
  LaunchArg two[] = {LaunchArg::integer(4), LaunchArg::integer(5)};
  LaunchArg three[] = {LaunchArg::integer(4), LaunchArg::integer(5), LaunchArg::integer(6)};
  LaunchArg constTwo[] = {LaunchArg::integer(4), LaunchArg::integer(5)};
  constTwo[1].isConstexpr = true;  // tl.constexpr(5): the literal 5 in the key, not i32
  kiln::LaunchPrint p2 = print({LaunchArg::tuple(two)});
  EXPECT_TRUE(p2.printed);
  EXPECT_EQ(p2.numArgs, 3u);
  EXPECT_TRUE(p2 == print({LaunchArg::tuple(two)}));
  EXPECT_FALSE(p2 == print({LaunchArg::tuple(three)}));
  EXPECT_FALSE(p2 == print({LaunchArg::tuple(constTwo)}));
  EXPECT_FALSE(p2 == print({LaunchArg::tuple(std::span<const LaunchArg>(two, 1)), LaunchArg::integer(5)}));
  EXPECT_FALSE(print({LaunchArg::tuple(two, "Pair a b")}).printed);  // a NamedTuple builds the key
}

TEST(TupleArgs, ElementErrors) {
  kiln::JitFunction f = makeAxpy();
  Case c;
  LaunchArg bad[] = {c.buf(c.x), LaunchArg::string("s")};
  LaunchArg coef[] = {LaunchArg::real(1.0)};
  std::vector<LaunchArg> args = {LaunchArg::tuple(bad), c.buf(c.out), LaunchArg::tuple(coef)};
  auto sig = f.signature(args);
  ASSERT_FALSE(sig);
  EXPECT_NE(sig.error().message.find("argument 0 ('xy'), element [1] is a string"), std::string::npos)
      << sig.error().message;
}

}  // namespace
