# The pipeline pass takes a load whose address slice holds a layout conversion. Two descriptor loads of
# different row counts share the column index `k * BK + arange(BK)`; at 8 warps layout assignment gives
# it one layout for A's 128 rows and another for B's 256, so A's address and mask read it through
# convert_layouts. On sm_80 they are lowered again for the iteration being fetched, and both operands
# are copied ahead into slots with cp.async. B, loaded K-contiguous and transposed before its dot
# (`b.T`), keeps the slot as loaded and the dot reads it through a shared_permute view. On sm_90a both
# are copied by TMA instead: a tensor map each at the entry, mbarriers per slot expecting both copies,
# no address computed in the loop, and wgmma reads B K-major (no transpose flag).
# RUN: kiln compile %s --kernel tma_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(256, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_80 --emit ptx --dump-after=assign_layouts,pipeline -o %t.ptx 2>&1 | FileCheck %s
# CHECK:      // ----- IR after assign_layouts -----
# CHECK:      for
# CHECK:      convert_layout {{.*}} : tensor<1x64xi32
# CHECK:      load {{.*}}block = "tensor_descriptor"{{.*}} : tensor<128x64xf16
# CHECK:      // ----- IR after pipeline -----
# CHECK:      shared_alloc {{.*}}pipelined = 1
# CHECK:      shared_alloc {{.*}}pipelined = 1{{.*}} : shared<256x64xf16
# CHECK:      async_copy
# CHECK:      async_copy
# CHECK:      for
# CHECK:      shared_permute %{{[0-9]+}} {order = [1, 0]} : shared<64x256xf16
# CHECK:      convert_layout {{.*}} : tensor<1x64xi32
# CHECK:      async_copy
# CHECK:      async_copy
# RUN: kiln compile %s --kernel tma_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(256, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=pipeline -o %t90.ptx 2>&1 | FileCheck %s --check-prefix=TMA
# RUN: FileCheck %s --check-prefix=TMAPTX < %t90.ptx
# RUN: FileCheck %s --check-prefix=WGMMA < %t90.ptx
# TMA:        // ----- IR after pipeline -----
# TMA:        tensor_map %a_desc.0, %a_desc.1.0, %a_desc.1.1, %a_desc.2.0, %{{[0-9]+}} {box = [128, 64], index = 0, swizzle = 128}
# TMA:        tensor_map %b_desc.0, %b_desc.1.0, %b_desc.1.1, %b_desc.2.0, %{{[0-9]+}} {box = [256, 64], index = 1, swizzle = 128}
# TMA:        shared_alloc {{.*}}pipelined = 1{{.*}} : shared<1xi64, slots=3
# TMA-COUNT-3: mbarrier_init %{{[0-9]+}} {count = 2}
# TMA:        tma_load {{.*}} {map = 0
# TMA:        tma_load {{.*}} {map = 1
# TMA:        tma_load {{.*}} {map = 0
# TMA:        tma_load {{.*}} {map = 1
# TMA:        for
# TMA-NOT:    async_copy
# TMA:        mbarrier_wait
# TMA:        shared_permute %{{[0-9]+}} {order = [1, 0]} : shared<64x256xf16
# TMA:        mma {{.*}}wgmma = 1
# TMA:        tma_load {{.*}} {map = 0
# TMA:        tma_load {{.*}} {map = 1
# TMA:        yield
# TMA-COUNT-2: mbarrier_wait
# TMAPTX:     .param .align 128 .b8 tma_matmul_tmap0[128]
# TMAPTX:     .param .align 128 .b8 tma_matmul_tmap1[128]
# TMAPTX-COUNT-6: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# WGMMA:      wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, 1, 1, 0, 0;
import triton
import triton.language as tl


@triton.jit
def tma_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
