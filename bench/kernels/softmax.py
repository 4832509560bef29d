# Fused row-wise softmax (Triton tutorial 02), fp32. The kernel walks rows with a strided tl.range loop
# (persistent when launched on fewer programs than rows); each row is loaded once (padded with -inf so
# the padding changes neither the max nor the sum), shifted by its max, exponentiated, normalised and
# stored. The suite launches one program per row, each side autotuned over the same warp counts and
# stages: bench/sweep_rowwise.py measured the persistent grid (4-8 programs per SM) at 88-93% of a
# same-size copy on both compilers, a row copy of the same structure at 91-95%, and one program per
# row at 95-100% (bench/results/2026-11-30-h200-rowwise-sweep.md).
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=NUM_STAGES):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def get_configs():
    """What both sides tune over: warps per program and the row loop's stages (1: no prefetch; one
    program per row leaves nothing to prefetch, but 2 stages copy the row asynchronously)."""
    return [triton.Config({"NUM_STAGES": s}, num_warps=w, num_stages=s) for w in (4, 8, 16) for s in (1, 2)]


# The kernel under the autotuner; each side tunes for itself (the key is the shape).
softmax_kernel_autotuned = triton.autotune(configs=get_configs(), key=["n_rows", "n_cols"])(softmax_kernel)


def _launch(kernel, x, y, **meta):
    n_rows, n_cols = x.shape
    return kernel[(n_rows, )](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                              BLOCK_SIZE=triton.next_power_of_2(n_cols), **meta)


def softmax(x, y):
    """y = softmax(x, dim=1) for 2-D fp32 x with unit column stride, one program per row, autotuned;
    returns what the launch returns."""
    return _launch(softmax_kernel_autotuned, x, y)


def softmax_with_config(x, y, config):
    """The same with one config of get_configs() (for tuning outside the autotuner)."""
    return _launch(softmax_kernel, x, y, **config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)
