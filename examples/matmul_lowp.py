# Matrix multiplication on the narrower tensor-core inputs: f32 operands rounded to tf32, fp8 (e4m3,
# e5m2) and 8-bit integers. The accumulator is f32, or i32 for integer inputs (ACC_INT), and C takes
# its pointer's element type. Any M, N, K work: rows of A and columns of B past the edge wrap around
# (% M, % N) and are never stored, the K tail is masked to zero. On sm_90a these dots run on wgmma,
# which reads both operands K-major: pass B as the transpose of a contiguous [N, K] tensor
# (stride_bk = 1) and the pipeline copies it straight into the slots wgmma reads.
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_lowp_kernel(
        a_ptr, b_ptr, c_ptr,
        M, N, K,
        stride_am, stride_ak,
        stride_bk, stride_bn,
        stride_cm, stride_cn,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
        ACC_INT: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    if ACC_INT:
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)
    else:
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul_lowp(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, block=(128, 128, 64), num_warps=4,
                num_stages=3):
    """c = a @ b: a [M, K], b [K, N] (ideally b = w.T of a contiguous w [N, K]), c [M, N] of f32 (or i32
    for 8-bit integer inputs)."""
    M, K = a.shape
    _, N = b.shape
    bm, bn, bk = block
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    matmul_lowp_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                             c.stride(1), bm, bn, bk, not a.dtype.is_floating_point, num_warps=num_warps,
                             num_stages=num_stages)
    return c
