"""Shape and indexing ops: tl.join, tl.split, tl.interleave, tl.cat, tl.flip, tl.gather and tl.histogram
(and the tensor methods split, flip, gather, histogram), on every backend against NumPy references
computed independently (np.stack, np.concatenate, np.flip, np.take_along_axis, np.bincount), with
random data, awkward dtypes and shapes, masks; and their located compile errors."""
import numpy as np
import pytest

import kiln
import kiln.language as tl

DTYPES = [np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64]


def _random(rng, shape, dtype):
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dtype)


@kiln.jit
def join_split_kernel(x_ptr, y_ptr, j_ptr, a_ptr, b_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    j = tl.join(x, y)  # [M, N, 2]
    tl.store(j_ptr + offs[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], j)
    a, b = j.split()
    tl.store(a_ptr + offs, b)  # swapped on purpose: split's halves are (x, y)
    tl.store(b_ptr + offs, a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("M, N", [(1, 2), (4, 64), (32, 8)])
def test_join_then_split(backend, rng, dtype, M, N):
    x, y = _random(rng, (M, N), dtype), _random(rng, (M, N), dtype)
    j = backend.empty((M, N, 2), dtype)
    a, b = backend.empty((M, N), dtype), backend.empty((M, N), dtype)
    join_split_kernel[(1,)](backend.asarray(x), backend.asarray(y), j, a, b, M=M, N=N, num_warps=4)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(j), np.stack([x, y], axis=-1))
    np.testing.assert_array_equal(backend.numpy(a), y)
    np.testing.assert_array_equal(backend.numpy(b), x)


@kiln.jit
def join_broadcast_kernel(x_ptr, out_ptr, s, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    z = tl.join(x[None, :], s)  # [1, N] with a scalar -> [1, N, 2]
    tl.store(out_ptr + tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :], tl.reshape(z, (N, 2)))
    p, q = tl.split(tl.join(s, s + 1))  # two scalars from a [2]
    tl.store(out_ptr + 2 * N, p)
    tl.store(out_ptr + 2 * N + 1, q)


def test_join_broadcasts_scalars(backend, rng):
    x = rng.integers(-50, 50, 16).astype(np.int32)
    out = backend.empty((34,), np.int32)
    join_broadcast_kernel[(1,)](backend.asarray(x), out, 7, N=16)
    backend.sync()
    want = np.concatenate([np.stack([x, np.full(16, 7, np.int32)], -1).ravel(), [7, 8]])
    np.testing.assert_array_equal(backend.numpy(out), want)


@kiln.jit
def interleave_cat_kernel(x_ptr, y_ptr, i_ptr, c_ptr, N: tl.constexpr, REORDER: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    y = tl.load(y_ptr + tl.arange(0, N))
    tl.store(i_ptr + tl.arange(0, 2 * N), tl.interleave(x, y))
    tl.store(c_ptr + tl.arange(0, 2 * N), tl.cat(x, y, can_reorder=REORDER))


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.int64])
@pytest.mark.parametrize("N", [1, 4, 256])
@pytest.mark.parametrize("reorder", [False, True])
def test_interleave_and_cat(backend, rng, dtype, N, reorder):
    x, y = _random(rng, N, dtype), _random(rng, N, dtype)
    i, c = backend.empty((2 * N,), dtype), backend.empty((2 * N,), dtype)
    interleave_cat_kernel[(1,)](backend.asarray(x), backend.asarray(y), i, c, N=N, REORDER=reorder)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(i), np.stack([x, y], -1).ravel())
    np.testing.assert_array_equal(backend.numpy(c), np.concatenate([x, y]))  # kiln keeps the order


@kiln.jit
def flip_kernel(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr):
    offs = (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C +
            tl.arange(0, C)[None, None, :])
    x = tl.load(x_ptr + offs)
    if DIM is None:
        y = tl.flip(x)  # the last dim
    else:
        y = x.flip(DIM)
    tl.store(y_ptr + offs, y)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.float32, np.int64, np.float64])
@pytest.mark.parametrize("shape", [(1, 1, 8), (4, 2, 16), (2, 64, 1)])
@pytest.mark.parametrize("dim", [0, 1, 2, -1, None])
def test_flip(backend, rng, dtype, shape, dim):
    x = _random(rng, shape, dtype)
    if np.issubdtype(dtype, np.floating):  # signed zeros, infinities and NaN payloads travel as bits
        x.flat[:3] = [np.inf, -0.0, np.nan][:x.size]
    y = backend.empty(shape, dtype)
    flip_kernel[(1,)](backend.asarray(x), y, *shape, DIM=dim)
    backend.sync()
    want = np.flip(x, len(shape) - 1 if dim is None else dim)
    np.testing.assert_array_equal(backend.numpy(y).view(np.uint8), want.copy().view(np.uint8))


@kiln.jit
def gather_kernel(s_ptr, i_ptr, o_ptr, SM: tl.constexpr, SN: tl.constexpr, IM: tl.constexpr, IN: tl.constexpr,
                  AXIS: tl.constexpr):
    src = tl.load(s_ptr + tl.arange(0, SM)[:, None] * SN + tl.arange(0, SN)[None, :])
    offs = tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :]
    idx = tl.load(i_ptr + offs)
    tl.store(o_ptr + offs, src.gather(idx, AXIS))


@pytest.mark.parametrize("dtype, itype", [(np.float32, np.int32), (np.int8, np.int64), (np.float64, np.uint8),
                                          (np.float16, np.int16)])
@pytest.mark.parametrize("src, index, axis", [((8, 16), (32, 16), 0), ((16, 4), (16, 64), 1),
                                              ((1, 1), (4, 1), 0), ((64, 32), (64, 8), -1)])
def test_gather(backend, rng, dtype, itype, src, index, axis):
    s = _random(rng, src, dtype)
    i = rng.integers(0, src[axis], index).astype(itype)
    o = backend.empty(index, dtype)
    gather_kernel[(1,)](backend.asarray(s), backend.asarray(i), o, *src, *index, AXIS=axis, num_warps=4)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(o), np.take_along_axis(s, i.astype(np.int64), axis))


@kiln.jit
def gather_1d_kernel(s_ptr, i_ptr, o_ptr, S: tl.constexpr, N: tl.constexpr):
    src = tl.load(s_ptr + tl.arange(0, S))
    idx = tl.load(i_ptr + tl.arange(0, N))
    tl.store(o_ptr + tl.arange(0, N), tl.gather(src, idx, 0))


def test_gather_index_wraps(backend, rng):
    """Out-of-range indices are taken modulo the axis size (a power of two), negative ones too."""
    s = rng.standard_normal(16).astype(np.float32)
    i = rng.integers(-100, 100, 64).astype(np.int32)
    o = backend.empty((64,), np.float32)
    gather_1d_kernel[(1,)](backend.asarray(s), backend.asarray(i), o, S=16, N=64)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(o), s[i % 16])


@kiln.jit
def histogram_kernel(x_ptr, h_ptr, n, M: tl.constexpr, BINS: tl.constexpr, MASKED: tl.constexpr):
    offs = tl.arange(0, M)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    if MASKED:
        h = x.histogram(BINS, mask=offs < n)
    else:
        h = tl.histogram(x, BINS)
    tl.store(h_ptr + tl.arange(0, BINS), h)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.int64, np.uint32])
@pytest.mark.parametrize("M, bins, n", [(1, 1, 1), (64, 8, 50), (2048, 512, 2000), (8, 256, 8), (512, 2, 300)])
@pytest.mark.parametrize("masked", [False, True])
def test_histogram(backend, rng, dtype, M, bins, n, masked):
    lo = -3 if np.issubdtype(dtype, np.signedinteger) else 0
    x = rng.integers(lo, min(bins + 3, np.iinfo(dtype).max), M).astype(dtype)  # some values outside the bins
    h = backend.empty((bins,), np.int32)
    histogram_kernel[(1,)](backend.asarray(x), h, n, M=M, BINS=bins, MASKED=masked, num_warps=4)
    backend.sync()
    counted = x[:n] if masked else np.where(np.arange(M) < n, x, 0)
    vals = counted.astype(np.int64)
    want = np.bincount(vals[(vals >= 0) & (vals < bins)], minlength=bins)
    np.testing.assert_array_equal(backend.numpy(h), want.astype(np.int32))


# ---- located errors


def _compile_error(backend, kernel, match, *args, **kw):
    with pytest.raises(kiln.CompilationError, match=match) as e:
        kernel[(1,)](*args, **kw)
    assert f"{__file__}:" in str(e.value)


@kiln.jit
def bad_split(x_ptr, N: tl.constexpr):
    a, b = tl.split(tl.load(x_ptr + tl.arange(0, N)))
    tl.store(x_ptr, a + b)


@kiln.jit
def bad_join(x_ptr, y_ptr):
    tl.store(x_ptr + tl.arange(0, 2), tl.join(tl.load(x_ptr), tl.load(y_ptr)))


@kiln.jit
def bad_cat(x_ptr, A: tl.constexpr, B: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, 2 * A), tl.cat(tl.load(x_ptr + tl.arange(0, A)), tl.load(x_ptr + tl.arange(0, B))))


@kiln.jit
def bad_flip(x_ptr, DIM: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, 8), tl.flip(tl.load(x_ptr + tl.arange(0, 8)), DIM))


@kiln.jit
def bad_gather(x_ptr, i_ptr, AXIS: tl.constexpr, IN: tl.constexpr):
    src = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    idx = tl.load(i_ptr + tl.arange(0, 4)[:, None] * IN + tl.arange(0, IN)[None, :])
    tl.store(x_ptr + tl.arange(0, 4)[:, None] * IN + tl.arange(0, IN)[None, :], tl.gather(src, idx, AXIS))


@kiln.jit
def bad_histogram(x_ptr, h_ptr):
    tl.store(h_ptr + tl.arange(0, 4), tl.histogram(tl.load(x_ptr + tl.arange(0, 8)), 4))


def test_errors(backend):
    x32 = np.zeros(64, np.int32)
    _compile_error(backend, bad_split, "last dim has size 2", x32, N=8)
    _compile_error(backend, bad_join, "one dtype", x32, np.zeros(1, np.float32))
    _compile_error(backend, bad_cat, "one length", x32, A=8, B=4)
    _compile_error(backend, bad_flip, "dim 3 is out of range", x32, DIM=3)
    _compile_error(backend, bad_gather, "gather axis 2 must be < source rank", x32, x32, AXIS=2, IN=4)
    _compile_error(backend, bad_gather, "index dim 1 must match", x32, x32, AXIS=0, IN=8)
    _compile_error(backend, bad_gather, "index must be an integer tensor", x32, np.zeros(64, np.float32), AXIS=0, IN=4)
    _compile_error(backend, bad_histogram, "only supports integer input", np.zeros(8, np.float32), x32)
