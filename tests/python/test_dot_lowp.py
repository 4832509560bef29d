"""tl.dot on tf32 (f32 operands, input_precision "tf32"), fp8 e4m3 / e5m2 and int8 operands, through
examples/matmul_lowp.py, against a float64 reference of the truncated (tf32) or decoded (fp8) operands and an
exact integer one: on the interpreter always, and on the GPU where there is one (on sm_90a these dots run on
wgmma; the CTA simulator tests in tests/unit/lower check that lowering without a GPU). Awkward sizes: M, N
and K not multiples of the blocks; B K-major (the transpose of a contiguous [N, K] array) and N-major."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from conftest import load_example


def fp8_values(kind):
    """The value of each of the 256 encodings (NaN for e4m3's 0x7F / 0xFF and e5m2's inf / NaN)."""
    exp_bits, bias = (4, 7) if kind == "e4m3" else (5, 15)
    man_bits = 7 - exp_bits
    out = np.empty(256)
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        e, m = (b >> man_bits) & ((1 << exp_bits) - 1), b & ((1 << man_bits) - 1)
        if kind == "e4m3" and e == 15 and m == 7 or kind == "e5m2" and e == 31:
            out[b] = np.nan
        elif e == 0:
            out[b] = sign * m * 2.0 ** (1 - bias - man_bits)
        else:
            out[b] = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return out


def truncate_tf32(a):
    """f32 -> tf32 toward zero (the 13 low mantissa bits cleared): how the tensor cores read an f32."""
    return (a.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def operands(kind, rng, m, n, k):
    """(a, b host arrays as the kernel reads them, their float64 / int64 values)."""
    if kind == "tf32":
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        return a, b, truncate_tf32(a).astype(np.float64), truncate_tf32(b).astype(np.float64)
    if kind == "int8":
        a = rng.integers(-128, 128, (m, k), dtype=np.int8)
        b = rng.integers(-128, 128, (k, n), dtype=np.int8)
        return a, b, a.astype(np.int64), b.astype(np.int64)
    values = fp8_values(kind)
    finite = np.flatnonzero(np.isfinite(values)).astype(np.uint8)
    a = rng.choice(finite, (m, k))
    b = rng.choice(finite, (k, n))
    return a, b, values[a], values[b]


FP8 = {"e4m3": tl.float8e4nv, "e5m2": tl.float8e5}


@pytest.mark.parametrize("kind", ["tf32", "e4m3", "e5m2", "int8"])
@pytest.mark.parametrize("b_k_major", [True, False])
def test_low_precision_dot(backend, rng, kind, b_k_major):
    ex = load_example("matmul_lowp")
    m, n, k = 80, 72, 200
    bm, bn, bk = 64, 64, 32 if kind == "tf32" else 64
    a, b, av, bv = operands(kind, rng, m, n, k)
    out_dtype = np.int32 if kind == "int8" else np.float32
    c = backend.empty((m, n), out_dtype)
    # B K-major: the transpose of a contiguous [N, K] array.
    b_host = np.ascontiguousarray(b.T) if b_k_major else b
    da, db = backend.asarray(a), backend.asarray(b_host)
    if kind in FP8:
        da, db = kiln.reinterpret(da, FP8[kind]), kiln.reinterpret(db, FP8[kind])
    stride_bk, stride_bn = (1, k) if b_k_major else (n, 1)
    grid = (-(-m // bm), -(-n // bn))
    ex.matmul_lowp_kernel[grid](da, db, c, m, n, k, k, 1, stride_bk, stride_bn, n, 1, bm, bn, bk, kind == "int8",
                                num_warps=4, num_stages=3)
    backend.sync()
    got = backend.numpy(c)
    if kind == "int8":  # exact, wrapping at 32 bits (these sums stay far inside)
        np.testing.assert_array_equal(got, (av @ bv).astype(np.int32))
        return
    want = av @ bv
    size = np.abs(av) @ np.abs(bv)  # the sums' scale: f32 rounding of k additions stays below k 2^-24 of it
    assert np.isfinite(got).all()
    # The GPU's tensor cores need not round each addition to nearest f32: fp8 keeps fewer bits while it
    # sums (about 2^-13 of the partial sums), tf32 may truncate when it aligns the addends.
    rel = k * 2.0 ** -24
    if backend.is_cuda:
        rel = 2e-3 if kind in FP8 else 1e-4
    err = np.abs(got.astype(np.float64) - want)
    assert (err <= rel * size + 1e-30).all(), f"worst {np.max(err / np.maximum(size, 1e-300)):.2e} of the scale"


def test_tf32_truncates_the_operands(rng):
    """The tf32 reference above is neither the exact f32 product nor the product of operands rounded to
    nearest: either moves it by far more than the bound the test allows, so a kernel that skipped the
    truncation (ran the f32 values) or rounded instead would fail."""
    m, n, k = 64, 64, 200
    a, b, av, bv = operands("tf32", rng, m, n, k)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    size = np.abs(av) @ np.abs(bv)
    bound = k * 2.0 ** -24 * size
    assert (np.abs(exact - av @ bv) > bound).any()

    def nearest_tf32(x):  # ties away from zero, as cvt.rna.tf32.f32
        return ((x.view(np.uint32).astype(np.uint64) + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)
    rounded = nearest_tf32(a).astype(np.float64) @ nearest_tf32(b).astype(np.float64)
    assert (np.abs(rounded - av @ bv) > bound).any()
