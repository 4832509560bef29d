// ContextScope and deviceOf on real GPUs: a scope makes its device's context current and puts the
// thread's previous one back (none included, but for device 0 on a thread that had none), and the driver
// tells which device's memory an address is. Skips with "no CUDA device" where there is none; the parts
// that need a second device skip on a machine with one.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"

namespace kiln::runtime {
namespace {

class Contexts : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    driver_ = CudaDriver::tryOpen(&why);
    if (!driver_) GTEST_SKIP() << "no CUDA device (" << why << ")";
  }
  cu::Context current() const {
    cu::Context c = nullptr;
    driver_->check(driver_->api().ctxGetCurrent(&c), "cuCtxGetCurrent");
    return c;
  }
  void setCurrent(cu::Context c) const { driver_->check(driver_->api().ctxSetCurrent(c), "cuCtxSetCurrent"); }
  // Runs f on a fresh host thread: its current context starts empty and leaks into no other test.
  template <class F>
  void onFreshThread(F f) {
    std::thread(f).join();
  }

  std::shared_ptr<CudaDriver> driver_;
};

TEST_F(Contexts, AThreadWithoutAContextIsLeftOnDeviceZero) {
  onFreshThread([&] {
    setCurrent(nullptr);
    { ContextScope scope(*driver_, 0); }
    driver_->makeCurrent(0);
    const cu::Context zero = current();
    setCurrent(nullptr);
    { ContextScope scope(*driver_, 0); }
    EXPECT_EQ(current(), zero);  // what the CUDA runtime would make current for the thread anyway
  });
}

TEST_F(Contexts, TheCallersContextIsCurrentAgainAfterAScopeOnAnotherDevice) {
  if (driver_->deviceCount() < 2) GTEST_SKIP() << "needs two CUDA devices";
  onFreshThread([&] {
    driver_->makeCurrent(1);
    const cu::Context one = current();
    driver_->makeCurrent(0);
    const cu::Context zero = current();
    ASSERT_NE(zero, one);
    {
      ContextScope scope(*driver_, 1);
      EXPECT_EQ(current(), one);
      DeviceBuffer b(driver_, 1, 256);  // work on device 1 inside the scope
      EXPECT_EQ(driver_->deviceOf(b.ptr()), 1);
    }
    EXPECT_EQ(current(), zero);
    // The launch path's note for this thread is right again: device 0 current, no switch needed.
    EXPECT_FALSE(driver_->makeCurrent(0));
    setCurrent(nullptr);
    { ContextScope scope(*driver_, 1); }
    EXPECT_EQ(current(), nullptr);  // none before, none after
  });
}

TEST_F(Contexts, DeviceOfTellsDeviceMemoryFromHostMemory) {
  onFreshThread([&] {
    for (int d = 0; d < driver_->deviceCount() && d < 2; ++d) {
      DeviceBuffer b(driver_, d, 1024);
      EXPECT_EQ(driver_->deviceOf(b.ptr()), d);
      EXPECT_EQ(driver_->deviceOf(b.ptr() + 512), d);  // inside the allocation too
    }
    std::vector<float> host(256);
    EXPECT_EQ(driver_->deviceOf(reinterpret_cast<cu::DevicePtr>(host.data())), -1);
    EXPECT_EQ(driver_->deviceOf(0), -1);
  });
}

}  // namespace
}  // namespace kiln::runtime
