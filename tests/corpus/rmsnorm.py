# RMSNorm forward: y = x / sqrt(mean(x^2) + eps) * w, one program per row, the row held in one
# block. The optional weight is a constexpr switch filled in by @triton.heuristics.
# Corpus file for tests/lit/corpus/corpus.test.
import torch
import triton
import triton.language as tl


@triton.heuristics({"HAS_WEIGHT": lambda args: args["W"] is not None})
@triton.jit
def rms_norm_fwd_kernel(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    Rstd,  # pointer to the 1/rms per row
    stride_x_row,
    stride_y_row,
    N,  # number of columns in X
    eps,
    BLOCK_N: tl.constexpr,
    HAS_WEIGHT: tl.constexpr,
):
    row = tl.program_id(0)
    X += row * stride_x_row
    Y += row * stride_y_row
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / N
    rstd = tl.math.rsqrt(var + eps)
    tl.store(Rstd + row, rstd)
    y = x * rstd
    if HAS_WEIGHT:
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        y = y * w
    tl.store(Y + cols, y, mask=mask)


def rms_norm(x, weight=None, eps=1e-6):
    x_shape = x.shape
    x = x.reshape(-1, x_shape[-1])
    M, N = x.shape
    y = torch.empty_like(x)
    rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_N = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    if N > BLOCK_N:
        raise RuntimeError("This rms norm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BLOCK_N // 256, 1), 8)
    rms_norm_fwd_kernel[(M, )](x, y, weight, rstd, x.stride(0), y.stride(0), N, eps, BLOCK_N=BLOCK_N,
                               num_warps=num_warps)
    return y.reshape(x_shape), rstd
