# Rotary position embedding (RoPE), non-interleaved ("GPT-NeoX") layout: the first and second
# halves of the rotary dims are rotated as pairs by per-position cos/sin tables. The grid is
# (sequence blocks, batch, heads); dims past rotary_dim are copied through unchanged.
# Corpus file for tests/lit/corpus/corpus.test.
import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(
    OUT, X, COS, SIN,
    seqlen, nheads, rotary_dim, head_dim,
    stride_out_batch, stride_out_seqlen, stride_out_nheads,
    stride_x_batch, stride_x_seqlen, stride_x_nheads,
    stride_cos_seqlen,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
    CONJUGATE: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_batch = tl.program_id(axis=1)
    pid_head = tl.program_id(axis=2)
    rotary_dim_half = rotary_dim // 2

    X = X + pid_batch * stride_x_batch + pid_head * stride_x_nheads
    OUT = OUT + pid_batch * stride_out_batch + pid_head * stride_out_nheads

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rk_half = tl.arange(0, BLOCK_K // 2)
    mask_m = rm[:, None] < seqlen
    mask_k = rk_half[None, :] < rotary_dim_half

    COS = COS + (rm[:, None] * stride_cos_seqlen + rk_half[None, :])
    SIN = SIN + (rm[:, None] * stride_cos_seqlen + rk_half[None, :])
    cos = tl.load(COS, mask=mask_m & mask_k, other=1.0).to(tl.float32)
    sin = tl.load(SIN, mask=mask_m & mask_k, other=0.0).to(tl.float32)
    if CONJUGATE:
        sin = -sin

    x_row = X + rm[:, None] * stride_x_seqlen
    out_row = OUT + rm[:, None] * stride_out_seqlen
    x0 = tl.load(x_row + rk_half[None, :], mask=mask_m & mask_k, other=0.0).to(tl.float32)
    x1 = tl.load(x_row + rotary_dim_half + rk_half[None, :], mask=mask_m & mask_k, other=0.0).to(tl.float32)
    o0 = x0 * cos - x1 * sin
    o1 = x0 * sin + x1 * cos
    tl.store(out_row + rk_half[None, :], o0, mask=mask_m & mask_k)
    tl.store(out_row + rotary_dim_half + rk_half[None, :], o1, mask=mask_m & mask_k)

    # Pass-through of the non-rotary tail of each head (at most BLOCK_K dims).
    rk_tail = rotary_dim + tl.arange(0, BLOCK_K)
    mask_tail = mask_m & (rk_tail[None, :] < head_dim)
    tail = tl.load(x_row + rk_tail[None, :], mask=mask_tail)
    tl.store(out_row + rk_tail[None, :], tail, mask=mask_tail)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, conjugate: bool = False) -> torch.Tensor:
    batch, seqlen, nheads, headdim = x.shape
    rotary_dim = cos.shape[-1] * 2
    assert rotary_dim <= headdim, "rotary_dim must be <= headdim"
    out = torch.empty_like(x)
    BLOCK_K = 32 if rotary_dim <= 32 else (64 if rotary_dim <= 64 else (128 if rotary_dim <= 128 else 256))
    BLOCK_M = 4 if rotary_dim <= 128 else 8
    grid = lambda META: (triton.cdiv(seqlen, META["BLOCK_M"]), batch, nheads)
    with torch.cuda.device(x.device.index):
        rotary_kernel[grid](
            out, x, cos, sin,
            seqlen, nheads, rotary_dim, headdim,
            out.stride(0), out.stride(1), out.stride(2),
            x.stride(0), x.stride(1), x.stride(2),
            cos.stride(0),
            BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, CONJUGATE=conjugate,
        )
    return out
