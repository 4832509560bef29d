# Block-scaled (OCP microscaling) matrix multiplication C = A @ B with tl.dot_scaled: A and B hold
# elements of the formats A_FORMAT and B_FORMAT (fp4 "e2m1" packed two per byte along K, fp8 "e4m3" or
# "e5m2" bytes, "bf16" or "fp16" bits), and each 32 elements along K of a row of A or a column of B share
# one e8m0 scale byte, 2^(s-127). K is a multiple of 32, as MX data are; the K loop masks the tail block,
# rows and columns past M and N are loaded masked and not stored.
import torch

import triton
import triton.language as tl


@triton.jit
def mx_matmul_kernel(
        # A: [M, K] ([M, K/2] bytes for e2m1), B: [K, N] ([K/2, N]), scales [M, K/32] and [N, K/32]
        a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr,
        M, N, K,
        stride_am, stride_bk, stride_cm,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
        A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr,
):
    A_PACK: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1  # elements per stored item along K
    B_PACK: tl.constexpr = 2 if B_FORMAT == "e2m1" else 1
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_ka = tl.arange(0, BLOCK_K // A_PACK)  # items of A and B along K
    offs_kb = tl.arange(0, BLOCK_K // B_PACK)
    offs_g = tl.arange(0, BLOCK_K // 32)  # scale groups
    groups = K // 32
    rows = offs_m.to(tl.int64)  # row offsets in 64 bits: M * stride_am may pass 2^31
    cols = offs_n.to(tl.int64)
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_ka[None, :]
    b_ptrs = b_ptr + offs_kb[:, None] * stride_bk + offs_n[None, :]
    a_scale_ptrs = a_scale_ptr + rows[:, None] * groups + offs_g[None, :]
    b_scale_ptrs = b_scale_ptr + cols[:, None] * groups + offs_g[None, :]

    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        # Past the end of K the items load as 0 (+0.0 in every format) and the scales as 127 (1.0).
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_ka[None, :] < k_left // A_PACK), other=0)
        b = tl.load(b_ptrs, mask=(offs_kb[:, None] < k_left // B_PACK) & (offs_n[None, :] < N), other=0)
        a_scale = tl.load(a_scale_ptrs, mask=(offs_m[:, None] < M) & (offs_g[None, :] < k_left // 32), other=127)
        b_scale = tl.load(b_scale_ptrs, mask=(offs_n[:, None] < N) & (offs_g[None, :] < k_left // 32), other=127)
        accumulator = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, accumulator)
        a_ptrs += BLOCK_K // A_PACK
        b_ptrs += BLOCK_K // B_PACK * stride_bk
        a_scale_ptrs += BLOCK_K // 32
        b_scale_ptrs += BLOCK_K // 32

    c_ptrs = c_ptr + rows[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, accumulator, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def mx_matmul(a: torch.Tensor, a_scale: torch.Tensor, b: torch.Tensor, b_scale: torch.Tensor) -> torch.Tensor:
    """mxfp4 x mxfp8: a uint8 [M, K/2] e2m1 pairs, b uint8 [K, N] e4m3, scales uint8 [M, K/32] and [N, K/32]."""
    M, K = a.shape[0], 2 * a.shape[1]
    N = b.shape[1]
    assert b.shape[0] == K and K % 32 == 0, "B must be [K, N] with K a multiple of 32"
    assert a_scale.shape == (M, K // 32) and b_scale.shape == (N, K // 32), "one scale per 32 elements along K"
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    mx_matmul_kernel[grid](a, a_scale, b, b_scale, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, A_FORMAT="e2m1", B_FORMAT="e4m3",
                           num_warps=4)
    return c
