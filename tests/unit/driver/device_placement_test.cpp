// Which device a launch runs on (JitFunction::Impl::placement): the device its pointer arguments live
// on, tuple elements included; arguments on two devices, or host memory among device pointers, are an
// Argument error naming both, raised before anything is compiled or loaded, so none of this needs a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "driver/jit_function.h"
#include "kiln/launcher.h"

namespace {

using kiln::LaunchArg;
using kiln::LaunchErrorKind;

const char* const kSource = R"(
import triton
import triton.language as tl

@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs, mask=offs < n) + tl.load(y + offs, mask=offs < n), mask=offs < n)

@triton.jit
def pair(xy, out):
    offs = tl.arange(0, 16)
    tl.store(out + offs, tl.load(xy[0] + offs) + tl.load(xy[1] + offs))
)";

kiln::JitFunction kernel(const char* name) {
  auto f = kiln::JitFunction::create(kiln::Runtime(), kiln::Source::fromString(kSource, "add.py"), name);
  EXPECT_TRUE(f) << (f ? "" : f.error().text);
  return f.value();
}

LaunchArg onDevice(int device, uint64_t address = 0x7f0000000000) {
  return LaunchArg::devicePointer(address, "fp32", device);
}

// The launch's error, after checking that it is an Argument error and that nothing was compiled for it.
std::string argumentError(kiln::JitFunction& f, std::vector<LaunchArg> args) {
  kiln::LaunchStatus s = f.launch(kiln::Grid{1, 1, 1}, args, kiln::LaunchOptions{});
  EXPECT_FALSE(s.ok());
  if (s.ok()) return {};
  EXPECT_EQ(s.kind, LaunchErrorKind::Argument) << s.error->message;
  EXPECT_EQ(f.cacheSize(), 0u) << "placement is checked before the kernel is compiled";
  return s.error->message;
}

TEST(DevicePlacement, ArgumentsOnTwoDevicesNameBoth) {
  kiln::JitFunction f = kernel("add");
  std::string e = argumentError(f, {onDevice(0), onDevice(1), onDevice(0), LaunchArg::integer(16),
                                    LaunchArg::integer(16)});
  EXPECT_NE(e.find("kernel 'add': argument 0 ('x') is on cuda:0 but argument 1 ('y') is on cuda:1"),
            std::string::npos)
      << e;
  // A pointer whose device is unknown (-1) runs wherever the others are: not a mismatch by itself.
  e = argumentError(f, {onDevice(-1), onDevice(2), onDevice(3), LaunchArg::integer(16), LaunchArg::integer(16)});
  EXPECT_NE(e.find("argument 1 ('y') is on cuda:2 but argument 2 ('out') is on cuda:3"), std::string::npos) << e;
}

TEST(DevicePlacement, HostMemoryAmongDevicePointersNamesBoth) {
  kiln::JitFunction f = kernel("add");
  std::vector<float> host(16);
  LaunchArg array = LaunchArg::hostBuffer(host.data(), host.size() * sizeof(float), "fp32");
  array.what = "a NumPy array";
  std::string e =
      argumentError(f, {onDevice(1), array, onDevice(1), LaunchArg::integer(16), LaunchArg::integer(16)});
  EXPECT_NE(e.find("argument 1 ('y') is a NumPy array in host memory, but argument 0 ('x') is on the GPU"),
            std::string::npos)
      << e;
}

TEST(DevicePlacement, TupleElementsCountAsArgumentsOfTheirOwn) {
  kiln::JitFunction f = kernel("pair");
  LaunchArg apart[] = {onDevice(0), onDevice(1)};
  std::string e = argumentError(f, {LaunchArg::tuple(apart), onDevice(0)});
  EXPECT_NE(e.find("argument 0 ('xy'), element [0] is on cuda:0 but argument 0 ('xy'), element [1] is on cuda:1"),
            std::string::npos)
      << e;
  LaunchArg together[] = {onDevice(1), onDevice(1)};
  e = argumentError(f, {LaunchArg::tuple(together), onDevice(0)});
  EXPECT_NE(e.find("element [0] is on cuda:1 but argument 1 ('out') is on cuda:0"), std::string::npos) << e;
  std::vector<float> host(16);
  LaunchArg mixed[] = {onDevice(0), LaunchArg::hostBuffer(host.data(), host.size() * sizeof(float), "fp32")};
  e = argumentError(f, {LaunchArg::tuple(mixed), onDevice(0)});
  EXPECT_NE(e.find("argument 0 ('xy'), element [1] is "), std::string::npos) << e;
  EXPECT_NE(e.find("in host memory, but argument 0 ('xy'), element [0] is on the GPU"), std::string::npos) << e;
}

// placement itself: the device it picks.
struct Placement {
  kiln::JitFunction::Impl impl;
  Placement() {
    impl.name = "k";
    for (const char* n : {"a", "b", "t"}) {
      kiln::KernelParameter p;
      p.name = n;
      impl.params.push_back(p);
    }
  }
  int device(std::vector<LaunchArg> args, int optionsDevice) {
    kiln::LaunchOptions o;
    o.device = optionsDevice;
    bool interp = true;
    int device = -2;
    kiln::LaunchStatus s = impl.placement(args, o, interp, device);
    EXPECT_TRUE(s.ok()) << s.error->message;
    return device;
  }
};

TEST(DevicePlacement, TheArgumentsDeviceElseTheOptions) {
  Placement p;
  LaunchArg inner[] = {onDevice(-1), onDevice(2)};
  // The first pointer whose device is known decides, wherever it sits (here inside a tuple).
  EXPECT_EQ(p.device({onDevice(-1), LaunchArg::integer(3), LaunchArg::tuple(inner)}, 0), 2);
  EXPECT_EQ(p.device({onDevice(1), onDevice(-1), onDevice(1)}, 0), 1);
  // No pointer says where it lives (__cuda_array_interface__ memory the driver does not place), or there
  // is no pointer at all: LaunchOptions::device, which the Python binding sets to torch's current device.
  EXPECT_EQ(p.device({onDevice(-1), onDevice(-1), LaunchArg::integer(1)}, 3), 3);
  EXPECT_EQ(p.device({LaunchArg::integer(1), LaunchArg::real(2.0), LaunchArg::integer(3)}, 5), 5);
}

// Two threads launching one function at once, each with its own specialization (fp32 and i32 buffers;
// C++ callers hold no GIL): the variants are created under the function's lock and found again through
// the shared recent-launch table, and each thread gets its own results.
TEST(DevicePlacement, TwoThreadsLaunchingTwoSpecializationsAtOnce) {
  kiln::JitFunction f = kernel("add");
  auto work = [&](const char* dtype, int seed, bool& ok) {
    std::vector<int32_t> x(16), y(16), out(16);
    kiln::LaunchOptions o;
    o.interpret = true;
    ok = true;
    for (int round = 0; round < 40 && ok; ++round) {
      for (int i = 0; i < 16; ++i) {
        const int32_t a = seed + round + i, b = 3 * i;
        if (dtype[0] == 'f') {
          float fa = float(a), fb = float(b);
          std::memcpy(&x[size_t(i)], &fa, 4);
          std::memcpy(&y[size_t(i)], &fb, 4);
        } else {
          x[size_t(i)] = a, y[size_t(i)] = b;
        }
      }
      std::vector<LaunchArg> args = {LaunchArg::hostBuffer(x.data(), 64, dtype),
                                     LaunchArg::hostBuffer(y.data(), 64, dtype),
                                     LaunchArg::hostBuffer(out.data(), 64, dtype), LaunchArg::integer(16),
                                     LaunchArg::integer(16)};
      kiln::LaunchStatus s = f.launch(kiln::Grid{1, 1, 1}, args, o);
      if (!s.ok()) {
        ADD_FAILURE() << s.error->message;
        ok = false;
        break;
      }
      for (int i = 0; i < 16; ++i) {
        const int32_t want = seed + round + i + 3 * i;
        int32_t got = out[size_t(i)];
        if (dtype[0] == 'f') {
          float g;
          std::memcpy(&g, &out[size_t(i)], 4);
          got = int32_t(g);
        }
        if (got != want) ok = false;
      }
    }
  };
  bool floatsOk = false, intsOk = false;
  std::thread floats([&] { work("fp32", 100, floatsOk); });
  std::thread ints([&] { work("i32", 7, intsOk); });
  floats.join();
  ints.join();
  EXPECT_TRUE(floatsOk);
  EXPECT_TRUE(intsOk);
  EXPECT_EQ(f.cacheSize(), 2u);
}

TEST(DevicePlacement, HostMemoryIsNoDevicesMemory) {
  // What the binding asks for a __cuda_array_interface__ pointer: host memory is no device's (-1), with a
  // GPU or without one.
  std::vector<float> host(16);
  EXPECT_EQ(kiln::Runtime().deviceOf(reinterpret_cast<uint64_t>(host.data())), -1);
  EXPECT_EQ(kiln::Runtime().deviceOf(0), -1);
}

}  // namespace
