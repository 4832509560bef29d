# Fused row-wise softmax (Triton tutorial 02), fp32. A fixed number of persistent programs walk the
# rows with a strided tl.range loop; each row is loaded once (padded with -inf so the padding changes
# neither the max nor the sum), shifted by its max, exponentiated, normalised and stored.
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


PROGRAMS_PER_SM = 4  # persistent programs per SM; the same grid on every side


def launch_config(n_rows, n_cols, num_sms):
    """(grid, meta-parameters) for one shape: whole rows in one block, as in the tutorial."""
    block = triton.next_power_of_2(n_cols)
    meta = dict(BLOCK_SIZE=block, NUM_STAGES=4 if block <= 4096 else 2,
                num_warps=8 if block >= 2048 else 4, num_stages=4 if block <= 4096 else 2)
    return (min(n_rows, num_sms * PROGRAMS_PER_SM), ), meta


def softmax(x, y, num_sms):
    """y = softmax(x, dim=1) for 2-D fp32 x with unit column stride; returns what the launch returns."""
    n_rows, n_cols = x.shape
    grid, meta = launch_config(n_rows, n_cols, num_sms)
    return softmax_kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols, **meta)
