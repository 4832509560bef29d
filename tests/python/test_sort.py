"""tl.sort, x.sort() and tl.topk on every backend: values against NumPy's sort for ordinary inputs, and
bit for bit against a NumPy statement of Triton's bitonic network (triton/language/standard.py) for
inputs with NaN, -0.0 and ties, whose placement that network decides. 1-D and 2-D tiles, every integer
and float type, ascending and descending, top k for k from 1 to n; the errors are located."""
import numpy as np
import pytest

import kiln
import kiln.language as tl


def _pick(a, b, descending):
    """tl.max / tl.min of two elements: NaN ignored, +0.0 above -0.0."""
    if np.issubdtype(a.dtype, np.floating):
        better = np.where(a == b, np.signbit(a) != descending, a > b if descending else a < b)
        return np.where(np.isnan(a), b, np.where(np.isnan(b), a, np.where(better, a, b)))
    return np.maximum(a, b) if descending else np.minimum(a, b)


def bitonic_reference(x, k, descending):
    """Triton's network on the last axis: log2(k) bitonic stages (alternating in order by index bit
    `stage` until the last, which runs in the requested order), then per halving the max (min) of the
    elements k apart in blocks of 2k and one more merge. A compare-exchange on bit j gives each element
    its partner y where (x > y) differs from (flip XOR its own bit j)."""
    n = x.shape[-1]
    log_n, log_k = n.bit_length() - 1, k.bit_length() - 1

    def merge(h, stage, flip_bit):
        idx = np.arange(h.shape[-1])
        for j in reversed(range(stage)):
            y = h[..., idx ^ (1 << j)]
            flip = (idx >> flip_bit) & 1 if flip_bit >= 0 else int(descending)
            wants_larger = ((flip ^ (idx >> j)) & 1).astype(bool)
            h = np.where((h > y) != wants_larger, y, h)
        return h

    h = x
    for s in range(1, log_k + 1):
        h = merge(h, s, s if s < log_n else -1)
    for i in range(log_k + 1, log_n + 1):
        j = np.arange(h.shape[-1] // 2)
        first = ((j >> log_k) << (log_k + 1)) | (j & (k - 1))
        h = _pick(h[..., first], h[..., first + k], descending)
        h = merge(h, log_k, log_k if i < log_n else -1)
    return h


def _bits(a):
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@kiln.jit
def sort_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DESCENDING: tl.constexpr,
                METHOD: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if K < N:
        z = tl.topk(x, K)
    elif METHOD:
        z = x.sort(descending=DESCENDING)
    else:
        z = tl.sort(x, descending=DESCENDING)
    tl.store(z_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], z)


def _random(rng, dtype, shape):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)


def _run(backend, x, k, descending, method=False, num_warps=4):
    """Sorts (k == n) or takes the top k of each row of x; a top k of a narrow type comes back widened."""
    m, n = x.shape
    out_dtype = x.dtype
    if k < n and x.dtype.itemsize < 4:
        out_dtype = np.float32 if x.dtype == np.float16 else np.int32
    z = backend.empty((m, k), out_dtype)
    sort_kernel[(1,)](backend.asarray(x), z, M=m, N=n, K=k, DESCENDING=descending, METHOD=method,
                      num_warps=num_warps)
    backend.sync()
    return backend.numpy(z)


DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
          np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values(backend, rng, dtype, descending):
    x = _random(rng, dtype, (8, 64))
    got = _run(backend, x, 64, descending)
    want = np.sort(x, axis=-1)
    np.testing.assert_array_equal(got, want[:, ::-1] if descending else want)


@pytest.mark.parametrize("shape, num_warps", [((1, 1), 4), ((1, 512), 8), ((8, 64), 8), ((256, 16), 8),
                                              ((512, 8), 8), ((2, 1024), 4), ((4, 2), 1)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_shapes_float32(backend, rng, shape, num_warps, descending):
    x = _random(rng, np.float32, shape)
    got = _run(backend, x, shape[1], descending, num_warps=num_warps)
    want = np.sort(x, axis=-1)
    np.testing.assert_array_equal(got, want[:, ::-1] if descending else want)


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.float32, np.uint8, np.int64])
@pytest.mark.parametrize("shape, k", [((1, 512), 8), ((8, 64), 8), ((256, 16), 8), ((512, 8), 8),
                                      ((4, 32), 1), ((4, 32), 16), ((2, 128), 2)])
def test_topk_values(backend, rng, dtype, shape, k):
    x = _random(rng, dtype, shape)
    got = _run(backend, x, k, True, num_warps=8)
    want = np.sort(x, axis=-1)[:, ::-1][:, :k]
    np.testing.assert_array_equal(got, want.astype(got.dtype))


def test_sort_method_and_ties(backend, rng):
    x = rng.integers(-3, 4, (16, 32)).astype(np.int32)
    np.testing.assert_array_equal(_run(backend, x, 32, True, method=True), np.sort(x, axis=-1)[:, ::-1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape, k", [((4, 16), 16), ((2, 64), 64), ((1, 512), 512), ((8, 32), 4),
                                      ((1, 256), 8)])
@pytest.mark.parametrize("descending", [False, True])
def test_nan_and_signed_zero_follow_the_network(backend, rng, dtype, shape, k, descending):
    if k < shape[1] and (not descending or dtype == np.float16):
        pytest.skip("a top k is descending; an f16 top k computes in f32")
    x = rng.integers(-3, 4, shape).astype(dtype)
    x[rng.random(shape) < 0.2] = np.nan
    x[rng.random(shape) < 0.2] = -0.0
    x[rng.random(shape) < 0.2] = 0.0
    got = _run(backend, x, k, descending, num_warps=8)
    np.testing.assert_array_equal(_bits(got), _bits(bitonic_reference(x, k, descending)))


@kiln.jit
def sort_1d_kernel(x_ptr, z_ptr, N: tl.constexpr, K: tl.constexpr, DESCENDING: tl.constexpr, TOPK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    if TOPK:
        z = tl.topk(x, K, dim=0)
    else:
        z = tl.sort(x, 0, DESCENDING)
    tl.store(z_ptr + tl.arange(0, K), z)


@pytest.mark.parametrize("n, k, topk", [(1, 1, False), (2, 2, False), (128, 128, False), (1024, 1024, False),
                                         (128, 128, True), (128, 4, True), (1024, 32, True), (16, 1, True)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_1d(backend, rng, n, k, topk, descending):
    descending = descending or topk
    x = rng.integers(-50, 50, n).astype(np.int32)
    z = backend.empty(k, np.int32)
    sort_1d_kernel[(1,)](backend.asarray(x), z, N=n, K=k, DESCENDING=descending, TOPK=topk)
    backend.sync()
    want = np.sort(x)[::-1][:k] if descending else np.sort(x)
    np.testing.assert_array_equal(backend.numpy(z), want)
    np.testing.assert_array_equal(bitonic_reference(x, k, descending), want)


@kiln.jit
def sort_bf16_kernel(x_ptr, z_ptr, zf_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N)).to(tl.bfloat16, bitcast=True)
    tl.store(z_ptr + tl.arange(0, N), tl.sort(x).to(tl.int16, bitcast=True))
    top = tl.topk(x, K)
    tl.static_assert(top.dtype == tl.float32)
    tl.store(zf_ptr + tl.arange(0, K), top)


def test_sort_bfloat16_bits(backend, rng):
    f = rng.integers(-4, 5, 64).astype(np.float32)
    f[::7] = np.nan
    f[::5] = -0.0
    bits = (f.view(np.uint32) >> 16).astype(np.uint16).view(np.int16)
    z, zf = backend.empty(64, np.int16), backend.empty(8, np.float32)
    sort_bf16_kernel[(1,)](backend.asarray(bits), z, zf, N=64, K=8)
    backend.sync()
    want = bitonic_reference(f, 64, False)
    np.testing.assert_array_equal(backend.numpy(z).view(np.uint16), (want.view(np.uint32) >> 16).astype(np.uint16))
    np.testing.assert_array_equal(_bits(backend.numpy(zf)), _bits(bitonic_reference(f, 8, True)))


@kiln.jit
def sort_bool_kernel(x_ptr, z_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N)) > 0
    z = tl.sort(x, descending=True)
    tl.static_assert(z.dtype == tl.int1)
    tl.store(z_ptr + tl.arange(0, N), z.to(tl.int8))


def test_sort_bool(backend, rng):
    x = rng.integers(-1, 2, 32).astype(np.int8)
    z = backend.empty(32, np.int8)
    sort_bool_kernel[(1,)](backend.asarray(x), z, N=32)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(z), np.sort(x > 0)[::-1].astype(np.int8))


def _compile_error(kernel, *args, **kwargs):
    with pytest.raises(kiln.CompilationError) as e:
        kernel[(1,)](*args, **kwargs)
    return str(e.value)


def test_errors_are_located():
    @kiln.jit
    def wrong_dim(x_ptr, DIM: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
        tl.store(x_ptr + tl.arange(0, 8), tl.sum(tl.sort(x, dim=DIM), 0))

    msg = _compile_error(wrong_dim, np.zeros(32, np.float32), DIM=0)
    assert "sorts along the last dimension only: dim=0" in msg
    assert f"{__file__}:{wrong_dim.fn.__code__.co_firstlineno + 3}:" in msg
    assert "invalid axis 2 for a tensor of rank 2" in _compile_error(wrong_dim, np.zeros(32, np.float32), DIM=2)

    @kiln.jit
    def wrong_k(x_ptr, K: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 16))
        tl.store(x_ptr + tl.arange(0, 16), tl.sum(tl.topk(x, K)))

    for k in (3, 32, 0):
        msg = _compile_error(wrong_k, np.zeros(16, np.float32), K=k)
        assert f"k must be a power of two from 1 to the sorted dimension's 16, got {k}" in msg
        assert f"{__file__}:{wrong_k.fn.__code__.co_firstlineno + 3}:" in msg

    @kiln.jit
    def scalar(x_ptr):
        tl.store(x_ptr, tl.sort(tl.load(x_ptr)))

    assert "needs a tensor to sort" in _compile_error(scalar, np.zeros(1, np.float32))

    @kiln.jit
    def topk_method(x_ptr):
        x = tl.load(x_ptr + tl.arange(0, 16))
        tl.store(x_ptr + tl.arange(0, 4), x.topk(4))

    assert "has no attribute 'topk'" in _compile_error(topk_method, np.zeros(16, np.float32))
