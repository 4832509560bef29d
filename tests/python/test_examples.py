"""Every example kernel (examples/*.py) through the Python API, against NumPy references in float64,
on each backend (NumPy and CPU tensors on the interpreter, CUDA tensors on the GPU). The example files
are loaded unchanged with kiln.compat.import_as_triton: their `import triton` is kiln."""
import math

import numpy as np
import pytest

import kiln
from conftest import assert_allclose, load_example

F32 = dict(rtol=1e-5, atol=1e-6)
F16 = dict(rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("n, block", [(1, 128), (1000, 128), (4096, 1024), (98432, 1024)])
def test_vector_add(backend, rng, n, block):
    m = load_example("vector_add")
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x, y, out = backend.asarray(xh), backend.asarray(yh), backend.empty(n, np.float32)
    grid = lambda meta: (kiln.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)
    m.add_kernel[grid](x, y, out, n, BLOCK_SIZE=block)
    assert_allclose(backend.numpy(out), xh.astype(np.float64) + yh, **F32, what="x + y")


@pytest.mark.parametrize("rows, cols, programs", [(1, 1, 1), (10, 5, 3), (7, 781, 4), (2, 1024, 8)])
def test_softmax(backend, rng, rows, cols, programs):
    m = load_example("softmax")
    xh = rng.uniform(-8, 8, (rows, cols)).astype(np.float32)
    x, y = backend.asarray(xh), backend.empty((rows, cols), np.float32)
    block = kiln.next_power_of_2(cols)
    m.softmax_kernel[(programs,)](y, x, cols, cols, rows, cols, BLOCK_SIZE=block, num_stages=2,
                                  num_warps=8 if block >= 2048 else 4)
    e = np.exp(xh - xh.max(axis=1, keepdims=True).astype(np.float64))
    assert_allclose(backend.numpy(y), e / e.sum(axis=1, keepdims=True), **F32, what="softmax")


@pytest.mark.parametrize("rows, n, block", [(3, 100, 64), (2, 512, 512), (1, 1, 16)])
def test_layernorm(backend, rng, rows, n, block):
    m = load_example("layernorm")
    xh = rng.standard_normal((rows, n)).astype(np.float16)
    wh, bh = rng.random(n).astype(np.float16), rng.standard_normal(n).astype(np.float16)
    x, w, b = backend.asarray(xh), backend.asarray(wh), backend.asarray(bh)
    y = backend.empty((rows, n), np.float16)
    mean, rstd = backend.empty(rows, np.float32), backend.empty(rows, np.float32)
    eps = 1e-5
    m.layer_norm_fwd_kernel[(rows,)](x, y, w, b, mean, rstd, n, n, eps, BLOCK_SIZE=block)
    x64 = xh.astype(np.float64)
    mu = x64.mean(axis=1)
    r = 1 / np.sqrt(x64.var(axis=1) + eps)
    ref = (x64 - mu[:, None]) * r[:, None] * wh + bh
    assert_allclose(backend.numpy(mean), mu, rtol=1e-5, atol=1e-5, what="mean")
    assert_allclose(backend.numpy(rstd), r, rtol=1e-4, atol=1e-5, what="rstd")
    assert_allclose(backend.numpy(y), ref, **F16, what="y")


@pytest.mark.parametrize("M, N, K, activation", [(64, 64, 64, ""), (50, 70, 40, "leaky_relu"), (16, 33, 100, "")])
def test_matmul(backend, rng, M, N, K, activation):
    m = load_example("matmul")
    ah = rng.standard_normal((M, K)).astype(np.float16)
    bh = rng.standard_normal((K, N)).astype(np.float16)
    a, b, c = backend.asarray(ah), backend.asarray(bh), backend.empty((M, N), np.float16)
    BM, BN, BK = 32, 32, 32
    grid = (kiln.cdiv(M, BM) * kiln.cdiv(N, BN),)
    m.matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK,
                          GROUP_SIZE_M=2, ACTIVATION=activation, num_warps=4)
    ref = ah.astype(np.float64) @ bh.astype(np.float64)
    if activation:
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    assert_allclose(backend.numpy(c), ref, rtol=1e-2, atol=2e-2, what="matmul")


@pytest.mark.parametrize("M, N, K, block_k, fa, fb", [
    (64, 64, 64, 64, "e2m1", "e4m3"), (70, 33, 96, 64, "e2m1", "e4m3"), (1, 5, 32, 32, "fp16", "e5m2"),
    (130, 64, 160, 64, "e5m2", "e2m1"), (40, 72, 96, 32, "bf16", "e2m1")])
def test_block_scaled_matmul(backend, rng, M, N, K, block_k, fa, fb):
    from test_dot_scaled import random_operand, random_scales, reference, stored_shapes
    m = load_example("block_scaled_matmul")
    ct = "fp16" if "fp16" in (fa, fb) else "bf16"
    (am, ak), (bk, bn) = stored_shapes(fa, fb, M, N, K)
    ah, bh = random_operand(rng, (am, ak), fa, ct), random_operand(rng, (bk, bn), fb, ct)
    sah, sbh = random_scales(rng, (M, K // 32), ct), random_scales(rng, (N, K // 32), ct)
    c = backend.empty((M, N), np.float32)
    grid = (kiln.cdiv(M, 64), kiln.cdiv(N, 64))
    m.mx_matmul_kernel[grid](backend.asarray(ah), backend.asarray(sah), backend.asarray(bh), backend.asarray(sbh), c,
                             M, N, K, ak, bn, N, BLOCK_M=64, BLOCK_N=64, BLOCK_K=block_k, A_FORMAT=fa, B_FORMAT=fb,
                             num_warps=4)
    ref, size = reference(ah, sah, fa, bh, sbh, fb)
    got = backend.numpy(c).astype(np.float64)
    assert (np.abs(got - ref) <= 2e-5 * size + 1e-30).all(), f"block-scaled matmul {fa} x {fb}"


def test_reductions(backend, rng):
    m = load_example("reductions")
    rows, cols, block = 5, 100, 128
    xh = rng.standard_normal((rows, cols)).astype(np.float32)
    xh[2, 7] = xh[2, 50] = 10  # a tie: the first index wins
    x = backend.asarray(xh)
    index, mx = backend.empty(rows, np.int32), backend.empty(rows, np.float32)
    m.argmax_kernel[(rows,)](x, index, mx, cols, cols, BLOCK_SIZE=block)
    np.testing.assert_array_equal(backend.numpy(index), xh.argmax(axis=1))
    np.testing.assert_array_equal(backend.numpy(mx), xh.max(axis=1))

    mean, var = backend.empty(rows, np.float32), backend.empty(rows, np.float32)
    m.row_stats_kernel[(rows,)](x, mean, var, cols, cols, BLOCK_SIZE=block)
    assert_allclose(backend.numpy(mean), xh.astype(np.float64).mean(axis=1), rtol=1e-5, atol=1e-6, what="mean")
    assert_allclose(backend.numpy(var), xh.astype(np.float64).var(axis=1), rtol=1e-5, atol=1e-6, what="var")

    lengths = [0, 1, 300, 128, 5]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    vh = rng.standard_normal(int(offsets[-1])).astype(np.float32)
    out = backend.empty(len(lengths), np.float32)
    m.segment_sum_kernel[(len(lengths),)](backend.asarray(vh), backend.asarray(offsets), out, BLOCK_SIZE=128)
    ref = [vh[offsets[i]:offsets[i + 1]].astype(np.float64).sum() for i in range(len(lengths))]
    assert_allclose(backend.numpy(out), ref, rtol=1e-5, atol=1e-5, what="segment sums")


def test_control_flow(backend, rng):
    m = load_example("control_flow")
    starts = np.array([1, 2, 3, 7, 27, 97], dtype=np.int32)
    steps = backend.empty(len(starts), np.int32)
    m.collatz_steps_kernel[(len(starts) + 2,)](backend.asarray(starts), steps, len(starts))

    def collatz(x):
        s = 0
        while x > 1:
            x, s = (x // 2 if x % 2 == 0 else 3 * x + 1), s + 1
        return s

    np.testing.assert_array_equal(backend.numpy(steps), [collatz(int(v)) for v in starts])

    # Per element, capped at 100 steps (27 takes 111): map_elementwise with a while loop and a break.
    capped_h = np.array([1, 2, 3, 7, 27, 97, 0, -5, 6, 9], dtype=np.int32)
    capped = backend.empty(len(capped_h), np.int32)
    m.capped_collatz_kernel[(1,)](backend.asarray(capped_h), capped, len(capped_h), 100, BLOCK_SIZE=16)
    want = [-1 if v < 1 or collatz(int(v)) > 100 else collatz(int(v)) for v in capped_h]
    np.testing.assert_array_equal(backend.numpy(capped), want)

    sorted_h = np.sort(rng.integers(-50, 50, 40)).astype(np.int32)
    queries = rng.integers(-60, 60, 17).astype(np.int32)
    out = backend.empty(len(queries), np.int32)
    m.searchsorted_kernel[(len(queries),)](backend.asarray(sorted_h), len(sorted_h), backend.asarray(queries), out)
    np.testing.assert_array_equal(backend.numpy(out), np.searchsorted(sorted_h, queries, side="left"))

    n, degree = 300, 4
    xh = rng.uniform(-1, 1, n).astype(np.float32)
    coeffs = rng.uniform(-1, 1, degree + 1).astype(np.float32)
    out = backend.empty(n, np.float32)
    m.polyval_kernel[(kiln.cdiv(n, 128),)](backend.asarray(xh), backend.asarray(coeffs), out, n, DEGREE=degree,
                                          BLOCK_SIZE=128)
    ref = np.polynomial.polynomial.polyval(xh.astype(np.float64), coeffs.astype(np.float64))
    assert_allclose(backend.numpy(out), ref, rtol=1e-5, atol=1e-6, what="polyval")


def test_integer_ops(backend, rng):
    m = load_example("integer_ops")
    n, rounds = 777, 3
    xh = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    h, s = backend.empty(n, np.uint32), backend.empty(n, np.uint32)
    m.hash_kernel[(kiln.cdiv(n, 256),)](backend.asarray(xh), h, s, n, ROUNDS=rounds, BLOCK_SIZE=256)
    with np.errstate(over="ignore"):
        x = xh.copy()
        r = ((x >> np.uint32(16)) ^ x) * np.uint32(0x45D9F3B)
        r = ((r >> np.uint32(16)) ^ r) * np.uint32(0x45D9F3B)
        r = (r >> np.uint32(16)) ^ r
        st = x | np.uint32(1)
        for _ in range(rounds):
            st ^= st << np.uint32(13)
            st ^= st >> np.uint32(17)
            st ^= st << np.uint32(5)
    np.testing.assert_array_equal(backend.numpy(h), r)
    np.testing.assert_array_equal(backend.numpy(s), st)


def test_int_arith(backend, rng):
    m = load_example("integer_ops")
    n = 1000
    ah = rng.integers(-1000, 1000, n).astype(np.int32)
    bh = (rng.integers(1, 50, n) * rng.choice([-1, 1], n)).astype(np.int32)
    outs = [backend.empty(n, np.int32) for _ in range(4)]
    m.int_arith_kernel[(kiln.cdiv(n, 1024),)](backend.asarray(ah), backend.asarray(bh), *outs, n, BLOCK_SIZE=1024)
    a, b = ah.astype(np.int64), bh.astype(np.int64)
    quot = np.trunc(a / b).astype(np.int64)
    np.testing.assert_array_equal(backend.numpy(outs[0]), quot)
    np.testing.assert_array_equal(backend.numpy(outs[1]), a - quot * b)
    np.testing.assert_array_equal(backend.numpy(outs[2]), ah >> (bh & 7))
    bits = ((ah & bh) | (ah ^ np.int32(0x5A5A5A5A))) ^ (np.left_shift(~bh, 3))
    np.testing.assert_array_equal(backend.numpy(outs[3]), bits)


def test_grid2d(backend, rng):
    m = load_example("grid2d")
    M, N = 45, 70
    xh, yh = rng.random((M, N), dtype=np.float32), rng.random((M, N), dtype=np.float32)
    out = backend.empty((M, N), np.float32)
    grid = (kiln.cdiv(M, 16), kiln.cdiv(N, 32))
    m.add2d_kernel[grid](backend.asarray(xh), backend.asarray(yh), out, M, N, N, N, N, BLOCK_M=16, BLOCK_N=32)
    assert_allclose(backend.numpy(out), xh.astype(np.float64) + yh, **F32, what="add2d")

    y = backend.empty((N, M), np.float32)
    grid = lambda meta: (kiln.cdiv(M, meta["BLOCK_M"]), kiln.cdiv(N, meta["BLOCK_N"]))
    m.transpose_kernel[grid](backend.asarray(xh), y, M, N, N, 1, M, 1, BLOCK_M=32, BLOCK_N=64)
    np.testing.assert_array_equal(backend.numpy(y), xh.T)


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention(backend, rng, causal):
    m = load_example("flash_attention")
    Z, H, N, D = 1, 2, 50, 16
    q, k, v = (rng.standard_normal((Z, H, N, D)).astype(np.float16) for _ in range(3))
    o = backend.empty((Z, H, N, D), np.float16)
    lse = backend.empty((Z, H, N), np.float32)
    strides = [N * D * H, N * D, D, 1]
    sm_scale = 1 / math.sqrt(D)
    BM, BN = 16, 16
    m.attn_fwd[(kiln.cdiv(N, BM), Z * H, 1)](backend.asarray(q), backend.asarray(k), backend.asarray(v), sm_scale,
                                            lse, o, *strides, *strides, *strides, *strides, H, N, HEAD_DIM=D,
                                            BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal, num_warps=4)
    s = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) * sm_scale
    if causal:
        s = np.where(np.tril(np.ones((N, N), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    ref = np.einsum("zhmn,zhnd->zhmd", p / p.sum(axis=-1, keepdims=True), v.astype(np.float64))
    assert_allclose(backend.numpy(o), ref, rtol=2e-2, atol=2e-2, what="attention")
    lse_ref = (s.max(axis=-1) + np.log(p.sum(axis=-1))) / math.log(2)
    assert_allclose(backend.numpy(lse), lse_ref, rtol=1e-3, atol=1e-2, what="log2-sum-exp")
