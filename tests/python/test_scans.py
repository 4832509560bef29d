"""Reductions and scans with combine functions (tl.reduce, tl.associative_scan) and the fixed ones
(tl.cumsum, tl.cumprod, tl.xor_sum, tl.reduce_or, and their tensor methods), on every backend against
NumPy: float64 references, awkward sizes (masked tiles), both axes, reversed scans, tuples of tensors,
combine functions that are associative but not commutative."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from conftest import assert_allclose


@kiln.jit
def cum_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
               REVERSE: tl.constexpr, PROD: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    x = tl.load(x_ptr + rm * N + rn, mask=mask, other=1 if PROD else 0)
    if PROD:
        y = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    else:
        y = x.cumsum(AXIS, reverse=REVERSE)
    tl.store(y_ptr + rm * N + rn, y, mask=mask)


def _cum_reference(x, axis, reverse, prod):
    x = x.astype(np.float64)
    if reverse:
        x = np.flip(x, axis)
    r = np.cumprod(x, axis=axis) if prod else np.cumsum(x, axis=axis)
    return np.flip(r, axis) if reverse else r


def _block(n):
    return max(1, 1 << (n - 1).bit_length())


@pytest.mark.parametrize("shape", [(1, 1), (3, 50), (37, 5), (2, 700), (200, 3), (1, 1000)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_float32(backend, rng, shape, axis, reverse):
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    y = backend.empty(shape, np.float32)
    cum_kernel[(1,)](backend.asarray(x), y, shape[0], shape[1], BM=_block(shape[0]), BN=_block(shape[1]),
                     AXIS=axis, REVERSE=reverse, PROD=False, num_warps=4)
    backend.sync()
    # A prefix sum of n values in (-1, 1) is off by about sqrt(n) f32 roundings of sums near sqrt(n) in
    # magnitude; where it passes near zero only the absolute tolerance holds it.
    atol = 1e-5 * max(1.0, np.sqrt(shape[axis]))
    assert_allclose(backend.numpy(y), _cum_reference(x, axis, reverse, False), 1e-5, atol, "cumsum")


@pytest.mark.parametrize("dtype, out", [(np.int8, np.int32), (np.int32, np.int32), (np.uint16, np.uint32),
                                        (np.int64, np.int64)])
@pytest.mark.parametrize("axis, reverse", [(0, False), (1, True)])
def test_cumsum_integers_widen_like_sum(backend, rng, dtype, out, axis, reverse):
    shape = (24, 40)
    x = rng.integers(0 if dtype == np.uint16 else -100, 100, shape).astype(dtype)
    y = backend.empty(shape, out)
    cum_kernel[(1,)](backend.asarray(x), y, shape[0], shape[1], BM=32, BN=64, AXIS=axis, REVERSE=reverse,
                     PROD=False, num_warps=8)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(y), _cum_reference(x, axis, reverse, False).astype(out))


@pytest.mark.parametrize("axis, reverse", [(0, False), (0, True), (1, False), (1, True)])
def test_cumprod(backend, rng, axis, reverse):
    shape = (20, 9)
    x = rng.uniform(0.8, 1.25, shape).astype(np.float32)
    y = backend.empty(shape, np.float32)
    cum_kernel[(1,)](backend.asarray(x), y, shape[0], shape[1], BM=32, BN=16, AXIS=axis, REVERSE=reverse,
                     PROD=True, num_warps=2)
    backend.sync()
    assert_allclose(backend.numpy(y), _cum_reference(x, axis, reverse, True), 1e-5, 0, "cumprod")


@kiln.jit
def cumsum_dtype_kernel(x_ptr, y_ptr, b_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, N), tl.cumsum(x, 0, dtype=tl.int64))
    flags = x > 0
    tl.store(b_ptr + tl.arange(0, N), tl.cumsum(flags, axis=0))  # int1 counts in uint32


def test_cumsum_dtype_and_int1(backend, rng):
    x = rng.integers(-128, 128, 64).astype(np.int8)
    y = backend.empty(64, np.int64)
    b = backend.empty(64, np.uint32)
    cumsum_dtype_kernel[(1,)](backend.asarray(x), y, b, N=64)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(y), np.cumsum(x.astype(np.int64)))
    np.testing.assert_array_equal(backend.numpy(b), np.cumsum(x > 0).astype(np.uint32))


@kiln.jit
def _recurrence(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@kiln.jit
def _later_max(v1, i1, v2, i2):  # ties keep the later index: associative, not commutative
    gt = v1 > v2
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


@kiln.jit
def scan_pairs_kernel(a_ptr, b_ptr, x_ptr, i_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                      REVERSE: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    a = tl.load(a_ptr + rm * N + rn, mask=mask, other=1.0)
    b = tl.load(b_ptr + rm * N + rn, mask=mask, other=0.0)
    _, x = tl.associative_scan((a, b), AXIS, _recurrence, reverse=REVERSE)
    tl.store(x_ptr + rm * N + rn, x, mask=mask)
    m = tl.load(a_ptr + rm * N + rn, mask=mask, other=-float("inf"))  # padding never wins the maximum
    pos = tl.broadcast_to(rn if AXIS == 1 else rm, [BM, BN])
    _, idx = tl.associative_scan((m, pos), AXIS, _later_max, REVERSE)
    tl.store(i_ptr + rm * N + rn, idx, mask=mask)


@pytest.mark.parametrize("shape", [(5, 33), (64, 7), (1, 300)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_over_pairs(backend, rng, shape, axis, reverse):
    a = rng.uniform(0.5, 1.0, shape).astype(np.float32)
    a[rng.uniform(size=shape) < 0.3] = 0.75  # ties for the running maximum
    b = rng.uniform(-1, 1, shape).astype(np.float32)
    x = backend.empty(shape, np.float32)
    idx = backend.empty(shape, np.int32)
    scan_pairs_kernel[(1,)](backend.asarray(a), backend.asarray(b), x, idx, shape[0], shape[1],
                            BM=_block(shape[0]), BN=_block(shape[1]), AXIS=axis, REVERSE=reverse)
    backend.sync()
    # x_k = a_k * x_{k-1} + b_k, in float64, along the axis in scan order.
    aa, bb = np.moveaxis(a.astype(np.float64), axis, -1), np.moveaxis(b.astype(np.float64), axis, -1)
    order = range(aa.shape[-1] - 1, -1, -1) if reverse else range(aa.shape[-1])
    want_x, want_i = np.zeros_like(aa), np.zeros(aa.shape, np.int32)
    acc, best, at = np.zeros(aa.shape[:-1]), np.full(aa.shape[:-1], -np.inf), np.zeros(aa.shape[:-1], np.int32)
    for k in order:
        acc = aa[..., k] * acc + bb[..., k]
        take = ~(best > aa[..., k])  # the new element wins unless the running maximum is strictly greater
        best, at = np.where(take, aa[..., k], best), np.where(take, k, at)
        want_x[..., k], want_i[..., k] = acc, at
    assert_allclose(backend.numpy(x), np.moveaxis(want_x, -1, axis), 1e-4, 1e-5, "recurrence")
    np.testing.assert_array_equal(backend.numpy(idx), np.moveaxis(want_i, -1, axis))


@kiln.jit
def reduce_kernel(x_ptr, v_ptr, i_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                  KEEP: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    x = tl.load(x_ptr + rm * N + rn, mask=mask, other=-float("inf"))
    pos = tl.broadcast_to(rn if AXIS == 1 else rm, [BM, BN])
    v, i = tl.reduce((x, pos), AXIS, _later_max, keep_dims=KEEP)
    if AXIS == 1:
        out = tl.arange(0, BM)[:, None] if KEEP else tl.arange(0, BM)
        tl.store(v_ptr + out, v, mask=out < M)
        tl.store(i_ptr + out, i, mask=out < M)
    else:
        out = tl.arange(0, BN)[None, :] if KEEP else tl.arange(0, BN)
        tl.store(v_ptr + out, v, mask=out < N)
        tl.store(i_ptr + out, i, mask=out < N)


@pytest.mark.parametrize("shape", [(1, 1), (6, 100), (129, 3), (2, 1024)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_argmax_style_ties_go_last(backend, rng, shape, axis, keep):
    x = rng.integers(-3, 4, shape).astype(np.float32)  # many ties
    n = shape[1 - axis]
    v, i = backend.empty(n, np.float32), backend.empty(n, np.int32)
    reduce_kernel[(1,)](backend.asarray(x), v, i, shape[0], shape[1], BM=_block(shape[0]), BN=_block(shape[1]),
                        AXIS=axis, KEEP=keep, num_warps=8)
    backend.sync()
    xt = np.moveaxis(x, axis, -1)
    last = xt.shape[-1] - 1 - np.argmax(np.flip(xt, -1), axis=-1)
    np.testing.assert_array_equal(backend.numpy(v), xt.max(axis=-1))
    np.testing.assert_array_equal(backend.numpy(i), last.astype(np.int32))


@kiln.jit
def _welford(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    w = n_b / n
    return mean_a + delta * w, m2_a + m2_b + delta * delta * n_a * w, n


@kiln.jit
def welford_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    mean, m2, n = tl.reduce((x, tl.zeros_like(x), tl.full(x.shape, 1.0, x.dtype)), None, _welford)
    total, = tl.reduce((x,), 0, _add)
    tl.store(out_ptr, mean)
    tl.store(out_ptr + 1, m2 / n)
    tl.store(out_ptr + 2, total)
    tl.store(out_ptr + 3, x.reduce(0, _add))
    tl.store(out_ptr + 4 + tl.arange(0, N), x.associative_scan(0, _add, reverse=True))


@kiln.jit
def _add(a, b):
    return a + b


def test_welford_reduce_of_three_tensors(backend, rng):
    x = rng.uniform(-2, 5, 512).astype(np.float32)
    out = backend.empty(4 + 512, np.float32)
    welford_kernel[(1,)](backend.asarray(x), out, N=512)
    backend.sync()
    x64 = x.astype(np.float64)
    want = np.concatenate([[x64.mean(), x64.var(), x64.sum(), x64.sum()], np.flip(np.cumsum(np.flip(x64)))])
    assert_allclose(backend.numpy(out), want, 1e-5, 1e-4, "welford, sums")


@kiln.jit
def bitwise_kernel(x_ptr, xo_ptr, or_ptr, all_ptr, b_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(xo_ptr + tl.arange(0, N), tl.xor_sum(x, axis=0))
    tl.store(or_ptr + tl.arange(0, M)[:, None], x.reduce_or(1, keep_dims=True))
    tl.store(all_ptr, x.xor_sum())
    tl.store(b_ptr + tl.arange(0, N), tl.xor_sum(x > 0, 0).to(tl.int8))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64])
def test_xor_sum_and_reduce_or(backend, rng, dtype):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (8, 32), dtype=dtype, endpoint=True)
    xo, orr, alls, b = (backend.empty(32, dtype), backend.empty((8, 1), dtype), backend.empty(1, dtype),
                        backend.empty(32, np.int8))
    bitwise_kernel[(1,)](backend.asarray(x), xo, orr, alls, b, M=8, N=32)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(xo), np.bitwise_xor.reduce(x, axis=0))
    np.testing.assert_array_equal(backend.numpy(orr), np.bitwise_or.reduce(x, axis=1, keepdims=True))
    np.testing.assert_array_equal(backend.numpy(alls), [np.bitwise_xor.reduce(x.ravel())])
    np.testing.assert_array_equal(backend.numpy(b), np.bitwise_xor.reduce(x > 0, axis=0).astype(np.int8))


def test_combine_function_errors_are_located():
    @kiln.jit
    def bad(x_ptr):
        x = tl.load(x_ptr + tl.arange(0, 16))
        tl.store(x_ptr, tl.reduce(x, 0, _recurrence))

    with pytest.raises(kiln.CompilationError, match="combine_fn '.*_recurrence' must take 2 arguments") as e:
        bad[(1,)](np.zeros(16, np.float32))
    assert f"{__file__}:{bad.fn.__code__.co_firstlineno + 3}:" in str(e.value)
