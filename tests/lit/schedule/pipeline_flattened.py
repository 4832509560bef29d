# A persistent matmul's tile loop with flatten=True (tutorial 09's shape): the flatten pass makes one loop
# over every (tile, k) pair, and on sm_90a the pipeline copies A and B^T (read through a shared_permute
# view, K-major) by TMA across tile boundaries. The wgmma group stays in flight between iterations
# (mma_wait {pending = 1}); the accumulator restarts at each tile's first k step through mma's use_acc
# operand (wgmma's scale-d predicate) instead of a select over the tile, and the epilogue, under an
# `if` at each tile's last k step, waits for the group (mma_wait {pending = 0}) before it reads it.
# RUN: kiln compile %s --kernel persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, 128, 128, 64, 132" --num-warps 4 --num-stages 3 --arch sm_90a --emit ptx --dump-after=pipeline -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# CHECK:      // ----- IR after pipeline -----
# CHECK:      tensor_map %a_ptr
# CHECK:      tensor_map %bt_ptr
# CHECK:      for
# CHECK:      mbarrier_wait
# CHECK-NOT:  select {{.*}} : tensor<128x128xf32
# CHECK:      shared_permute %{{[0-9]+}} {order = [1, 0]}
# CHECK-NOT:  select {{.*}} : tensor<128x128xf32
# CHECK:      [[FIRST:%[0-9]+]] = cmp %{{[0-9]+}}, %{{[0-9]+}} {pred = "eq"} : i1
# CHECK:      [[USE:%[0-9]+]] = xor [[FIRST]], %{{[0-9]+}} : i1
# CHECK-NEXT: [[ACC:%[0-9]+]] = mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, [[USE]] {warps = [4, 1], wgmma = 1}
# CHECK-NEXT: mma_wait {pending = 1}
# CHECK-NEXT: barrier
# CHECK:      if
# CHECK-NEXT: mma_wait [[ACC]] {pending = 0}
# CHECK:      store
# CHECK:      tma_load
# CHECK:      tma_load
# CHECK:      yield
# PTX:        wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, %p{{[0-9]+}}, 1, 1, 0, 0;
import triton
import triton.language as tl


@triton.jit
def persistent(a_ptr, bt_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               NUM_SMS: tl.constexpr):
    num_pid_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * num_pid_n
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bt_desc = tl.make_tensor_descriptor(bt_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True):
        pid_m = tile_id // num_pid_n
        pid_n = tile_id % num_pid_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(tl.cdiv(K, BK)):
            a = a_desc.load([pid_m * BM, ki * BK])
            bt = bt_desc.load([pid_n * BN, ki * BK])
            acc = tl.dot(a, bt.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
