# Two-dimensional launch grids: program_id(0) walks rows of tiles and program_id(1) columns.
# Both edges of a tile can hang over the matrix, so masks combine a row and a column condition.
import torch

import triton
import triton.language as tl


@triton.jit
def add2d_kernel(x_ptr, y_ptr, out_ptr, M, N, stride_xm, stride_ym, stride_om,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask)
    y = tl.load(y_ptr + rm[:, None] * stride_ym + rn[None, :], mask=mask)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :], x + y, mask=mask)


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # y[N, M] = x[M, N]^T: load a BLOCK_M x BLOCK_N tile, store its transpose.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y_ptrs = y_ptr + offs_n[:, None] * stride_ym + offs_m[None, :] * stride_yn
    tl.store(y_ptrs, tl.trans(tile), mask=tl.trans(mask))


def transpose(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((N, M), dtype=x.dtype, device=x.device)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    transpose_kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                           BLOCK_M=32, BLOCK_N=64)
    return y


if __name__ == "__main__":
    x = torch.randn(300, 500, device="cuda")
    assert torch.equal(transpose(x), x.t())
