// The GPU IR schedule ops in the CTA simulator: local_store/local_load and async_copy move the right
// elements between layouts, and the barriers insert_barriers places are the ones that make the code
// race-free: the same code without the pass (or with one of its barriers removed) races.
#include <gtest/gtest.h>

#include "layout/named_layouts.h"
#include "ops_test_util.h"
#include "schedule/schedule.h"

namespace kiln::lower::test {
namespace {

constexpr int kWarps = 2;

// Thread t holds elements 4t..4t+3 (and repeats) in one, t, t + 64, ... in the other: every element
// changes threads between them.
Layouts tileLayouts() {
  return {{"A", layout::defaultBlocked({256}, kWarps, 4, {0})}, {"B", layout::defaultBlocked({256}, kWarps, 1, {0})}};
}

// y = x through a shared buffer: written in layout A, read back in layout B.
const char* kStoreLoad = R"(
func @k(%x: ptr<f32>, %y: ptr<f32>) {
  %buf = shared_alloc : shared<256xf32>
  %offs = arange {end = 256, start = 0} : tensor<256xi32, #A>
  %xs = splat %x : tensor<256xptr<f32>, #A>
  %xp = ptr_add %xs, %offs : tensor<256xptr<f32>, #A>
  %v = load %xp : tensor<256xf32, #A>
  local_store %buf, %v
  %w = local_load %buf : tensor<256xf32, #B>
  %offs2 = arange {end = 256, start = 0} : tensor<256xi32, #B>
  %ys = splat %y : tensor<256xptr<f32>, #B>
  %yp = ptr_add %ys, %offs2 : tensor<256xptr<f32>, #B>
  store %yp, %w
  return
}
)";

// Parses, runs the schedule passes named in `passes`, emits PTX for sm_80.
std::string schedule(const std::string& text, const std::vector<std::string>& passes) {
  auto m = parseGpu(text, tileLayouts());
  ir::Function& f = *m->functions.at(0);
  schedule::GpuContext ctx{ptx::kSm80, kWarps};
  for (const std::string& p : passes) EXPECT_TRUE(schedule::runGpuPass(p, f, ctx)) << p;
  EntryInfo info;
  std::string ptx = emitPtx(f, ptx::kSm80, kWarps, info);
  return ptx;
}

std::string run(const std::string& ptx, const Bytes& x, Bytes* y) {
  CtaSim sim(ptx, kWarps * 32, 16 * 1024);
  sim.setParam("k_x", sim.addBuffer(x));
  uint64_t out = sim.addBuffer(Bytes(x.size(), 0));
  sim.setParam("k_y", out);
  std::string err = sim.run();
  *y = sim.buffer(out);
  return err;
}

TEST(ScheduleSim, LocalStoreThenLoadNeedsTheBarrierInsertBarriersPlaces) {
  const Bytes x = randomElems(ir::Scalar::F32, 256, 7);
  Bytes y;
  const std::string ptx = schedule(kStoreLoad, {"allocate_shared", "insert_barriers"});
  EXPECT_EQ(count(ptx, "bar.sync 0;"), 1) << ptx;
  ASSERT_EQ(run(ptx, x, &y), "") << ptx;
  EXPECT_EQ(y, x);
  // Without the pass the rows written by one thread are read by another with nothing between.
  const std::string racy = schedule(kStoreLoad, {"allocate_shared"});
  EXPECT_EQ(count(racy, "bar.sync"), 0);
  EXPECT_NE(run(racy, x, &y).find("another thread wrote since the last barrier"), std::string::npos);
}

// The same through cp.async: the copies land at async_wait, and the barrier after it makes them visible.
const char* kAsyncCopy = R"(
func @k(%x: ptr<f32>, %y: ptr<f32>) {
  %buf = shared_alloc : shared<256xf32, slots=2>
  %one = constant {value = 1} : i32
  %slot = shared_slot %buf, %one : shared<256xf32>
  %offs = arange {end = 256, start = 0} : tensor<256xi32, #A>
  %xs = splat %x : tensor<256xptr<f32>, #A>
  %xp = ptr_add %xs, %offs : tensor<256xptr<f32>, #A>
  async_copy %slot, %xp
  async_commit
  async_wait {pending = 0}
  %w = local_load %slot : tensor<256xf32, #B>
  %offs2 = arange {end = 256, start = 0} : tensor<256xi32, #B>
  %ys = splat %y : tensor<256xptr<f32>, #B>
  %yp = ptr_add %ys, %offs2 : tensor<256xptr<f32>, #B>
  store %yp, %w
  return
}
)";

TEST(ScheduleSim, AsyncCopyIsVisibleAfterWaitAndBarrier) {
  const Bytes x = randomElems(ir::Scalar::F32, 256, 8);
  Bytes y;
  const std::string ptx = schedule(kAsyncCopy, {"allocate_shared", "insert_barriers"});
  EXPECT_EQ(count(ptx, "cp.async.wait_group 0;"), 1) << ptx;
  EXPECT_EQ(count(ptx, "bar.sync 0;"), 1) << ptx;
  ASSERT_EQ(run(ptx, x, &y), "") << ptx;
  EXPECT_EQ(y, x);
  const std::string racy = schedule(kAsyncCopy, {"allocate_shared"});
  EXPECT_NE(run(racy, x, &y), "");
}

}  // namespace
}  // namespace kiln::lower::test
