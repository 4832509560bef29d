# TMA copies for pointer-built tiles (schedule/tma_versioning.h): on sm_90a the tutorial matmul's loop runs
# in two versions. Before it, one check: the row and column starts >= 0, every extent and stride
# parameter >= 1. The `% M` / `% N` wraps need none: the store's mask keeps the rows past M and the
# columns past N from memory (schedule/lane_reach.h), so TMA may zero-fill them. Where the check holds, A
# and B are copied by TMA through guarded tensor maps over (M, K) and (K, N) with their row strides (K
# the mask's bound: K - k * 64 + k * 64); the loop no longer carries the pointer tiles. Where it fails,
# the loop as written, pipelined with cp.async. A row stride not proven 16-byte aligned is checked with
# the rest (stride_am & 7 == 0); sm_80 keeps the one cp.async loop.
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit ptx --dump-after=pipeline -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=ALIGN
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_80 --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
# CHECK:      // ----- IR after pipeline -----
# CHECK:      tensor_map %a_ptr, %M, %K, %stride_am, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 0, swizzle = 128}
# CHECK:      tensor_map %b_ptr, %K, %N, %stride_bk, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 1, swizzle = 128}
# CHECK-NOT:  {pred = "le"}
# CHECK:      cmp %M, %{{[0-9]+}} {pred = "ge"}
# CHECK-NOT:  {pred = "le"}
# CHECK:      cmp %K, %{{[0-9]+}} {pred = "ge"}
# CHECK-NOT:  {pred = "le"}
# CHECK:      [[ACC:%[0-9]+]] = if [[OK:%[0-9]+]] : tensor<64x64xf32
# CHECK-NOT:  async_copy
# CHECK:      tma_load
# CHECK:      for {{.*}} : tensor<64x64xf32, {{.*}}>, i32, i32 {
# CHECK-NOT:  ptr_add
# CHECK:      mbarrier_wait
# CHECK-NOT:  async_copy
# CHECK:      {{^}}  } {
# CHECK-NOT:  tma_load
# CHECK:      async_copy
# CHECK:      for {{.*}}ptr<f16>
# CHECK:      async_copy
# CHECK:      cast [[ACC]]
# PTX-COUNT-2: .param .align 128 .b8 mm_tmap{{[01]}}[128]
# PTX:        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
# PTX:        cp.async.cg.shared.global
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --num-warps 4 --num-stages 3 --warp-specialize --emit gpu-ir 2>/dev/null | FileCheck %s --check-prefix=WS
# RUN: kiln compile %s --kernel mm_other_epilogue --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64, 0" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=ROWS
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --num-warps 4 --num-stages 3 --warp-specialize --emit gpu-ir 2>/dev/null | FileCheck %s --check-prefix=WS
# RUN: kiln compile %s --kernel mm_other_epilogue --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64, 1" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=SUMS
# RUN: kiln compile %s --kernel mm_b_k_contiguous --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=BT
# RUN: kiln compile %s --kernel mm_offset_bases --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=BASES
# RUN: kiln compile %s --kernel mm_in_body --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64, 0" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=BODY
# RUN: kiln compile %s --kernel mm_shifted_mask --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
# RUN: kiln compile %s --kernel mm_in_body --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 64, 1" --arch sm_90a --emit gpu-ir --dump-after=pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
# Warp-specialized (`--warp-specialize`): the TMA version's slots and mbarriers move before the check's
# `if`; the consumers run the whole `if` (the TMA version without its copies, the cp.async version as
# written), the producer warpgroup the loop's skeleton of copies inside an `if` on the same check. The
# consumers' epilogue stores C with TMA behind a check of its own (tma_stores), the pointer store else.
# WS:         mbarrier_init
# WS:         {{^}}  barrier
# WS:         warp_partition {lead_warp = [0, 1], warps = [4, 4]} {
# WS:         = if [[GUARD:%[0-9]+]] :
# WS-NOT:     tma_load
# WS:         for {{.*}}ptr<f16>
# WS:         tma_store
# WS:         {{^}}    } {
# WS:         store
# WS:         {{^}}  } {
# WS-NEXT:    if [[GUARD]] {
# WS:         tma_load
# A row stride the specialization could not prove a multiple of 16 elements: checked at run time (its
# low three bits zero: 16 bytes of fp16), beside the rest.
# ALIGN:      // ----- IR after pipeline -----
# ALIGN:      tensor_map %a_ptr, %M, %K, %stride_am, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 0, swizzle = 128}
# ALIGN:      [[SEVEN:%[0-9]+]] = constant {value = 7} : i32
# ALIGN-NEXT: [[LOW:%[0-9]+]] = and %stride_am, [[SEVEN]] : i32
# ALIGN:      cmp [[LOW]], %{{[0-9]+}} {pred = "eq"}
# ALIGN:      = if
# ALIGN:      tma_load
# ALIGN:      async_copy
# A store that writes every row (only the columns masked): the rows' wrap keeps its check (start + 64 <=
# M), the columns' needs none.
# ROWS:       // ----- IR after pipeline -----
# ROWS:       cmp %{{[0-9]+}}, %M {pred = "le"}
# ROWS-NOT:   %N {pred = "le"}
# ROWS:       = if
# ROWS:       tma_load
# The product's rows summed before the store (masked rows < M): a row's sum comes from that row alone,
# so the rows' wrap needs no check, but it mixes every column, the wrapped ones too: the columns' keeps
# its check.
# SUMS:       // ----- IR after pipeline -----
# SUMS-NOT:   %M {pred = "le"}
# SUMS:       cmp %{{[0-9]+}}, %N {pred = "le"}
# SUMS-NOT:   %M {pred = "le"}
# SUMS:       = if
# SUMS:       tma_load
# B stored K-contiguous (`x @ w.T` with w [N, K]): its tensor runs along k, so the copy reads the box
# with its dims swapped, a map over (N, K) with the row stride stride_wn, N rows of 64 k each, K-major
# in the slot; the dot reads the slot through a shared_permute.
# BT:         // ----- IR after pipeline -----
# BT:         tensor_map %x_ptr, %M, %K, %stride_xm, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 0, swizzle = 128}
# BT:         tensor_map %w_ptr, %N, %K, %stride_wn, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 1, swizzle = 128}
# BT:         = if
# BT:         tma_load {{.*}} {map = 1}
# BT:         for
# BT:         shared_permute {{.*}} {order = [1, 0]}
# BT:         mma
# BT:         async_copy
# Bases moved to the program's tile first (`a_ptr += pid_m * BM * stride_am`, a uniform offset times
# the row stride): the offsets are the boxes' first coordinates (pid_m * 64 rows, pid_n * 64 columns),
# the tensors the parameters themselves; rows and columns nothing bounds get the extent 2^31 - 1.
# BASES:      // ----- IR after pipeline -----
# BASES:      [[UNBOUNDED:%[0-9]+]] = constant {value = 2147483647} : i64
# BASES:      tensor_map %a_ptr, [[UNBOUNDED]], %K, %stride_am, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 0, swizzle = 128}
# BASES:      tensor_map %b_ptr, %K, {{%[0-9]+}}, %stride_bk, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 1, swizzle = 128}
# BASES:      = if
# BASES:      tma_load
# BASES:      async_copy
# Pointers computed from the induction variable in the body: the same boxes (the k coordinate k, the
# mask's extent K), the rows and columns that nothing bounds with the extent 2^31 - 1.
# BODY:       // ----- IR after pipeline -----
# BODY:       [[UNBOUNDED:%[0-9]+]] = constant {value = 2147483647} : i64
# BODY:       tensor_map %a_ptr, [[UNBOUNDED]], %K, %stride_am, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 0, swizzle = 128}
# BODY:       tensor_map %b_ptr, %K, {{%[0-9]+}}, %N, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = 1, swizzle = 128}
# BODY:       = if
# BODY:       tma_load
# BODY:       async_copy
# A mask one element short of the tile's reach (K - k * 64 - 1) is no extent TMA has, and a store before
# the loop may have written what it reads (TMA's async proxy would not see it without a proxy fence): one
# loop each.
# ONE:        // ----- IR after pipeline -----
# ONE-NOT:    tensor_map
# ONE-NOT:    = if
# ONE-NOT:    tma_load
# ONE:        async_copy
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
       BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc.to(tl.float16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def mm_other_epilogue(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr,
                      BN: tl.constexpr, BK: tl.constexpr, ROW_SUMS: tl.constexpr):
    offs_am = (tl.program_id(0) * BM + tl.arange(0, BM)) % M
    offs_bn = (tl.program_id(1) * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        ks = k * BK + offs_k
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + ks[None, :], mask=ks[None, :] < K, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_bn[None, :], mask=ks[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    if ROW_SUMS:  # the product's rows summed, stored where rows < M
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        tl.store(c_ptr + rows, tl.sum(acc, axis=1).to(tl.float16), mask=rows < M)
    else:  # every row stored (its wrapped index), the columns masked
        offs_cn = tl.program_id(1) * BN + tl.arange(0, BN)
        tl.store(c_ptr + offs_am[:, None] * stride_cm + offs_cn[None, :], acc.to(tl.float16),
                 mask=offs_cn[None, :] < N)


@triton.jit
def mm_b_k_contiguous(x_ptr, w_ptr, y_ptr, M, N, K, stride_xm, stride_wn, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    # y = x @ w.T with w [N, K] row-major: the B tile [BK, BN] runs along k.
    rows = (tl.program_id(0) * BM + tl.arange(0, BM)) % M
    cols = (tl.program_id(1) * BN + tl.arange(0, BN)) % N
    ks = tl.arange(0, BK)
    x_tile = x_ptr + rows[:, None] * stride_xm + ks[None, :]
    w_tile = w_ptr + cols[None, :] * stride_wn + ks[:, None]
    y = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(x_tile + k0, mask=(ks[None, :] + k0) < K, other=0.0)
        w = tl.load(w_tile + k0, mask=(ks[:, None] + k0) < K, other=0.0)
        y = tl.dot(x, w, y)
    out_rows = tl.program_id(0) * BM + tl.arange(0, BM)
    out_cols = tl.program_id(1) * BN + tl.arange(0, BN)
    tl.store(y_ptr + out_rows[:, None] * N + out_cols[None, :], y.to(tl.float16),
             mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


@triton.jit
def mm_offset_bases(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr,
                    BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a_ptr += pid_m * BM * stride_am
    b_ptr += pid_n * BN
    c_ptr += pid_m * BM * stride_cm + pid_n * BN
    rows, cols, ks = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :]
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a_tile, mask=ks[None, :] < K - k * BK, other=0.0),
                     tl.load(b_tile, mask=ks[:, None] < K - k * BK, other=0.0), acc)
        a_tile += BK
        b_tile += BK * stride_bk
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(tl.float16),
             mask=((pid_m * BM + rows)[:, None] < M) & ((pid_n * BN + cols)[None, :] < N))


@triton.jit
def mm_in_body(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               STORE_FIRST: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    if STORE_FIRST:  # a write to A before the loop reads it
        tl.store(a_ptr + rows[:, None] * stride_am + tl.arange(0, BK)[None, :], tl.zeros((BM, BK), dtype=tl.float16))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ks = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=ks[None, :] < K, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + cols[None, :], mask=ks[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))


@triton.jit
def mm_shifted_mask(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + cols[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK - 1, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK - 1, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))
