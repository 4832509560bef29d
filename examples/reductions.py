# Reductions along a row: argmax (first index of the maximum on ties), mean and variance from a
# tuple-returning @jit helper, and a segmented (ragged) sum whose segment bounds are read with
# scalar loads, so each program loops over a different number of blocks.
import torch

import triton
import triton.language as tl


@triton.jit
def argmax_kernel(x_ptr, index_ptr, max_ptr, n_cols, stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(index_ptr + row, tl.argmax(x, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))


@triton.jit
def mean_and_var(x, mask, n):
    # Population statistics of the valid lanes of x (masked lanes must hold 0).
    mean = tl.sum(x, axis=0) / n
    centered = tl.where(mask, x - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / n
    return mean, var


@triton.jit
def row_stats_kernel(x_ptr, mean_ptr, var_ptr, n_cols, stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean, var = mean_and_var(x, mask, n_cols)
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, var)


@triton.jit
def segment_sum_kernel(values_ptr, seg_offsets_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    # Segment s is values[seg_offsets[s] : seg_offsets[s + 1]]; empty segments sum to 0.
    seg = tl.program_id(0)
    start = tl.load(seg_offsets_ptr + seg)
    end = tl.load(seg_offsets_ptr + seg + 1)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for block_start in range(start, end, BLOCK_SIZE):
        idx = block_start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(values_ptr + idx, mask=idx < end, other=0.0)
    tl.store(out_ptr + seg, tl.sum(acc, axis=0))


def segment_sum(values: torch.Tensor, seg_offsets: torch.Tensor) -> torch.Tensor:
    n_segments = seg_offsets.numel() - 1
    out = torch.empty(n_segments, dtype=torch.float32, device=values.device)
    segment_sum_kernel[(n_segments, )](values, seg_offsets, out, BLOCK_SIZE=128)
    return out


if __name__ == "__main__":
    x = torch.randn(64, 1000, device="cuda")
    idx = torch.empty(64, dtype=torch.int32, device="cuda")
    mx = torch.empty(64, device="cuda")
    argmax_kernel[(64, )](x, idx, mx, 1000, x.stride(0), BLOCK_SIZE=1024)
    assert torch.equal(idx.long(), torch.argmax(x, dim=1))
