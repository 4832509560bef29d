"""tl.dot's input_precision on f32 operands: tf32 truncates them to tf32, ieee multiplies the exact f32
values, and the split modes (tf32x3, and Triton 3.6's bf16x3 and bf16x6) are the sums of tf32 or bf16
dots of the operands' parts that Triton computes (docs/semantics.md, dot)."""
import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, PRECISION: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
               K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision=PRECISION))


def tf32_round(x):
    """cvt.rna.tf32.f32 on finite values: the nearest 10-bit mantissa, ties away from zero."""
    return ((x.view(np.uint32) + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


def tf32_truncate(x):
    """How the tensor cores read an f32 as tf32."""
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def bf16_parts(x, n):
    """x's first n bf16 parts (round to nearest even), each of what the ones before it left."""
    parts = []
    for i in range(n):
        bits = x.view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
        part = rounded.view(np.float32)
        parts.append(part)
        x = (x - part).astype(np.float32)
    return parts


def split_reference(a, b, precision):
    """The split precision's products in float64: only the sums' roundings are left out."""
    d = lambda x, y: x.astype(np.float64) @ y.astype(np.float64)
    if precision == "tf32x3":
        a_big, b_big = tf32_round(a), tf32_round(b)
        a_small, b_small = tf32_truncate(a - a_big), tf32_truncate(b - b_big)
        return d(a_small, b_big) + d(a_big, b_small) + d(a_big, b_big)
    n = 3 if precision == "bf16x6" else 2
    ap, bp = bf16_parts(a, n), bf16_parts(b, n)
    pairs = [(1, 0), (0, 1), (0, 0)] + ([(1, 1), (2, 0), (0, 2)] if n == 3 else [])
    return sum(d(ap[i], bp[j]) for i, j in pairs)


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16x3", "bf16x6", "tf32"])
def test_f32_dot_precisions(backend, rng, precision):
    m, n, k = 32, 32, 64
    ah = rng.standard_normal((m, k)).astype(np.float32)
    bh = rng.standard_normal((k, n)).astype(np.float32)
    c = backend.empty((m, n), np.float32)
    dot_kernel[(1,)](backend.asarray(ah), backend.asarray(bh), c, precision, m, n, k)
    got = backend.numpy(c).astype(np.float64)
    exact = ah.astype(np.float64) @ bh.astype(np.float64)
    err = np.abs(got - exact).max()
    if precision == "tf32":  # 10-bit mantissas: errors near 1e-3 of the sums' size
        assert err < 5e-2
    elif precision == "bf16x3":  # 16 bits of each operand: errors near 2^-16 of the sums' size
        assert 1e-5 < err < 1e-3
    else:  # f32 products and sums, or within f32's rounding of them
        assert err < 1e-4
    if precision in ("tf32x3", "bf16x3", "bf16x6"):
        # The parts' products exactly: what is left is the f32 sums' rounding.
        assert np.abs(got - split_reference(ah, bh, precision)).max() < 2e-5


@pytest.mark.parametrize("precision", ["tf32x3", "bf16x3", "bf16x6"])
def test_split_precisions_keep_infinities(backend, precision):
    # An infinite operand's small part is inf - inf = NaN; its products are dropped, so the big part's
    # infinity stands (and a NaN operand still gives NaN).
    m = n = k = 16
    a = np.ones((m, k), np.float32)
    b = np.zeros((k, n), np.float32)
    b[0, 0] = np.inf
    b[0, 1] = np.nan
    c = backend.empty((m, n), np.float32)
    dot_kernel[(1,)](backend.asarray(a), backend.asarray(b), c, precision, m, n, k)
    got = backend.numpy(c)
    assert np.all(got[:, 0] == np.inf)
    assert np.all(np.isnan(got[:, 1]))
    assert np.all(got[:, 2:] == 0)


def test_unknown_precision_is_a_located_error():
    with pytest.raises(kiln.CompilationError, match="input_precision must be 'tf32', 'tf32x3', 'ieee', 'bf16x3' or "
                                                    "'bf16x6', got 'bf16x2'"):
        dot_kernel.warmup("*fp32", "*fp32", "*fp32", "bf16x2", 16, 16, 16, grid=(1,))
