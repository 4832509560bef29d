"""Tensor descriptors: Triton 3.6's host class triton.tools.tensor_descriptor.TensorDescriptor, its fields
and its checks, passed to kernels (base, shape and strides at run time; block shape and padding
specialize); device-side tl.make_tensor_descriptor; loads padding what is out of bounds, stores and
reductions skipping it, gather/scatter of rows, descriptors through helpers and loops, on every backend
against NumPy, and the located errors of misuse."""
import dataclasses

import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl
from conftest import assert_allclose, kernel_of_lines, torch
from kiln.tools.tensor_descriptor import TensorDescriptor, TensorDescriptorError


def aligned(shape, dtype=np.float32):
    """A C-contiguous array whose data starts on a 64-byte boundary."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.zeros(n * dtype.itemsize + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + n * dtype.itemsize].view(dtype).reshape(shape)


def test_from_tensor_fields():
    a = aligned((64, 48))
    d = TensorDescriptor.from_tensor(a, [16, 32])
    assert d.base is a and tuple(d.shape) == (64, 48) and tuple(d.strides) == (48, 1)
    assert d.block_shape == [16, 32] and d.padding == "zero"
    assert [f.name for f in dataclasses.fields(TensorDescriptor)] == ["base", "shape", "strides", "block_shape",
                                                                      "padding"]
    assert TensorDescriptor(a, [64, 48], [48, 1], [8, 8], padding="nan").padding == "nan"


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_from_torch_tensor():
    t = torch.zeros(32, 64, dtype=torch.float16)
    d = TensorDescriptor.from_tensor(t, [16, 64])
    assert d.shape == t.shape and d.strides == t.stride()


@pytest.mark.parametrize("make, error, text", [
    (lambda a: TensorDescriptor(a, [64, 48], [48, 1], [16]), TensorDescriptorError, "rank mismatch"),
    (lambda a: TensorDescriptor(a, [64, 48], [48], [16, 16]), TensorDescriptorError, "rank mismatch"),
    (lambda a: TensorDescriptor(a, [], [], []), TensorDescriptorError, "rank must not be zero"),
    (lambda a: TensorDescriptor(a, [1] * 6, [1] * 6, [1] * 6), TensorDescriptorError, "more than 5"),
    (lambda a: TensorDescriptor(a, [64, 48], [48, 1], [16, 24]), ValueError, "must be a power of 2"),
    (lambda a: TensorDescriptor(a, [64, 48], [48, 1], [16, 2.0]), TypeError, "expected a list of integers"),
    (lambda a: TensorDescriptor(a, [64, 48], [48, 1], [2048, 1024]), ValueError, "exceeds"),
    (lambda a: TensorDescriptor(a, [64, 45], [45, 1], [16, 16]), TensorDescriptorError, "16-byte aligned"),
    (lambda a: TensorDescriptor(a, [64, 48], [48, 2], [16, 16]), TensorDescriptorError, "contiguous"),
    (lambda a: TensorDescriptor(a, [64, 48], [48, 1], [16, 16], padding="one"), TensorDescriptorError, "padding"),
    (lambda a: TensorDescriptor(a[:, 1:], [64, 47], [48, 1], [16, 16]), TensorDescriptorError, "base must be"),
])
def test_triton_checks(make, error, text):
    with pytest.raises(error, match=text):
        make(aligned((64, 48)))


def test_nan_padding_needs_floats():
    with pytest.raises(TensorDescriptorError, match="floating-point"):
        TensorDescriptor.from_tensor(aligned((16, 16), np.int32), [16, 16], padding="nan")


def test_check_failures_are_assertion_errors_as_in_triton():
    with pytest.raises(AssertionError):
        TensorDescriptor(aligned((64, 48)), [64, 48], [48, 2], [16, 16])


@kiln.jit
def device_copy(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PADDING: tl.constexpr, YN):
    """Each program copies block (pid0, pid1) of x (M, N) into y (with row stride YN, at least N): what
    lies outside x reads the padding."""
    x = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN], padding_option=PADDING)
    y = tl.make_tensor_descriptor(y_ptr, [M + BM, YN], [YN, 1], [BM, BN])
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    tl.static_assert(x.block_shape == (BM, BN))
    y.store([pm, pn], x.load([pm, pn]))


@pytest.mark.parametrize("padding", ["zero", "nan"])
@pytest.mark.parametrize("M, N", [(37, 53), (8, 16), (1, 4)])
def test_device_descriptor_pads_out_of_bounds(backend, rng, padding, M, N):
    BM, BN = 8, 16
    gm, gn = kiln.cdiv(M, BM), kiln.cdiv(N, BN)
    YN = gn * BN
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = backend.empty((gm * BM, YN), np.float32)
    device_copy[(gm, gn)](backend.asarray(x), y, M, N, BM=BM, BN=BN, PADDING=padding, YN=YN)
    backend.sync()
    want = np.full((gm * BM, YN), 0.0 if padding == "zero" else np.nan, np.float32)
    want[:M, :N] = x
    got = backend.numpy(y)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


@kiln.jit
def host_copy(x_desc, y_ptr, YN, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    block = x_desc.load([pm, pn])
    tl.store(y_ptr + (pm + tl.arange(0, BM))[:, None].to(tl.int64) * YN + (pn + tl.arange(0, BN))[None, :], block)


@pytest.mark.parametrize("block", [(8, 16), (16, 32)])
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_host_descriptor_argument(backend, rng, block, padding):
    M, N = 20, 36
    BM, BN = block
    gm, gn = kiln.cdiv(M, BM), kiln.cdiv(N, BN)
    x = aligned((M, N))
    x[...] = rng.standard_normal((M, N))
    y = backend.empty((gm * BM, gn * BN), np.float32)
    desc = TensorDescriptor.from_tensor(backend.asarray(x), list(block), padding=padding)
    host_copy[(gm, gn)](desc, y, gn * BN, BM=BM, BN=BN)
    backend.sync()
    got = backend.numpy(y)
    assert np.array_equal(got[:M, :N], x)
    pad = np.concatenate([got[M:].ravel(), got[:M, N:].ravel()])
    assert np.all(pad == 0) if padding == "zero" else np.all(np.isnan(pad))


@kiln.jit
def copy_by_block_shape(x_desc, y_ptr, YN):
    bm, bn = x_desc.block_shape[0], x_desc.block_shape[1]
    pm, pn = tl.program_id(0) * bm, tl.program_id(1) * bn
    tl.store(y_ptr + (pm + tl.arange(0, bm))[:, None].to(tl.int64) * YN + (pn + tl.arange(0, bn))[None, :], x_desc.load([pm, pn]))


def test_host_descriptor_specializes_on_its_block_shape():
    x = aligned((16, 32))
    x[...] = np.arange(16 * 32).reshape(16, 32)
    for block, grid in (([8, 32], (2, 1)), ([16, 16], (1, 2))):
        y = np.zeros((16, 32), np.float32)
        copy_by_block_shape[grid](TensorDescriptor.from_tensor(x, block), y, 32)
        assert np.array_equal(y, x), block


@kiln.jit
def abs_block(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    out_desc.store([pm, pn], in_desc.load([pm, pn]).abs())


@kiln.jit
def make_desc(ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])


@kiln.jit
def through_helpers(out_ptr, a_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    abs_block(make_desc(a_ptr, M, N, BM, BN), make_desc(out_ptr, M, N, BM, BN), BM, BN)


def test_descriptors_passed_to_and_returned_from_helpers(backend, rng):
    M, N = 24, 48
    a = rng.standard_normal((M, N)).astype(np.float32)
    out = backend.empty((M, N), np.float32)
    through_helpers[(3, 3)](out, backend.asarray(a), M, N, BM=8, BN=16)
    backend.sync()
    assert np.array_equal(backend.numpy(out), np.abs(a))


@kiln.jit
def row_sums(a_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """out[m] = sum of row m, by a descriptor the loop remakes over what is left of the rows."""
    desc = tl.make_tensor_descriptor(a_ptr, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0) * BM
    acc = tl.zeros((BM,), tl.float32)
    n = 0
    for _ in range(0, tl.cdiv(N, BN)):
        acc += tl.sum(tl.load_tensor_descriptor(desc, [pm, 0]), axis=1)
        n += BN
        desc = tl.make_tensor_descriptor(a_ptr + n, [M, N - n], [N, 1], [BM, BN])
    out = tl.make_tensor_descriptor(out_ptr, [M], [1], [BM])
    tl.store_tensor_descriptor(out, [pm], acc)


def test_descriptor_carried_by_a_loop(backend, rng):
    M, N = 19, 70
    a = rng.standard_normal((M, N)).astype(np.float32)
    out = backend.empty(M, np.float32)
    row_sums[(kiln.cdiv(M, 8),)](backend.asarray(a), out, M, N, BM=8, BN=16)
    backend.sync()
    assert_allclose(backend.numpy(out), a.astype(np.float64).sum(axis=1), 1e-5, 1e-5, "row sums")


@kiln.jit
def reduce_into(x_ptr, v_ptr, M, N, OP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    v = tl.load(v_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    if OP == "add":
        desc.atomic_add([pm, pn], v)
    elif OP == "max":
        desc.atomic_max([pm, pn], v)
    elif OP == "min":
        desc.atomic_min([pm, pn], v)
    elif OP == "and":
        desc.atomic_and([pm, pn], v)
    elif OP == "or":
        desc.atomic_or([pm, pn], v)
    else:
        desc.atomic_xor([pm, pn], v)


@pytest.mark.parametrize("op", ["add", "max", "min", "and", "or", "xor"])
def test_descriptor_reductions_touch_only_in_bounds_elements(backend, rng, op):
    M, N, BM, BN = 10, 12, 8, 8
    x = rng.integers(-50, 50, (M, N)).astype(np.int32)
    v = rng.integers(-50, 50, (BM, BN)).astype(np.int32)
    xb = backend.asarray(x)
    grid = (kiln.cdiv(M, BM), kiln.cdiv(N, BN))
    reduce_into[grid](xb, backend.asarray(v), M, N, OP=op, BM=BM, BN=BN)
    backend.sync()
    tiled = np.tile(v, grid)[:M, :N]
    f = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
         "xor": np.bitwise_xor}[op]
    assert np.array_equal(backend.numpy(xb), f(x, tiled))


@kiln.jit
def gather_rows(x_ptr, idx_ptr, out_ptr, M, N, y, R: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, R))
    block = desc.gather(rows, y)
    tl.store(out_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :], block)


@kiln.jit
def scatter_rows(x_ptr, idx_ptr, v_ptr, M, N, y, R: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(idx_ptr + tl.arange(0, R))
    desc.scatter(tl.load(v_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :]), rows, y)


def test_gather_and_scatter_rows(backend, rng):
    M, N, R, BN, y = 13, 40, 8, 16, 30  # columns 30..45: the last six are out of bounds
    x = rng.standard_normal((M, N)).astype(np.float32)
    idx = np.array([3, 0, 12, 13, 5, 5, -1, 7], np.int32)  # 13 and -1: rows out of bounds
    out = backend.empty((R, BN), np.float32)
    gather_rows[(1,)](backend.asarray(x), backend.asarray(idx), out, M, N, y, R=R, BN=BN)
    backend.sync()
    padded = np.zeros((M + 2, N + BN), np.float32)
    padded[:M, :N] = x
    assert np.array_equal(backend.numpy(out), padded[idx, y:y + BN])  # row -1 reads padded[-1]: zeros

    idx = np.array([1, 4, 13, 6, 8, 9, 11, 12], np.int32)
    v = rng.standard_normal((R, BN)).astype(np.float32)
    xb = backend.asarray(x)
    scatter_rows[(1,)](xb, backend.asarray(idx), backend.asarray(v), M, N, y, R=R, BN=BN)
    backend.sync()
    want = x.copy()
    for r, row in enumerate(idx):
        if row < M:
            want[row, y:] = v[r, :N - y]
    assert np.array_equal(backend.numpy(xb), want)


def misuse(body):
    """A kernel whose body is `body` over d, a descriptor of x_ptr's (float32) 16 x 16 elements."""
    return kernel_of_lines("x_ptr, i_ptr", "d = tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [8, 8])", body)


@pytest.mark.parametrize("body, match", [
    ("tl.make_tensor_descriptor(x_ptr, [16, 16], [1, 16], [8, 8])",
     r"the last dimension must be contiguous: its stride must be the constexpr 1, got the constexpr 16"),
    ("tl.make_tensor_descriptor(x_ptr, [16, 16], [16, 1], [8, 2])",
     r"at least 16 bytes in the last dimension, but got 2 \* 4 = 8 bytes"),
    ("tl.make_tensor_descriptor(i_ptr, [16, 16], [16, 1], [8, 8], padding_option='nan')",
     r"padding_option 'nan' is not supported for integer blocks"),
    ("tl.make_tensor_descriptor(x_ptr, [16, 16], [16], [8, 8])", r"expected 2 strides but got 1"),
    ("tl.make_tensor_descriptor(x_ptr, [16] * 6, [1] * 6, [8] * 6)", r"expected 1 <= ndim <= 5 but got 6"),
    ("d.load([0])", r"expected 2 offsets \(one per dimension\), got 1"),
    ("d.store([0, 0], tl.zeros((8, 4), tl.float32))", r"the value of shape \[8, 4\] does not match the block"),
    ("tl.make_tensor_descriptor(i_ptr.to(tl.pointer_type(tl.int8)), [16, 16], [16, 1], [8, 16])"
     ".atomic_add([0, 0], tl.zeros((8, 16), tl.int8))",
     r"tensor_descriptor.atomic_add\(\) does not support int8 elements \(it takes uint32, int32, uint64, fp32, fp16 or bf16\)"),
    ("d.atomic_and([0, 0], tl.zeros((8, 8), tl.float32))",
     r"tensor_descriptor.atomic_and\(\) does not support fp32 elements"),
    ("d.gather(tl.arange(0, 8), 0)", r"needs a 2-D descriptor whose block is one row"),
    ("tl.load(d)", r"tl.load\(\) loads through a block pointer \(tl.make_block_ptr\), got the tensor descriptor"),
    ("d.advance([0, 0])", r"the tensor descriptor tensor_descriptor<fp32\[8, 8\]> has no attribute 'advance'"),
])
def test_misuse_is_a_located_error(body, match):
    k = misuse(body)
    with pytest.raises(kiln.CompilationError, match=match) as info:
        k[(1,)](np.zeros(256, np.float32), np.zeros(256, np.int32))
    assert "<string>:4:" in str(info.value)


def test_under_compat():
    with kiln.compat.as_triton():
        from triton.tools.tensor_descriptor import TensorDescriptor as T
        import triton.tools
        assert T is TensorDescriptor and triton.tools.tensor_descriptor.TensorDescriptor is T
