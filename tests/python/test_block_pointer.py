"""Block pointers (tl.make_block_ptr, tl.advance, tl.load / tl.store with boundary_check and
padding_option) on every backend against NumPy: 1-D copies with each padding and out-of-range offsets,
2-D tiles of awkward shapes with one or both dimensions checked, transposed strides, block pointers
carried by loops and passed to and returned from helpers, a matmul over K, and the located errors of
misuse."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from conftest import assert_allclose, kernel_of_lines


@kiln.jit
def copy_1d(a_ptr, b_ptr, n, half, shift, BLOCK: tl.constexpr, PADDING: tl.constexpr):
    offset = tl.program_id(0) * BLOCK + shift
    a = tl.make_block_ptr(base=a_ptr, shape=(half,), strides=(1,), offsets=(offset,), block_shape=(BLOCK,),
                          order=(0,))
    b = tl.make_block_ptr(base=b_ptr, shape=(n,), strides=(1,), offsets=(offset,), block_shape=(BLOCK,), order=(0,))
    x = tl.load(a, boundary_check=(0,), padding_option=PADDING)
    tl.store(b, x, boundary_check=(0,))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16, np.bool_])
@pytest.mark.parametrize("padding", ["zero", "nan", ""])
@pytest.mark.parametrize("n", [1, 37, 64, 200])
def test_copy_1d_pads_what_is_out_of_bounds(backend, rng, dtype, padding, n):
    if padding == "nan" and np.dtype(dtype).kind != "f":
        pytest.skip("nan padding is for floats")
    a = rng.standard_normal(n).astype(dtype) if np.dtype(dtype).kind == "f" else rng.integers(0, 2, n).astype(dtype)
    b = backend.asarray(np.zeros(n, dtype))
    half = n // 2
    copy_1d[(kiln.cdiv(n, 16),)](backend.asarray(a), b, n, half, 0, BLOCK=16, PADDING=padding)
    backend.sync()
    got = backend.numpy(b)
    assert np.array_equal(got[:half], a[:half])
    if padding == "zero":
        assert np.all(got[half:] == 0)
    elif padding == "nan":
        assert np.all(np.isnan(got[half:]))


@pytest.mark.parametrize("shift", [-1000, 1000])
def test_offsets_wholly_out_of_bounds_touch_nothing(backend, shift):
    a = backend.asarray(np.arange(64, dtype=np.float32))
    b = backend.asarray(np.full(64, 7, np.float32))
    copy_1d[(4,)](a, b, 64, 32, shift, BLOCK=16, PADDING="zero")
    backend.sync()
    assert np.all(backend.numpy(b) == 7)


@kiln.jit
def copy_tile(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, CHECK: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    x = tl.make_block_ptr(x_ptr, (M, N), (sxm, sxn), (pm, pn), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (sym, syn), (pm, pn), (BM, BN), (1, 0))
    if CHECK == "both":
        tl.store(y, tl.load(x, boundary_check=(0, 1), padding_option="zero") + 1, boundary_check=(1, 0))
    elif CHECK == "rows":
        tl.store(y, tl.load(x, boundary_check=0) + 1, boundary_check=0)
    else:
        tl.store(y, tl.load(x, boundary_check=(1,)) + 1, boundary_check=(1,))


@pytest.mark.parametrize("check, shape", [("both", (37, 53)), ("both", (1, 1)), ("both", (64, 32)),
                                          ("rows", (45, 32)), ("cols", (32, 45))])
def test_tiles_of_awkward_shapes(backend, rng, check, shape):
    M, N = shape
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = backend.empty((M, N), np.float32)
    grid = (kiln.cdiv(M, 16), kiln.cdiv(N, 32))
    copy_tile[grid](backend.asarray(x), y, M, N, N, 1, N, 1, CHECK=check, BM=16, BN=32)
    backend.sync()
    assert_allclose(backend.numpy(y), x + 1, 0, 0, "tile copy")


def test_transposed_strides(backend, rng):
    """Reading x (M, N) through strides (1, M) of its transpose writes x.T."""
    M, N = 24, 40
    x = rng.standard_normal((N, M)).astype(np.float32)  # memory of x.T: element (i, j) of the (M, N) view at j*M + i
    y = backend.empty((M, N), np.float32)
    copy_tile[(2, 2)](backend.asarray(x), y, M, N, 1, M, N, 1, CHECK="both", BM=16, BN=32)
    backend.sync()
    assert_allclose(backend.numpy(y), x.T + 1, 0, 0, "transposed copy")


@kiln.jit
def load_block(p):
    return tl.load(p, boundary_check=(0, 1), padding_option="zero")


@kiln.jit
def step(p, BK: tl.constexpr):
    return tl.advance(p, (0, BK))


@kiln.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    a = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (pm, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, pn), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(load_block(a), tl.load(b, boundary_check=(0, 1), padding_option="zero"), input_precision="ieee")
        a = step(a, BK)
        b = b.advance((BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (scm, scn), (pm, pn), (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


@pytest.mark.parametrize("M, N, K", [(16, 16, 16), (33, 47, 70), (64, 32, 5)])
def test_matmul_with_loop_carried_block_pointers(backend, rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = backend.empty((M, N), np.float32)
    grid = (kiln.cdiv(M, 16), kiln.cdiv(N, 16))
    matmul[grid](backend.asarray(a), backend.asarray(b), c, M, N, K, K, 1, N, 1, N, 1, BM=16, BN=16, BK=16)
    backend.sync()
    assert_allclose(backend.numpy(c), a.astype(np.float64) @ b, 3e-4, 3e-4, "matmul")


@kiln.jit
def branchy(x_ptr, y_ptr, n):
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (16,), (0,))
    if tl.program_id(0) == 1:
        p = tl.advance(p, (16,))
    q = tl.make_block_ptr(y_ptr, (n,), (1,), (tl.program_id(0) * 16,), (16,), (0,))
    tl.store(q, tl.load(p, boundary_check=(0,), padding_option="zero"), boundary_check=(0,))


def test_block_pointer_merged_by_a_branch(backend):
    x = np.arange(24, dtype=np.float32)
    y = backend.empty(24, np.float32)
    branchy[(2,)](backend.asarray(x), y, 24)
    backend.sync()
    assert np.array_equal(backend.numpy(y), x)


def misuse(body):
    """A kernel whose body is `body` over p and q, block pointers to 16 of x_ptr's (float32) and i_ptr's
    (int32) elements."""
    return kernel_of_lines("x_ptr, i_ptr", "p = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))",
                           "q = tl.make_block_ptr(i_ptr, (16,), (1,), (0,), (16,), (0,))", body)


@pytest.mark.parametrize("body, match", [
    ("tl.load(p, mask=tl.arange(0, 16) < 3)", r"`mask` and `other` cannot be given when loading through a block pointer"),
    ("tl.store(p, 1.0, mask=tl.arange(0, 16) < 3)", r"`mask` cannot be given when storing through a block pointer"),
    ("tl.load(q, boundary_check=(0,), padding_option='nan')", r"padding_option 'nan' is not supported for integer"),
    ("tl.load(p, padding_option='one')", r"padding_option 'one' is not supported; use '', 'zero' or 'nan'"),
    ("tl.load(p, boundary_check=(1,))", r"boundary_check dimension 1 is out of range for a block of rank 1"),
    ("tl.load(p, boundary_check=(0, 0))", r"duplicate dimension 0 in boundary_check"),
    ("tl.store(p, tl.zeros((8,), tl.float32))", r"the value of shape \[8\] does not match the block shape \[16\]"),
    ("tl.store(p, tl.zeros((16,), tl.int32))", r"the value's element type int32 differs from the block's fp32"),
    ("tl.advance(p, (1, 2))", r"expected 1 offsets \(one per dimension\), got 2"),
    ("tl.advance(x_ptr, (1,))", r"tl.advance\(\) advances a block pointer \(tl.make_block_ptr\), got a scalar"),
    ("tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16, 2), (0,))", r"must have the same length"),
    ("tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (1,))", r"order must be a permutation"),
    ("tl.make_block_ptr(x_ptr, (16,), (1.5,), (0,), (16,), (0,))", r"element 0 of strides must be an integer"),
    ("tl.load(x_ptr, boundary_check=(0,))", r"boundary_check and padding_option apply only to block pointers"),
    ("p.load()", r"the block pointer block_ptr<fp32\[16\]> has no attribute 'load'"),
    ("x = p + 1", r"unsupported operand type\(s\) for \+: 'block_ptr' and 'int'"),
])
def test_misuse_is_a_located_error(body, match):
    k = misuse(body)
    with pytest.raises(kiln.CompilationError, match=match) as info:
        k[(1,)](np.zeros(16, np.float32), np.zeros(16, np.int32))
    assert "<string>:5:" in str(info.value)
