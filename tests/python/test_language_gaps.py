"""Constructs that Triton's own test suite (test_core.py) uses, run end to end on every backend:
x.item(), .dtype of a constexpr number (test_constexpr), None/':' subscripts of scalars and slices
with None bounds (test_slice), hasattr and isinstance (test_short_circuiting), tl.static_range
keywords (test_static_range), `if` on a one-element tile (test_unsplat); and their misuse."""
import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def unsplat_kernel(x, explicit: tl.constexpr):
    condition = tl.load(x + tl.arange(0, 1)) > 42  # a one-element tile
    if explicit:
        condition = condition.item()
    if condition:
        tl.store(x, 42)


@pytest.mark.parametrize("explicit", [False, True])
@pytest.mark.parametrize("y, want", [(41, 41), (43, 42)])
def test_unsplat(backend, explicit, y, want):
    x = backend.asarray(np.full(1, y, np.int32))
    unsplat_kernel[(1,)](x, explicit, num_warps=1)
    backend.sync()
    assert backend.numpy(x)[0] == want


@kiln.jit
def item_kernel(x_ptr, h_ptr, out_ptr, hout_ptr):
    x = tl.load(x_ptr + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :]).item()
    h = (h_ptr + tl.arange(0, 1)).item()  # a pointer
    tl.store(out_ptr, x * 2.0)
    tl.store(hout_ptr, tl.load(h) + tl.full((1,), 1, tl.float16).item())


@pytest.mark.parametrize("value", [1.5, -0.0, float("nan"), float("-inf")])
def test_item(backend, value):
    x = backend.asarray(np.array([value], np.float32))
    h = backend.asarray(np.array([value], np.float16))
    out = backend.empty(1, np.float32)
    hout = backend.empty(1, np.float16)
    item_kernel[(1,)](x, h, out, hout)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), np.array([value * 2.0], np.float32))
    np.testing.assert_array_equal(backend.numpy(hout), np.array([value], np.float16) + np.float16(1))
    assert np.signbit(backend.numpy(out)[0]) == np.signbit(np.float32(value))


@kiln.jit
def literal_dtype_kernel(i_ptr, l_ptr, f_ptr, d_ptr):
    a = 5
    b = 2 ** 40
    c = 1.5
    d = 1e50
    tl.store(i_ptr.to(tl.pointer_type(a.dtype)), a)
    tl.store(l_ptr.to(tl.pointer_type(b.dtype)), b)
    tl.store(f_ptr.to(tl.pointer_type(c.dtype)), c)
    tl.store(d_ptr.to(tl.pointer_type(d.dtype)), d)


def test_constexpr_literal_dtype(backend):
    outs = [backend.empty(1, t) for t in (np.int32, np.int64, np.float32, np.float64)]
    literal_dtype_kernel[(1,)](*outs)
    backend.sync()
    assert [backend.numpy(o)[0] for o in outs] == [5, 2 ** 40, 1.5, 1e50]


@kiln.jit
def slice_kernel(out_ptr, XBLOCK: tl.constexpr):
    data = tl.arange(0, XBLOCK)
    tl.static_assert(data[None, None:].shape == [1, XBLOCK])
    tl.static_assert(data[None, ::None, None].shape == [1, XBLOCK, 1])
    scalar = tl.full([], 1, tl.int32)
    tl.static_assert(scalar[None].shape == [1] and scalar[None, None].shape == [1, 1])
    tl.store(out_ptr[None, :] + data[None, :], data[None, None:None] + scalar[None, :])


def test_slice(backend):
    out = backend.empty(32, np.int32)
    slice_kernel[(1,)](out, XBLOCK=32)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), np.arange(1, 33, dtype=np.int32))


@kiln.jit
def short_circuiting_kernel(x):
    if (x is not None) and hasattr(x, "dtype") and isinstance(
            x.dtype, tl.pointer_type) and (x.dtype.element_ty == tl.int32) and (tl.load(x) > 42):
        tl.store(x, 42)


@pytest.mark.parametrize("y, dtype, want", [(37, np.int32, 37), (100000, np.int32, 42), (100000, np.int64, 100000),
                                            (84.0, np.float32, 84.0)])
def test_short_circuiting(backend, y, dtype, want):
    for v in (None, 1, 2):  # None, a constexpr 1, a runtime int: nothing to store
        short_circuiting_kernel[(1,)](v, num_warps=1)
    x = backend.asarray(np.full(1, y, dtype))
    short_circuiting_kernel[(1,)](x, num_warps=1)
    backend.sync()
    assert backend.numpy(x)[0] == want


@kiln.jit
def static_range_kernel(Z, N: tl.constexpr, step: tl.constexpr):
    acc = 0
    for i in tl.static_range(0, N, step=step):
        acc += i
    for i in tl.static_range(arg1=N, step=step):
        acc += i
    tl.store(Z, acc)


def test_static_range_keywords(backend):
    out = backend.empty(1, np.int32)
    static_range_kernel[(1,)](out, 100, 7)
    backend.sync()
    assert backend.numpy(out)[0] == 2 * sum(range(0, 100, 7))


@kiln.jit
def item_of_many(x_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16)).item()
    tl.store(x_ptr, v)


@kiln.jit
def if_on_two(x_ptr):
    if tl.load(x_ptr + tl.arange(0, 2)) > 0:
        tl.store(x_ptr, 1.0)


@kiln.jit
def bounded_slice(dst):
    dst[10:]


@kiln.jit
def isinstance_of_constexpr(dst):
    tl.static_assert(isinstance(0, tl.tensor))  # test_compile_errors.py: a constexpr is not a tensor


@pytest.mark.parametrize("kernel, match", [
    (item_of_many, r"can only unsplat single-element tensors"),
    (if_on_two, r"Boolean value of Tensor with more than one value is ambiguous"),
    (bounded_slice, r"unsupported tensor index"),
    (isinstance_of_constexpr, r"static_assert failed"),
])
def test_misuse_is_a_located_error(kernel, match):
    x = np.zeros(16, np.float32)
    with pytest.raises(Exception, match=match) as info:
        kernel[(1,)](x)
    assert "test_language_gaps.py:" in str(info.value)


@kiln.jit
def _incremented(values):
    return tl.tuple([v + 1 for v in values])


@kiln.jit
def comprehension_kernel(out_ptr, x_ptr):
    x = tl.load(x_ptr)
    vals = _incremented((1, x, 3.5))  # constexprs and a runtime scalar
    for i in tl.static_range(3):
        tl.store(out_ptr + i, vals[i])
    pairs = [a * b for a, b in ((2, 3), (4, 5))]
    tl.store(out_ptr + 3, pairs[1] + a)  # the target stays bound, as in Triton


def test_list_comprehension_over_a_tuple(backend):
    out = backend.asarray(np.zeros(4, np.float32))
    x = backend.asarray(np.array([10.0], np.float32))
    comprehension_kernel[(1,)](out, x)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), [2.0, 11.0, 4.5, 24.0])


def test_list_comprehension_needs_a_tuple():
    @kiln.jit
    def over_a_tensor(p):
        t = [v for v in tl.arange(0, 4)]
        tl.store(p, t[0])

    with pytest.raises(kiln.CompilationError, match="a list comprehension in a kernel iterates over a tuple"):
        over_a_tensor[(1,)](np.zeros(1, np.float32))
