# The warp_specialize pass on tutorial-style TMA matmuls whose k loop asks for it. On sm_90a at 8 warps
# the loop runs on two partitions: the 8 consumer warps (setmaxnreg up to 232) wait for each slot's
# "full" mbarrier, run the wgmma and, from the second iteration on, arrive on the previous slot's
# "empty" mbarrier where the pipeline had a CTA barrier before its refill; the producer warpgroup
# (setmaxnreg down to 40) issues the prologue's copies, then per iteration waits for the slot's empty
# phase and issues the copies of iteration i + S - 1. The CTA has 12 warps, the epilogue's barriers are
# named barrier 1 of the 256 consumer threads, and the descriptor store still goes through TMA. At 4
# warps the partitions are [4, 4] without register budgets (the launch budget is already the cap). On
# sm_80, and for a loop of pointer loads (cp.async, no TMA), the attribute changes nothing.
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel ws_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(64, 256), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=pipeline,warp_specialize -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: kiln compile %s --kernel ws_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(64, 256), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 4 --num-stages 3 --arch sm_90a --emit ptx --dump-after=warp_specialize -o %t.w4.ptx 2>&1 | FileCheck %s --check-prefix=W4
# RUN: FileCheck %s --check-prefix=W4PTX < %t.w4.ptx
# RUN: %ptxas -arch=sm_90a %t.w4.ptx -o %t.w4.cubin
# RUN: kiln compile %s --kernel ws_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(64, 256), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_80 --emit ptx --dump-after=warp_specialize -o %t.sm80.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel ws_pointers --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 64" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=warp_specialize -o %t.ptr.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# CHECK:      // ----- IR after pipeline -----
# CHECK:      for {{.*}}{warp_specialize = 1}
# CHECK:        barrier
# CHECK-NEXT:   constant
# CHECK:        tma_load
# CHECK:      // ----- IR after warp_specialize -----
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 2}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 2}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 2}
# CHECK:      [[EMPTY:%[0-9]+]] = shared_alloc {pipelined = 1} : shared<1xi64, slots=3
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 256}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 256}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 256}
# CHECK-NEXT: barrier
# CHECK-NOT:  tma_load
# CHECK:      warp_partition {registers = [232, 40], warps = [8, 4]} {
# CHECK-NOT:  tma_load
# CHECK:        for {{.*}}{warp_specialize = 1}
# CHECK:          mbarrier_wait
# CHECK:          mma {{.*}}wgmma = 1
# CHECK-NEXT:     mma_wait {{.*}}{pending = 1}
# CHECK-NEXT:     [[FIRST:%[0-9]+]] = cmp %{{[0-9]+}}, %{{[0-9]+}} {pred = "ne"}
# CHECK-NEXT:     if [[FIRST]] {
# CHECK-NEXT:       [[SLOT:%[0-9]+]] = shared_slot [[EMPTY]], %{{[0-9]+}}
# CHECK-NEXT:       mbarrier_arrive [[SLOT]]
# CHECK-NOT:      barrier
# CHECK-NOT:      tma_load
# CHECK:          yield
# CHECK-NEXT:   }
# CHECK:        mbarrier_wait
# CHECK:        mbarrier_wait
# CHECK:        barrier
# CHECK:        yield
# CHECK-NEXT: } {
# CHECK-NEXT:   tma_load
# CHECK-NEXT:   tma_load
# CHECK-NEXT:   tma_load
# CHECK-NEXT:   tma_load
# CHECK-NEXT:   for
# CHECK-NOT:      tma_load
# CHECK:          shared_slot [[EMPTY]]
# CHECK-NEXT:     mbarrier_wait
# CHECK-NEXT:     tma_load
# CHECK-NEXT:     tma_load
# CHECK-NEXT:     yield
# CHECK-NEXT:   }
# CHECK-NEXT:   yield
# CHECK-NEXT: }
# CHECK-NEXT: return
# PTX:        .maxntid 384, 1, 1
# PTX-NEXT:   .maxnreg 168
# PTX:        setmaxnreg.inc.sync.aligned.u32 232;
# PTX:        mbarrier.try_wait.parity
# PTX:        wgmma.wait_group.sync.aligned 1;
# PTX-NOT:    bar.sync
# PTX:        mbarrier.arrive.shared::cta.b64
# PTX-NOT:    bar.sync 0
# PTX:        bar.sync 1, 256;
# PTX:        cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
# PTX:        setmaxnreg.dec.sync.aligned.u32 40;
# PTX:        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# PTX:        bar.sync 0;
# PTX-NEXT:   ret;
# W4:         // ----- IR after warp_specialize -----
# W4:         mbarrier_init %{{[0-9]+}} {count = 128}
# W4:         warp_partition {warps = [4, 4]} {
# W4PTX:      .maxntid 256, 1, 1
# W4PTX-NOT:  setmaxnreg
# KEEP:       // ----- IR after warp_specialize -----
# KEEP-NOT:   warp_partition
# KEEP:       return
import triton
import triton.language as tl


@triton.jit
def ws_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def ws_pointers(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=True):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))
