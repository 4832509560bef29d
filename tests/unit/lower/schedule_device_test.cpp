// The GPU IR schedule ops on the GPU (skipped without one): warp partitions handing data over through
// an mbarrier (also in the CTA simulator, which runs the partitions as separate groups of warps,
// ops_sim_groups.h), and what the simulator runs elsewhere, checked on the hardware too.
#include <gtest/gtest.h>

#include <numeric>

#include "../ptx/cuda_test_driver.h"
#include "codegen_test_util.h"
#include "ops_sim.h"
#include "schedule/schedule.h"

namespace kiln::lower::test {
namespace {

using ptx::test::CudaDriver;

// Parses, places buffers and barriers, and emits for sm_90a with `warps` warps.
std::string scheduled(const std::string& text, int warps, EntryInfo& info) {
  auto m = parseGpu(text);
  ir::Function& f = *m->functions.at(0);
  const schedule::GpuContext ctx{ptx::kSm90a, warps};
  schedule::allocateShared(f, ctx);
  schedule::insertBarriers(f, ctx);
  return emitPtx(f, ptx::kSm90a, warps, info);
}

// Runs the entry `name` of `ptx` on one CTA with `y` as its only argument; returns y.
std::vector<int32_t> runOnGpu(CudaDriver& cuda, const std::string& ptx, const EntryInfo& info, size_t n) {
  std::string log;
  void* mod = cuda.load(ptx, log);
  std::vector<int32_t> y(n, -1);
  CudaDriver::CUdeviceptr dy = cuda.alloc(n * 4);
  cuda.upload(dy, y.data(), n * 4);
  cuda.launch(cuda.function(mod, info.name), 1, unsigned(info.numWarps * 32), {&dy}, unsigned(info.sharedBytes));
  cuda.download(y.data(), dy, n * 4);
  cuda.free(dy);
  cuda.unload(mod);
  return y;
}

// Warps 0-3 write 0..511 into a shared buffer in one layout and arrive on an mbarrier; warps 4-7 wait
// for its phase 0 and read the buffer in another layout: every element crosses warps, and only the
// mbarrier orders the write before the read.
const char* kHandOver = R"(
func @hand_over(%y: ptr<i32>) {
  %bar = shared_alloc : shared<1xi64>
  %buf = shared_alloc : shared<512xi32>
  mbarrier_init %bar {count = 128}
  warp_partition {warps = [4, 4]} {
    %v = arange {end = 512, start = 0} : tensor<512xi32, {register=[[1],[2]], lane=[[4],[8],[16],[32],[64]], warp=[[128],[256]]} -> [dim0=512]>
    local_store %buf, %v
    mbarrier_arrive %bar
    yield
  } {
    %ph = constant {value = 0} : i32
    mbarrier_wait %bar, %ph
    %w = local_load %buf : tensor<512xi32, {register=[[128],[256]], lane=[[1],[2],[4],[8],[16]], warp=[[32],[64]]} -> [dim0=512]>
    %o = arange {end = 512, start = 0} : tensor<512xi32, {register=[[128],[256]], lane=[[1],[2],[4],[8],[16]], warp=[[32],[64]]} -> [dim0=512]>
    %ys = splat %y : tensor<512xptr<i32>, {register=[[128],[256]], lane=[[1],[2],[4],[8],[16]], warp=[[32],[64]]} -> [dim0=512]>
    %yp = ptr_add %ys, %o : tensor<512xptr<i32>, {register=[[128],[256]], lane=[[1],[2],[4],[8],[16]], warp=[[32],[64]]} -> [dim0=512]>
    store %yp, %w
    yield
  }
  return
}
)";

TEST(ScheduleDevice, WarpPartitionsHandOverThroughAnMbarrier) {
  EntryInfo info;
  const std::string ptx = scheduled(kHandOver, 8, info);
  EXPECT_EQ(count(ptx, "bar.sync 0;"), 2) << ptx;  // after mbarrier_init, and after the partitions
  if (havePtxas()) EXPECT_EQ(assembleProblems(ptx, "sm_90a"), "");
  std::vector<int32_t> want(512);
  std::iota(want.begin(), want.end(), 0);
  // In the simulator: the reader's group blocks on the mbarrier until the writers arrive; without the
  // arrival nothing can complete the phase.
  auto simulate = [&](const std::string& p, std::vector<int32_t>* y) {
    CtaSim sim(p, info.numWarps * 32, info.sharedBytes);
    const uint64_t at = sim.addBuffer(std::vector<uint8_t>(512 * 4, 0xFF));
    sim.setParam("hand_over_y", at);
    const std::string verdict = sim.run();
    std::memcpy(y->data(), sim.buffer(at).data(), 512 * 4);
    return verdict;
  };
  std::vector<int32_t> simulated(512);
  ASSERT_EQ(simulate(ptx, &simulated), "") << ptx;
  EXPECT_EQ(simulated, want);
  std::string noArrive = ptx;
  const size_t arrive = noArrive.find("mbarrier.arrive");
  ASSERT_NE(arrive, std::string::npos);
  noArrive.erase(arrive, noArrive.find('\n', arrive) - arrive);
  EXPECT_NE(simulate(noArrive, &simulated).find("deadlock"), std::string::npos);
  CudaDriver* cuda = CudaDriver::get();
  if (!cuda) GTEST_SKIP() << "no GPU";
  if (cuda->sm() < 90) GTEST_SKIP() << "sm_90a kernel";
  for (int round = 0; round < 20; ++round)  // a missing order shows up as stale data now and then
    ASSERT_EQ(runOnGpu(*cuda, ptx, info, 512), want) << ptx;
}

// mma with both operands read from shared memory (ldmatrix): ones @ ones over k = 16 gives 16.
const char* kMmaShared = R"(
func @mma_shared(%y: ptr<i32>) {
  %sa = shared_alloc : shared<16x16xf16>
  %one = constant {value = 1.0} : tensor<16x16xf16, {register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]>
  local_store %sa, %one
  %zero = constant {value = 0.0} : tensor<16x16xf32, {register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]>
  %d = mma %sa, %sa, %zero : tensor<16x16xf32, {register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]>
  %e = mma_wait %d {pending = 0} : tensor<16x16xf32, {register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]>
  %i = cast %e : tensor<16x16xi32, {register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]>
  %flat = reshape %i : tensor<256xi32, {register=[[1],[128],[8]], lane=[[2],[4],[16],[32],[64]], warp=[]} -> [dim0=256]>
  %o = arange {end = 256, start = 0} : tensor<256xi32, {register=[[1],[128],[8]], lane=[[2],[4],[16],[32],[64]], warp=[]} -> [dim0=256]>
  %ys = splat %y : tensor<256xptr<i32>, {register=[[1],[128],[8]], lane=[[2],[4],[16],[32],[64]], warp=[]} -> [dim0=256]>
  %yp = ptr_add %ys, %o : tensor<256xptr<i32>, {register=[[1],[128],[8]], lane=[[2],[4],[16],[32],[64]], warp=[]} -> [dim0=256]>
  store %yp, %flat
  return
}
)";

TEST(ScheduleDevice, MmaReadsItsOperandsFromSharedMemory) {
  EntryInfo info;
  const std::string ptx = scheduled(kMmaShared, 1, info);
  EXPECT_EQ(count(ptx, "ldmatrix"), 2) << ptx;
  EXPECT_EQ(count(ptx, "bar.sync 0;"), 1) << ptx;  // between the stores and the ldmatrix reads
  if (havePtxas()) EXPECT_EQ(assembleProblems(ptx, "sm_90a"), "");
  CudaDriver* cuda = CudaDriver::get();
  if (!cuda) GTEST_SKIP() << "no GPU";
  if (cuda->sm() < 90) GTEST_SKIP() << "sm_90a kernel";
  EXPECT_EQ(runOnGpu(*cuda, ptx, info, 256), std::vector<int32_t>(256, 16)) << ptx;
}

}  // namespace
}  // namespace kiln::lower::test
