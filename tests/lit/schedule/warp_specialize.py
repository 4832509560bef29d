# Warp specialization of TMA matmul loops that ask for it (`tl.range(..., warp_specialize=True)`).
# The pipeline gives such a loop its warp-specialized form: no prologue copies and no drain, an "empty"
# mbarrier per slot (one arrival per warp) beside the "full" ones; each iteration waits for its slot's
# empty phase of the previous round (parity flipped), copies its own tiles, waits for them, runs the
# wgmma and, from the second iteration on, releases the previous slot (once per warp); after the loop
# the last slot is released when the loop ran. warp_specialize then runs it on two partitions: the 8
# consumer warps (setmaxnreg 232) keep everything but the copies and the empty waits, the producer
# warpgroup (setmaxnreg 40, then its first warp alone: lead_warp) a copy of the loop carrying only slot
# and phase. The CTA has 12 warps, the
# consumers' barriers are named barrier 1 of their 256 threads, and the store still goes through TMA.
# In tutorial 09's persistent kernel the tile loop asks for it: both partitions keep the tile loop, the
# slot and phase run on across tiles (carried by it), so the producer loads the next tile while the
# consumers store this one. At 4 warps the partitions are [4, 4] without register budgets; on sm_80,
# and for a loop of pointer loads (cp.async), the attribute changes nothing.
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel ws_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(64, 256), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=pipeline,warp_specialize -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: kiln compile %s --kernel ws_persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 8, 132, True" --num-warps 8 --num-stages 4 --arch sm_90a --emit ptx --dump-after=warp_specialize -o %t.pers.ptx 2>&1 | FileCheck %s --check-prefix=PERS
# RUN: %ptxas -arch=sm_90a %t.pers.ptx -o %t.pers.cubin
# RUN: kiln compile %s --kernel ws_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(64, 256), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 4 --num-stages 3 --arch sm_90a --emit ptx --dump-after=warp_specialize -o %t.w4.ptx 2>&1 | FileCheck %s --check-prefix=W4
# RUN: FileCheck %s --check-prefix=W4PTX < %t.w4.ptx
# RUN: %ptxas -arch=sm_90a %t.w4.ptx -o %t.w4.cubin
# RUN: kiln compile %s --kernel ws_matmul --signature "TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 64), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(64, 256), padding='zero'), TensorDescriptor(base=*fp16:16, shape=(i32:16, i32:16), strides=(i32:16, 1), block_shape=(128, 256), padding='zero'), i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_80 --emit ptx --dump-after=warp_specialize -o %t.sm80.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# The compile option (kiln.Config(warp_specialize=True), --warp-specialize) picks the same loop nest when
# no loop asks; without it the same kernel keeps one partition-free schedule.
# RUN: kiln compile %s --kernel ws_persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 8, 132, False" --num-warps 8 --num-stages 4 --arch sm_90a --emit ptx --warp-specialize --dump-after=warp_specialize -o %t.opt.ptx 2>&1 | FileCheck %s --check-prefix=PERS
# RUN: %ptxas -arch=sm_90a %t.opt.ptx -o %t.opt.cubin
# RUN: kiln compile %s --kernel ws_persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 8, 132, False" --num-warps 8 --num-stages 4 --arch sm_90a --emit ptx --dump-after=warp_specialize -o %t.plain.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel ws_pointers --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 64" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=warp_specialize -o %t.ptr.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# CHECK:      // ----- IR after pipeline -----
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 2}
# CHECK:      [[EMPTY:%[0-9]+]] = shared_alloc {pipelined = 1} : shared<1xi64, slots=3
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 8}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 8}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 8}
# CHECK-NEXT: barrier
# CHECK-NOT:  tma_load
# CHECK:      for {{.*}}{warp_specialize = 1}
# CHECK-NEXT: ^(%{{[0-9]+}}: i32, %{{[0-9]+}}: tensor<{{.*}}>, [[SLOT:%[0-9]+]]: i32, [[PHASE:%[0-9]+]]: i32):
# CHECK:        [[BEFORE:%[0-9]+]] = xor [[PHASE]], %{{[0-9]+}}
# CHECK-NEXT:   [[E:%[0-9]+]] = shared_slot [[EMPTY]], [[SLOT]]
# CHECK-NEXT:   mbarrier_wait [[E]], [[BEFORE]]
# CHECK:        tma_load
# CHECK:        tma_load
# CHECK:        mbarrier_wait %{{[0-9]+}}, [[PHASE]]
# CHECK:        mma {{.*}}wgmma = 1
# CHECK-NEXT:   mma_wait {pending = 1}
# CHECK-NEXT:   cmp {{.*}} {pred = "ne"}
# CHECK-NEXT:   if
# CHECK-NEXT:     shared_slot [[EMPTY]]
# CHECK-NEXT:     mbarrier_arrive %{{[0-9]+}} {per_warp = 1}
# CHECK-NOT:    barrier
# CHECK:        yield %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}
# CHECK-NEXT: }
# CHECK-NEXT: mma_wait %{{[0-9]+}} {pending = 0}
# CHECK-NEXT: cmp {{.*}} {pred = "lt"}
# CHECK-NEXT: if
# CHECK:        mbarrier_arrive %{{[0-9]+}} {per_warp = 1}
# CHECK:      // ----- IR after warp_specialize -----
# CHECK:      barrier
# CHECK-NOT:  tma_load
# CHECK:      warp_partition {lead_warp = [0, 1], registers = [232, 40], warps = [8, 4]} {
# CHECK-NOT:  tma_load
# CHECK:        for {{.*}}{warp_specialize = 1}
# CHECK-NOT:      shared_slot [[EMPTY]], %{{[0-9]+}} :{{.*}}
# CHECK:          mbarrier_wait
# CHECK-NEXT:     constant
# CHECK:          mma {{.*}}wgmma = 1
# CHECK-NOT:    tma_load
# CHECK:        store {{.*}}tma = 2
# CHECK:        yield
# CHECK-NEXT: } {
# CHECK-NEXT:   for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32 {
# CHECK-NOT:      mma
# CHECK:          mbarrier_wait
# CHECK:          tma_load
# CHECK:          tma_load
# CHECK:          yield
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
# PTX:        bar.warp.sync -1;
# PTX-NEXT:   setp.eq.u32 [[LANE0:%p[0-9]+]], %r{{[0-9]+}}, 0;
# PTX-NEXT:   @[[LANE0]] mbarrier.arrive.shared::cta.b64
# PTX-NOT:    bar.sync 0
# PTX:        bar.sync 1, 256;
# PTX:        cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
# PTX:        setmaxnreg.dec.sync.aligned.u32 40;
# PTX-NEXT:   setp.ne.u32 [[REST:%p[0-9]+]], %r{{[0-9]+}}, 8;
# PTX-NEXT:   @[[REST]] bra.uni $L{{[0-9]+}}_partition_end;
# PTX:        mbarrier.try_wait.parity
# PTX:        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# PTX:        bar.sync 0;
# PTX-NEXT:   ret;
# PERS:       // ----- IR after warp_specialize -----
# PERS:       warp_partition {lead_warp = [0, 1], registers = [232, 40], warps = [8, 4]} {
# PERS:         for {{.*}}{flatten = 1, warp_specialize = 1}
# PERS:           for
# PERS:             mma {{.*}}wgmma = 1
# PERS:           mma_wait {{.*}}{pending = 0}
# PERS:           mbarrier_arrive %{{[0-9]+}} {per_warp = 1}
# PERS:           store {{.*}}tma = 2
# PERS:       } {
# PERS-NEXT:    %{{[0-9]+}}, %{{[0-9]+}} = for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32 {
# PERS:           for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32 {
# PERS:             mbarrier_wait
# PERS:             tma_load
# PERS:             tma_load
# PERS:             yield %{{[0-9]+}}, %{{[0-9]+}}
# PERS-NEXT:      }
# PERS:           yield
# PERS-NEXT:    }
# PERS-NEXT:    yield
# PERS-NEXT:  }
# W4:         // ----- IR after warp_specialize -----
# W4:         mbarrier_init %{{[0-9]+}} {count = 4}
# W4:         warp_partition {lead_warp = [0, 1], warps = [4, 4]} {
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


@triton.jit
def ws_persistent(a_ptr, bt_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  GROUP: tl.constexpr, NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bt_desc = tl.make_tensor_descriptor(bt_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m = tile_id // num_pid_n
        pid_n = tile_id % num_pid_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            a = a_desc.load([pid_m * BM, k * BK])
            bt = bt_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, bt.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
