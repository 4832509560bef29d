# SiLU and SwiGLU (as in LLaMA-style MLPs): c = silu(a) * b, computed in fp32 whatever the storage
# type, over a 2-D grid of (row, column block). Corpus file for tests/lit/corpus/corpus.test.
import torch
import triton
import triton.language as tl


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_fwd_kernel(
    A, B, C,
    stride_a_row, stride_b_row, stride_c_row,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols

    a = tl.load(A + row * stride_a_row + cols, mask=mask, other=0.).to(tl.float32)
    b = tl.load(B + row * stride_b_row + cols, mask=mask, other=0.)
    c = silu(a).to(b.dtype) * b
    tl.store(C + row * stride_c_row + cols, c, mask=mask)


@triton.jit
def _silu_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N).to(tl.float32)
    tl.store(Y + offs, silu(x), mask=offs < N)


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    ori_shape = a.shape
    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]
    BLOCK_SIZE = min(4096, triton.next_power_of_2(n_cols))
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    _swiglu_fwd_kernel[grid](a, b, c, a.stride(0), b.stride(0), c.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return c.view(*ori_shape)
