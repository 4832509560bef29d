"""The benchmark suite's own kernel files (bench/kernels/*.py, loaded unchanged through
kiln.compat.import_as_triton) at small shapes, on each backend against float64 references: the
interpreter and the GPU run the same sources the suite times, with every launch configuration the
suite's autotuner may pick (warps, and softmax's row-loop stages)."""
import pathlib

import numpy as np
import pytest

import kiln
from conftest import BACKENDS, assert_allclose

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "kernels"
_modules = {}


def load(name):
    if name not in _modules:
        _modules[name] = kiln.compat.import_as_triton(BENCH / f"{name}.py", module_name=f"bench_{name}")
    return _modules[name]


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rows, cols", [(5, 100), (3, 1024), (2, 3000)])
def test_softmax(backend, rng, rows, cols):
    m = load("softmax")
    xh = rng.standard_normal((rows, cols)).astype(np.float32)
    block = 1 << (cols - 1).bit_length()
    for cfg in m.get_configs():
        y = backend.empty((rows, cols), np.float32)
        # One program per row as the suite launches it, and a persistent grid of two programs.
        for grid in (rows, 2):
            m.softmax_kernel[(grid,)](y, backend.asarray(xh), cols, cols, rows, cols, BLOCK_SIZE=block,
                                      **cfg.kwargs, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
            assert_allclose(backend.numpy(y), softmax_ref(xh.astype(np.float64)), rtol=1e-5, atol=1e-6,
                            what=f"softmax {cfg}, grid {grid}")


@pytest.mark.parametrize("rows, cols, block", [(3, 100, 128), (2, 1000, 1024), (2, 1000, 256), (1, 3000, 1024)])
def test_layernorm(backend, rng, rows, cols, block):
    # block >= cols: one pass over registers; block < cols: the three chunked passes.
    m = load("layernorm")
    xh = rng.standard_normal((rows, cols)).astype(np.float16)
    wh, bh = rng.random(cols).astype(np.float16), rng.standard_normal(cols).astype(np.float16)
    eps = 1e-5
    x64 = xh.astype(np.float64)
    mu = x64.mean(axis=1)
    r = 1 / np.sqrt(x64.var(axis=1) + eps)
    ref = (x64 - mu[:, None]) * r[:, None] * wh + bh
    for cfg in m.get_configs():
        y = backend.empty((rows, cols), np.float16)
        mean, rstd = backend.empty(rows, np.float32), backend.empty(rows, np.float32)
        m.layer_norm_fwd_kernel[(rows,)](backend.asarray(xh), y, backend.asarray(wh), backend.asarray(bh), mean,
                                         rstd, cols, cols, eps, BLOCK_SIZE=block, ONE_PASS=block >= cols,
                                         num_warps=cfg.num_warps)
        assert_allclose(backend.numpy(mean), mu, rtol=1e-5, atol=1e-5, what=f"mean {cfg}")
        assert_allclose(backend.numpy(rstd), r, rtol=1e-4, atol=1e-5, what=f"rstd {cfg}")
        assert_allclose(backend.numpy(y), ref, rtol=1e-2, atol=1e-3, what=f"y {cfg}")


# The wrappers below read torch strides (and the persistent matmul transposes B): CPU tensors on the
# interpreter, and CUDA tensors where there is a GPU.
TORCH_BACKENDS = BACKENDS[1:]


def attention_ref(q, k, v, scale, causal):
    s = np.einsum("zhmd,zhnd->zhmn", q, k) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("zhmn,zhnd->zhmd", p / p.sum(axis=-1, keepdims=True), v)


@pytest.mark.parametrize("backend", TORCH_BACKENDS, indirect=True)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n_ctx, d", [(150, 64), (70, 128)])
def test_attention(backend, rng, causal, n_ctx, d):
    # N not a multiple of any block: the last query and key blocks are partial.
    m = load("attention")
    z, h = 2, 3
    qh, kh, vh = (rng.standard_normal((z, h, n_ctx, d)).astype(np.float16) for _ in range(3))
    scale = 1.0 / np.sqrt(d)
    ref = attention_ref(qh.astype(np.float64), kh.astype(np.float64), vh.astype(np.float64), scale, causal)
    q, k, v = (backend.asarray(a) for a in (qh, kh, vh))
    for cfg in m.get_configs(d):
        o = backend.empty((z, h, n_ctx, d), np.float16)
        lse = backend.empty((z, h, n_ctx), np.float32)
        m.attention_with_config(q, k, v, scale, lse, o, cfg, causal=causal)
        backend.sync()
        assert_allclose(backend.numpy(o), ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max(),
                        what=f"attention causal={causal} {cfg.kwargs} w{cfg.num_warps}")


@pytest.mark.parametrize("backend", TORCH_BACKENDS, indirect=True)
@pytest.mark.parametrize("M, N, K, lda", [(300, 520, 200, 200), (1, 264, 72, 72), (256, 512, 136, 152), (256, 512, 0, 8),
                                         (130, 264, 100, 100)])
def test_matmul(backend, rng, M, N, K, lda):
    # The tutorial matmul at every config. On sm_90 every program copies A and B with TMA where the row
    # strides are multiples of 16 bytes (checked at run time: none of these is a multiple of 16 elements),
    # the edge programs too (the rows past M and columns past N, which their `% M` / `% N` wraps would read
    # from the top, are zero-filled: the store's mask keeps them from memory); one row (every program at
    # the edge); a row stride past K (A a slice of a wider matrix); K = 0 (no map can be encoded: the
    # launcher passes zeros and the kernel takes the cp.async loop, which runs no iteration); A's rows of
    # 200 bytes (not 16-byte aligned: the cp.async loop).
    m = load("matmul")
    wide = rng.standard_normal((M, lda)).astype(np.float16)
    bh = rng.standard_normal((K, N)).astype(np.float16)
    ref = wide[:, :K].astype(np.float64) @ bh.astype(np.float64)
    a, b = backend.asarray(wide)[:, :K], backend.asarray(bh)
    for cfg in m.get_configs():
        c = backend.empty((M, N), np.float16)
        m.matmul_with_config(a, b, c, cfg)
        backend.sync()
        assert_allclose(backend.numpy(c), ref, rtol=2e-3, atol=1e-3 * max(np.abs(ref).max(), 1),
                        what=f"matmul {M}x{N}x{K} {cfg.kwargs} w{cfg.num_warps} s{cfg.num_stages}")


@pytest.mark.parametrize("backend", TORCH_BACKENDS, indirect=True)
@pytest.mark.parametrize("M, N, K", [(150, 264, 200), (37, 40, 24), (257, 136, 72)])
@pytest.mark.parametrize("num_sms", [1, 3, 64])
def test_matmul_persistent(backend, rng, M, N, K, num_sms):
    # Sizes that no tile divides (N and K multiples of 8, as the descriptors' 16-byte rows need); num_sms
    # programs at most, so with few programs each walks several tiles.
    m = load("matmul_persistent")
    ah = rng.standard_normal((M, K)).astype(np.float16)
    bth = rng.standard_normal((N, K)).astype(np.float16)
    ref = ah.astype(np.float64) @ bth.astype(np.float64).T
    a, b = backend.asarray(ah), backend.asarray(bth).T  # b [K, N], K-major
    for cfg in m.get_configs():
        c = backend.empty((M, N), np.float16)
        m.matmul_persistent_with_config(a, b, c, cfg, num_sms=num_sms)
        backend.sync()
        # fp16 rounding of the result (2^-11 relative) over an fp32 sum of K fp16 products.
        assert_allclose(backend.numpy(c), ref, rtol=2e-3, atol=1e-3 * np.abs(ref).max(),
                        what=f"matmul_persistent {cfg.kwargs} w{cfg.num_warps} s{cfg.num_stages}, {num_sms} programs")


@pytest.mark.parametrize("backend", TORCH_BACKENDS, indirect=True)
def test_matmul_persistent_rejects_layouts_its_descriptors_cannot_read(backend):
    m = load("matmul_persistent")
    a = backend.asarray(np.ones((16, 32), np.float16))
    c = backend.empty((16, 24), np.float16)
    cfg = m.get_configs()[0]
    with pytest.raises(ValueError, match="transpose of a contiguous"):
        m.matmul_persistent_with_config(a, backend.asarray(np.ones((32, 24), np.float16)), c, cfg, num_sms=2)
    with pytest.raises(ValueError, match="shapes"):
        m.matmul_persistent_with_config(a, backend.asarray(np.ones((24, 16), np.float16)).T, c, cfg, num_sms=2)
