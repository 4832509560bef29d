// A tensor map travelling as a launch argument, end to end: a hand-written sm_90a kernel that takes its
// map after its four runtime parameters (as kiln's code generator declares it) and copies one TMA box of a
// 5 x 12 i32 matrix (rows 16 elements apart) to global memory; the map comes from TensorMapArgs (the
// launcher's reader and encoder) and follows the parameters in kernelParams. The box (8 x 16) runs past
// the matrix, whose outside must read as zeros. The PTX is assembled here; it runs where there is a GPU
// with TMA (DeviceTensorMapLaunch, skipped elsewhere).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "driver/tensor_map_args.h"
#include "runtime/cubin.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/launch.h"

namespace kiln {
namespace {

constexpr const char* kTmaTilePtx = R"(.version 9.0
.target sm_90a
.address_size 64

.visible .entry tma_tile(
    .param .u64 tma_tile_a,
    .param .u64 tma_tile_out,
    .param .u32 tma_tile_rows,
    .param .u32 tma_tile_stride,
    .param .align 128 .b8 tma_tile_tmap0[128])
.reqntid 128, 1, 1
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<7>;
    .shared .align 128 .b8 tile[512];
    .shared .align 8 .b64 bar;

    mov.u32 %r1, %tid.x;
    mov.u32 %r2, tile;
    mov.u32 %r3, bar;
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra SYNC;
    mbarrier.init.shared::cta.b64 [%r3], 1;
    fence.mbarrier_init.release.cluster;
SYNC:
    bar.sync 0;
    @!%p1 bra WAIT;
    mov.u64 %rd1, tma_tile_tmap0;
    cvta.param.u64 %rd2, %rd1;
    mov.u32 %r4, 0;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 512;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd2, {%r4, %r4}], [%r3];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
    @!%p2 bra WAIT;
    shl.b32 %r5, %r1, 2;
    add.u32 %r6, %r2, %r5;
    ld.shared.u32 %r7, [%r6];
    ld.param.u64 %rd3, [tma_tile_out];
    cvta.to.global.u64 %rd4, %rd3;
    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r7;
    ret;
}
)";

// The map tma_tile reads: i32 elements over parameter 0, shape (rows, 12), strides (stride, 1), box 8 x 16.
TensorMapSpec tileSpec() {
  TensorMapSpec s;
  s.elem = ir::Scalar::I32;
  s.base = {0, 0};
  s.shape = {{2, 0}, {-1, 12}};
  s.strides = {{3, 0}, {-1, 1}};
  s.box = {8, 16};
  return s;
}

const std::vector<Param> kParams = {
    {"a", "ptr<i32>", true}, {"out", "ptr<i32>", true}, {"rows", "i32", false}, {"stride", "i32", false}};
const std::vector<std::string> kWhere = {"argument 0 ('a')", "argument 1 ('out')", "argument 2 ('rows')",
                                         "argument 3 ('stride')"};

TEST(TensorMapLaunch, KernelAssembles) {
  try {
    runtime::Cubin cubin = runtime::compileToCubin(kTmaTilePtx, "sm_90a");
    EXPECT_FALSE(cubin.image.empty());
  } catch (const runtime::CudaError& e) {
    if (e.kind() == runtime::CudaError::Kind::CompileFailed) FAIL() << e.what();
    GTEST_SKIP() << e.what();  // no assembler on this machine
  }
}

TEST(DeviceTensorMapLaunch, BoxPastTheEndReadsZeros) {
  std::string whyNot;
  std::shared_ptr<runtime::CudaDriver> driver = runtime::CudaDriver::tryOpen(&whyNot);
  if (!driver) GTEST_SKIP() << whyNot;
  if (driver->device(0).computeMajor < 9) GTEST_SKIP() << driver->device(0).name << " has no TMA";
  std::unique_ptr<runtime::LoadedKernel> kernel = runtime::LoadedKernel::fromPtx(driver, 0, kTmaTilePtx, "tma_tile");
  std::unique_ptr<TensorMapArgs> maps = TensorMapArgs::bind({tileSpec()}, kParams, whyNot);
  ASSERT_TRUE(maps) << whyNot;

  constexpr int kStride = 16;
  std::vector<int32_t> host(5 * kStride, -7);  // the padding columns hold -7: outside the 12-wide matrix
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 12; ++c) host[size_t(r * kStride + c)] = 100 * r + c + 1;
  runtime::DeviceBuffer a(driver, 0, host.size() * 4), out(driver, 0, 128 * 4);
  a.upload(host);

  for (int32_t rows : {5, 3, 3}) {
    out.upload(std::vector<int32_t>(128, -1));  // poison
    uint64_t slots[4] = {a.ptr(), out.ptr(), uint32_t(rows), uint32_t(kStride)};
    void* params[4] = {&slots[0], &slots[1], &slots[2], &slots[3]};
    runtime::cu::TensorMap map[1];
    ASSERT_EQ(maps->fill(params, kWhere, TensorMapArgs::encodeOn(*driver, 0), map), std::nullopt);
    runtime::launch(*kernel, {1, 1, 1}, 128, 0, nullptr, {params[0], params[1], params[2], params[3], &map[0]});
    driver->synchronize(0);
    std::vector<int32_t> got = out.download<int32_t>(128);
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 16; ++c)
        EXPECT_EQ(got[size_t(r * 16 + c)], r < rows && c < 12 ? 100 * r + c + 1 : 0)
            << "rows " << rows << ", element (" << r << ", " << c << ")";
  }
  EXPECT_EQ(maps->encodes(), 2u);  // the third launch repeated the second's values
}

}  // namespace
}  // namespace kiln
