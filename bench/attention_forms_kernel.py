# Flash attention forward through rank-2 tensor descriptors built in the kernel (the form of Triton's
# tutorial 06 on Hopper): Q, K, V and O seen as [Z*H*N_CTX, HEAD_DIM], each program reading its key
# blocks as rows off_hz*N_CTX + start_n. Beside bench/kernels/attention.py (pointer loads) it shows what
# TMA copies of K and V change (bench/attention_forms.py). As in the tutorial, N_CTX must be a multiple
# of BLOCK_M: O's descriptor store of a partial last block would write the next head's rows.
import triton
import triton.language as tl

@triton.jit
def attn_fwd_desc(Q, K, V, sm_scale, M, Out,
                  stride_qz, stride_qh, stride_qm,
                  stride_kz, stride_kh, stride_kn,
                  stride_vz, stride_vh, stride_vn,
                  stride_oz, stride_oh, stride_om,
                  Z, H, N_CTX, ZHN,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_desc = tl.make_tensor_descriptor(Q, shape=[ZHN, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[ZHN, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[ZHN, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(Out, shape=[ZHN, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = q_desc.load([off_hz * N_CTX + start_m * BLOCK_M, 0])
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = k_desc.load([off_hz * N_CTX + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        cols = start_n + offs_n
        valid = cols[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([off_hz * N_CTX + start_n, 0])
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i, mask=offs_m < N_CTX)
    o_desc.store([off_hz * N_CTX + start_m * BLOCK_M, 0], acc.to(Out.dtype.element_ty))
