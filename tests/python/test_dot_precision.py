"""tl.dot's input_precision on f32 operands: tf32 truncates them to tf32; ieee and the split modes
(tf32x3, and Triton 3.6's bf16x3 and bf16x6) multiply the exact f32 values (docs/language.md)."""
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


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16x3", "bf16x6", "tf32"])
def test_f32_dot_precisions(backend, rng, precision):
    m, n, k = 32, 32, 64
    ah = rng.standard_normal((m, k)).astype(np.float32)
    bh = rng.standard_normal((k, n)).astype(np.float32)
    c = backend.empty((m, n), np.float32)
    dot_kernel[(1,)](backend.asarray(ah), backend.asarray(bh), c, precision, m, n, k)
    exact = ah.astype(np.float64) @ bh.astype(np.float64)
    err = np.abs(backend.numpy(c) - exact).max()
    if precision == "tf32":  # 10-bit mantissas: errors near 1e-3 of the sums' size
        assert err < 5e-2
    else:  # f32 products and sums
        assert err < 1e-4


def test_unknown_precision_is_a_located_error():
    with pytest.raises(kiln.CompilationError, match="input_precision must be 'tf32', 'tf32x3', 'ieee', 'bf16x3' or "
                                                    "'bf16x6', got 'bf16x2'"):
        dot_kernel.warmup("*fp32", "*fp32", "*fp32", "bf16x2", 16, 16, 16, grid=(1,))
