# TMA for pointer-built tiles from per-batch and per-head bases (sm_90a): a uniform offset times a
# stride parameter that no dim of the tile has (`a_ptr + pid_b * stride_ab`, attention's
# `K + off_h.to(tl.int64) * stride_kh`) is a dim of its own in the tensor map, before the tile's, with a
# box of one element at that coordinate and no bound (2^31 - 1): rank 3 for the batched matmul, rank 4
# for attention's [Z, H, N_CTX, HEAD_DIM]. 64-bit offsets are taken where they are 32-bit values
# sign-extended (the coordinate is the 32-bit value); a 64-bit stride parameter is not (no coordinate).
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel bmm --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s
# RUN: kiln compile %s --kernel bmm --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=CHECKED
# RUN: kiln compile %s --kernel bmm --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i64, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=WIDE
# RUN: kiln compile %s --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32, fp32, 64, 128, 128" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=pipeline,pingpong -o %t.ptx 2>&1 | FileCheck %s --check-prefix=HEADS
# RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# A's batch stride is a 32-bit product (pid_b * stride_ab), B's a 64-bit one: both a first dim of
# one element at coordinate pid_b, checked >= 0 with the strides before the loop.
# CHECK:      // ----- IR after pipeline -----
# CHECK:      [[UNBOUNDED:%[0-9]+]] = constant {value = 2147483647} : i64
# CHECK:      tensor_map %a_ptr, [[UNBOUNDED]], %M, %K, %stride_ab, %stride_am, %{{[0-9]+}} {box = [1, 64, 64], guarded = 1, index = 0, swizzle = 128}
# CHECK:      tensor_map %b_ptr, %{{[0-9]+}}, %K, %N, %stride_bb, %stride_bk, %{{[0-9]+}} {box = [1, 64, 64], guarded = 1, index = 1, swizzle = 128}
# CHECK:      [[PID:%[0-9]+]] = program_id {axis = 2}
# CHECK:      cmp [[PID]], %{{[0-9]+}} {pred = "ge"}
# CHECK:      = if
# CHECK:      tma_load %{{[0-9]+}}, %{{[0-9]+}}, [[PID]], %{{[0-9]+}}, %{{[0-9]+}} {map = 0}
# CHECK:      tma_load %{{[0-9]+}}, %{{[0-9]+}}, [[PID]], %{{[0-9]+}}, %{{[0-9]+}} {map = 1}
# CHECK:      async_copy
# A batch stride not proven a multiple of 16 bytes is checked at run time, as a row stride is.
# CHECKED:    // ----- IR after pipeline -----
# CHECKED:    tensor_map %a_ptr, {{.*}}, %stride_ab, %stride_am, {{.*}} {box = [1, 64, 64]
# CHECKED:    and %stride_ab, %{{[0-9]+}} : i32
# CHECKED:    = if
# CHECKED:    tma_load
# WIDE:       // ----- IR after pipeline -----
# WIDE-NOT:   tensor_map
# WIDE-NOT:   tma_load
# WIDE:       async_copy
# Attention with per-head bases: K and V through rank-4 maps (coordinates off_z, off_h, key, 0; K's
# copied with its dims swapped, HEAD_DIM contiguous). In the TMA version the two warpgroups still take
# turns (pingpong): the pipeline's full barriers stay, "empty" ones join them, and no CTA barrier is
# left in the loop; the cp.async version keeps its own.
# HEADS:      // ----- IR after pipeline -----
# HEADS:      tensor_map %K, %{{[0-9]+}}, %{{[0-9]+}}, %N_CTX, %{{[0-9]+}}, %stride_kz, %stride_kh, %stride_kn, %{{[0-9]+}} {box = [1, 1, 128, 64], guarded = 1, index = 0, swizzle = 128}
# HEADS:      tensor_map %V, %{{[0-9]+}}, %{{[0-9]+}}, %N_CTX, %{{[0-9]+}}, %stride_vz, %stride_vh, %stride_kn, %{{[0-9]+}} {box = [1, 1, 128, 64], guarded = 1, index = 1, swizzle = 128}
# HEADS:      // ----- IR after pingpong -----
# HEADS:      = if
# HEADS:      tma_load
# HEADS:      mbarrier_init %{{[0-9]+}} {count = 8}
# HEADS:      {{^ +barrier$}}
# HEADS-NEXT: warpgroup_turn {barrier = 1, step = "start"}
# HEADS-NEXT: for
# HEADS-NEXT: ^(
# HEADS-NEXT:   shared_slot
# HEADS-NEXT:   mbarrier_wait
# HEADS-NOT:    {{^ +barrier$}}
# HEADS:        warpgroup_turn {barrier = 1, step = "wait"}
# HEADS-NEXT:   = mma
# HEADS:        = mma
# HEADS-NEXT:   warpgroup_turn {barrier = 1, step = "pass"}
# HEADS:        mbarrier_wait
# HEADS:        tma_load
# HEADS:        tma_load
# HEADS-NEXT:   mma_wait {pending = 0}
# HEADS:        mbarrier_arrive %{{[0-9]+}} {per_warp = 1}
# HEADS-NOT:    {{^ +barrier$}}
# HEADS:        yield
# HEADS-NEXT: }
# HEADS-NEXT: warpgroup_turn {barrier = 1, step = "end"}
# HEADS:      } {
# HEADS:      async_copy_arrive
# HEADS:      warpgroup_turn {barrier = 1, step = "start"}
# PTX:        cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# PTX:        bar.arrive
import triton
import triton.language as tl


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_bb, stride_am, stride_bk, stride_cm,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + pid_b * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + pid_b.to(tl.int64) * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BK) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + pid_b * M * stride_cm + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def attn(Q, K, V, Out, stride_kz, stride_kh, stride_kn, stride_vz, stride_vh, N_CTX, qk_scale,
         D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    off_z, off_h = tl.program_id(1) // 4, tl.program_id(1) % 4
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    k_base = K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_base = V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    q = tl.load(Q + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for start_n in range(0, N_CTX, BN):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + cols[:, None] * stride_kn + offs_d[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    tl.store(Out + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))
