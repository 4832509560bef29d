# Vector addition (Triton tutorial 01): each program adds one BLOCK_SIZE chunk of x and y; the mask
# keeps the last, partial chunk inside the buffers. Memory-bound: 12 bytes moved per element.
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


BLOCK_SIZE = 1024
NUM_WARPS = 4


def add(x, y, out):
    """out = x + y for contiguous 1-D tensors (the launch both kiln and Triton run); returns what the
    launch returns (Triton: the compiled kernel)."""
    n = out.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]), )
    return add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
