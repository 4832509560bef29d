# A tensor-core kernel's pointer store (the tutorial matmul's epilogue, `tl.store(c_ptrs, c, mask=c_mask)`)
# through TMA on sm_90a (schedule/tma_stores.cpp): its addresses and mask make a box of C at (pid_m * 64,
# pid_n * 64) bounded by M and N, so the tma_stores pass versions it. Right before it, a check (the starts
# >= 0, M, N and the row stride >= 1); where it holds, the tile goes through shared memory and one bulk
# copy, which clips at M and N as the mask does, through a guarded tensor map over (M, N) with the row
# stride stride_cm; where it fails, the pointer store as written, its address and mask tiles computed
# in that branch only. A row stride not proven 16-byte aligned joins the check (stride_cm & 7 == 0).
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit ptx --dump-after=tma_stores -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=ALIGN
# Kept as pointer stores: on sm_80; with --no-tma-pointer-tiles (as AOT launchers compile); a load after
# the store (the copy's writes would not be ordered before it); a store in a loop (its next iteration's
# copy would not be either); a store whose rows wrap `% M` (no box writes that); a kernel without a dot
# (a memory-bound kernel's store stays st.global).
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_80 --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel mm --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --no-tma-pointer-tiles --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel mm_then_load --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel mm_twice --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel mm_wrapped_store --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel scale --signature "*fp16:16, *fp16:16, i32, i32, i32:16, 64, 64" --arch sm_90a --emit gpu-ir --dump-after=tma_stores 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP
# CHECK:      // ----- IR after tma_stores -----
# CHECK:      tensor_map %c_ptr, %M, %N, %stride_cm, %{{[0-9]+}} {box = [64, 64], guarded = 1, index = [[MAP:[0-9]+]], swizzle = 128}
# CHECK:      cmp %stride_cm, %{{[0-9]+}} {pred = "ge"}
# CHECK:      if [[OK:%[0-9]+]] {
# CHECK-NOT:  ptr_add
# CHECK:      [[BUF:%[0-9]+]] = shared_alloc {align = 1024} : shared<64x64xf16
# CHECK-NEXT: local_store [[BUF]], %{{[0-9]+}}
# CHECK-NEXT: fence_async_shared
# CHECK-NEXT: barrier
# CHECK-NEXT: tma_store [[BUF]], %{{[0-9]+}}, %{{[0-9]+}} {map = [[MAP]]}
# CHECK-NEXT: tma_store_wait {pending = 0}
# CHECK-NEXT: yield
# CHECK-NEXT: } {
# CHECK:      ptr_add
# CHECK:      convert_layout
# CHECK:      store
# CHECK-NEXT: yield
# CHECK-NEXT: }
# CHECK-NEXT: return
# PTX:        .param .align 128 .b8 mm_tmap0[128]
# PTX:        cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
# PTX:        st.global
# ALIGN:      // ----- IR after tma_stores -----
# ALIGN:      [[SEVEN:%[0-9]+]] = constant {value = 7} : i32
# ALIGN-NEXT: [[LOW:%[0-9]+]] = and %stride_cm, [[SEVEN]] : i32
# ALIGN:      if
# ALIGN:      tma_store
# KEEP:       // ----- IR after tma_stores -----
# KEEP-NOT:   tma_store
# KEEP:       return
import triton
import triton.language as tl


@triton.jit
def product(a_ptr, b_ptr, M, N, stride_am, stride_bk, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The program's tile of A @ B (one k block), with its row and column indices."""
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a = tl.load(a_ptr + (offs_m % M)[:, None] * stride_am + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * stride_bk + (offs_n % N)[None, :])
    return offs_m, offs_n, tl.dot(a, b)


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m, offs_n, c = product(a_ptr, b_ptr, M, N, stride_am, stride_bk, BM, BN, BK)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, c.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def mm_then_load(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m, offs_n, c = product(a_ptr, b_ptr, M, N, stride_am, stride_bk, BM, BN, BK)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, c.to(tl.float16), mask=mask)
    tl.debug_barrier()
    again = tl.load(c_ptrs, mask=mask)
    tl.store(c_ptrs, again * 2, mask=mask)


@triton.jit
def mm_twice(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m, offs_n, c = product(a_ptr, b_ptr, M, N, stride_am, stride_bk, BM, BN, BK)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    for i in range(K):
        tl.store(c_ptrs, (c * i).to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def mm_wrapped_store(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m, offs_n, c = product(a_ptr, b_ptr, M, N, stride_am, stride_bk, BM, BN, BK)
    tl.store(c_ptr + (offs_m % M)[:, None] * stride_cm + offs_n[None, :], c.to(tl.float16), mask=offs_n[None, :] < N)


@triton.jit
def scale(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + offs_m[:, None] * stride + offs_n[None, :], mask=mask)
    tl.store(y_ptr + offs_m[:, None] * stride + offs_n[None, :], x * 2, mask=mask)
