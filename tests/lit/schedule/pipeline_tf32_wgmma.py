# tf32 dots on sm_90a (assign/tf32_dots.h): wgmma reads tf32 operands from shared memory K-major only, so
# layout assignment marks a tf32 dot `wgmma = 1` where both operands are loaded contiguous along K, and
# the pipeline's slots then feed wgmma m64nNk8 directly (the f32 values as loaded: the tensor cores read
# them truncated to tf32, the dot's meaning; no cvt.rna). With B contiguous along N the dot stays on
# mma.sync, as it does on sm_80 and under input_precision="ieee" (FMA).
# RUN: kiln compile %s --kernel mm --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 1" --arch sm_90a --num-warps 8 --num-stages 3 --emit ptx --dump-after=assign_layouts -o %t.ptx 2>&1 | FileCheck %s --check-prefix=MARK
# RUN: FileCheck %s --check-prefix=KMAJOR < %t.ptx
# RUN: kiln compile %s --kernel mm --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 0" --arch sm_90a --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=NMAJOR
# RUN: kiln compile %s --kernel mm --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 1" --arch sm_80 --num-warps 8 --num-stages 3 --emit ptx | FileCheck %s --check-prefix=NMAJOR
# MARK:       // ----- IR after assign_layouts -----
# MARK:       dot {{.*}}wgmma = 1
# KMAJOR:     cp.async.bulk.tensor.2d
# KMAJOR:     wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
# KMAJOR-NOT: cvt.rna
# KMAJOR-NOT: mma.sync
# KMAJOR:     wgmma.wait_group.sync.aligned 1;
# NMAJOR-NOT: wgmma
# NMAJOR-NOT: cvt.rna
# NMAJOR:     mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# NMAJOR-NOT: wgmma
import kiln.language as tl
import kiln


@kiln.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm,
       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, B_K_MAJOR: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    if B_K_MAJOR:  # B[k, n] at n * stride_b + k
        b_ptrs = b_ptr + offs_n[None, :] * stride_b + offs_k[:, None]
        b_step = BLOCK_K
    else:  # B[k, n] at k * stride_b + n
        b_ptrs = b_ptr + offs_k[:, None] * stride_b + offs_n[None, :]
        b_step = BLOCK_K * stride_b
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += b_step
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
