# Flash attention forward (Triton tutorial 06, non-causal here). One program computes BLOCK_M query
# rows of one (batch, head) pair against every key, streaming K and V in BLOCK_N blocks with an
# online softmax, so the N_CTX x N_CTX score matrix is never materialised. Scores are kept in base 2
# (scaled by log2(e)) so the exponentials are exp2. Tensors are [Z, H, N_CTX, HEAD_DIM], fp16.
import triton
import triton.language as tl


def get_configs(head_dim=None):
    # 128x64 at 8 warps is the tutorial's Hopper default; the others let each side trade tile size
    # against registers (HEAD_DIM 128 doubles the accumulator). With head_dim, those that fit it.
    c = lambda bm, bn, w, s: triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=w, num_stages=s)
    configs = [c(128, 64, 8, 3), c(128, 128, 8, 3), c(128, 64, 4, 3), c(64, 64, 4, 3)]
    return [cfg for cfg in configs if head_dim is None or fits_registers(cfg, head_dim)]


def fits_registers(config, head_dim):
    """Whether a thread's share of the loop's tiles leaves room in its 255 registers: the fp32
    accumulator (BLOCK_M x HEAD_DIM), the fp32 scores (BLOCK_M x BLOCK_N) and P in fp16 (two to a
    register), spread over the CTA's threads, with 32 registers for everything else. 128 query rows on
    one warpgroup at HEAD_DIM 128 need 224 for the tiles alone, and ptxas spills that kernel."""
    bm, bn = config.kwargs["BLOCK_M"], config.kwargs["BLOCK_N"]
    tiles = (bm * head_dim + bm * bn + bm * bn // 2) // (32 * config.num_warps)
    return tiles + 32 <= 255


def _prune(configs, named_args, **kwargs):
    # (HEAD_DIM comes as a keyword: Triton passes it among kwargs, kiln in both)
    head_dim = kwargs["HEAD_DIM"] if "HEAD_DIM" in kwargs else named_args["HEAD_DIM"]
    return [cfg for cfg in configs if fits_registers(cfg, head_dim)]


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn,
                    offs_m, offs_n, lo, hi, qk_scale, N_CTX,
                    BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        # k is loaded transposed: [HEAD_DIM, BLOCK_N].
        k = tl.load(k_ptrs + start_n * stride_kn, mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        valid = cols[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk, float("-inf"))
        # Online softmax: new running max, rescale what was accumulated under the old one.
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs + start_n * stride_vn, mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, sm_scale, M, Out,
             stride_qz, stride_qh, stride_qm, stride_qk,
             stride_kz, stride_kh, stride_kn, stride_kk,
             stride_vz, stride_vh, stride_vn, stride_vk,
             stride_oz, stride_oh, stride_om, stride_ok,
             H, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_base = Q + off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_base = K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_base = V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_base = Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    k_ptrs = k_base + offs_d[:, None] * stride_kk + offs_n[None, :] * stride_kn
    v_ptrs = v_base + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk

    # Running row max (base 2), row sum of exponentials, and the unnormalised output.
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2)
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)

    # Causal: keys past the last query row of this block are masked for every row, skip them.
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn,
                                    offs_m, offs_n, 0, hi, qk_scale, N_CTX, BLOCK_N, CAUSAL)

    # Epilogue: log2-sum-exp for the backward pass, then normalise.
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i, mask=offs_m < N_CTX)
    o_ptrs = o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


attn_fwd_autotuned = triton.autotune(configs=get_configs(), key=["N_CTX", "HEAD_DIM"],
                                     prune_configs_by={"early_config_prune": _prune})(attn_fwd)


def _launch(kernel, q, k, v, sm_scale, m, o, causal, **meta):
    Z, H, N_CTX, HEAD_DIM = q.shape
    grid = lambda META: (triton.cdiv(N_CTX, META["BLOCK_M"]), Z * H, 1)
    return kernel[grid](q, k, v, sm_scale, m, o,
                        q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                        k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                        v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                        o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                        H, N_CTX, HEAD_DIM=HEAD_DIM, CAUSAL=causal, **meta)


def attention(q, k, v, sm_scale, m, o, causal=False):
    """o = softmax(q k^T * sm_scale) v with the autotuned kernel; m [Z, H, N_CTX] fp32 gets the
    log2-sum-exp. Returns what the launch returns."""
    return _launch(attn_fwd_autotuned, q, k, v, sm_scale, m, o, causal)


def attention_with_config(q, k, v, sm_scale, m, o, config, causal=False):
    """The same with one config of get_configs() (for tuning outside the autotuner)."""
    return _launch(attn_fwd, q, k, v, sm_scale, m, o, causal, **config.kwargs, num_warps=config.num_warps,
                   num_stages=config.num_stages)
