"""Tuple kernel arguments, as Triton 3.6 takes them: nested tuples of tensors, numbers, None and
tl.constexpr(...) values, NamedTuples, constexpr tuples, specialization inside tuples, and the errors
for what a kernel cannot take."""
from typing import NamedTuple

import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def _assign(XPtrs, YPtrs, values):
    X0, X1 = XPtrs
    x0, x1, _ = values
    tl.store(X0, x0)
    tl.store(X1, x1)
    Y = YPtrs[0], YPtrs[1], YPtrs[2]
    y = x0, 10, x1
    for i in tl.static_range(3):
        tl.store(Y[i], y[i])


def test_tuples_of_pointers_and_floats(backend):
    x = tuple(backend.asarray(np.zeros(1, np.float32)) for _ in range(2))
    y = tuple(backend.asarray(np.zeros(1, np.float32)) for _ in range(3))
    _assign[(1,)](x, y, (2.0, 3.0, None))
    backend.sync()
    assert [float(backend.numpy(t)[0]) for t in x] == [2.0, 3.0]
    assert [float(backend.numpy(t)[0]) for t in y] == [2.0, 10.0, 3.0]


@kiln.jit
def _inner(Ptr, cst: tl.constexpr, t):
    tl.static_assert(t[1] is None)
    tl.store(Ptr + 5, cst)
    tl.store(Ptr + 6, t[0])
    tl.store(Ptr + 7, tl.load(t[2][0]))
    tl.store(Ptr + 8, t[2][1][0])


@kiln.jit
def _serialize(Ptr, N1, t1, cst1: tl.constexpr, val1, t2):
    tl.static_assert(N1 is None)
    tl.static_assert(t1[1][1] is None)
    tl.static_assert(t1[1][3] == 4)  # a tl.constexpr element is a compile-time value
    tl.store(Ptr + 0, tl.load(t1[0]))
    tl.store(Ptr + 1, t1[1][0])
    tl.store(Ptr + 2, tl.load(t1[1][2]))
    tl.store(Ptr + 3, cst1 + val1)
    tl.store(Ptr + 4, tl.load(t2[0]))
    _inner(Ptr, 15, (-1, None, t1))  # a tuple argument passed on to a helper


def test_nested_tuples_specialize_like_arguments(backend):
    x0, x1, y0 = (backend.asarray(np.array([v], np.int32)) for v in (8, 12, 10))
    z = backend.asarray(np.zeros(9, np.int32))
    args = (z, None, (x0, (1, None, x1, tl.constexpr(4))), 20, 1, (y0,))
    # Specialization reaches into the tuples: aligned pointers carry :16, the int 1 is the constant 1.
    assert _serialize.specialization(*args) == "*i32:16, None, (*i32:16, (1, None, *i32:16, 4)), 20, 1, (*i32:16,)"
    _serialize[(1,)](*args)
    backend.sync()
    assert backend.numpy(z).tolist() == [8, 1, 12, 21, 10, 15, -1, 8, 1]


@kiln.jit
def _reshape(Z, X, out_shape: tl.constexpr):
    x = tl.load(X + tl.arange(0, 8))
    z = tl.reshape(x, out_shape)
    tl.store(Z + tl.arange(0, out_shape[0])[:, None] * out_shape[1] + tl.arange(0, out_shape[1])[None, :], z)


def test_constexpr_tuple(backend):
    x = backend.asarray(np.arange(8, dtype=np.int32))
    z = backend.asarray(np.zeros((2, 4), np.int32))
    assert _reshape.specialization(z, x, (2, 4)).endswith(", (2, 4)")
    _reshape[(1,)](z, x, (2, 4))
    backend.sync()
    assert backend.numpy(z).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]


class Desc(NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple


@kiln.jit
def _copy_desc(src, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < src.shape[0]
    tl.store(dst.ptr + offs * dst.stride[0], tl.load(src.ptr + offs * src.stride[0], mask=mask), mask=mask)


def test_namedtuple(backend):
    a = backend.asarray(np.arange(10, dtype=np.float32))
    b = backend.asarray(np.zeros(10, np.float32))
    src, dst = Desc(a, (10,), (1,)), Desc(b, (10,), (1,))
    assert _copy_desc.specialization(src, dst, 16).startswith("Desc(ptr=*fp32:16, shape=(i32,), stride=(1,))")
    _copy_desc[(1,)](src, dst, BLOCK=16)
    backend.sync()
    assert backend.numpy(b).tolist() == list(range(10))


@kiln.jit
def _sum_tuple(out, vals):
    acc = 0.0
    for i in tl.static_range(len(vals)):
        acc += vals[i]
    tl.store(out, acc)


def test_each_specialization_compiles_once():
    out = np.zeros(1, np.float32)
    for vals in [(1.0, 2.0), (3.0, 4.0), (1.0, 2.0, 3.0), (), (5, 16), (5, 17)]:
        _sum_tuple[(1,)](out, vals)
        assert out[0] == sum(vals)
    # fp32 pairs share a kernel; the triple, the empty tuple and each int pair (17 vs 16: i32 vs i32:16) do not.
    sigs = {_sum_tuple.specialization(out, v) for v in [(1.0, 2.0), (1.0, 2.0, 3.0), (), (5, 16), (5, 17)]}
    assert sigs == {"*fp32:16, (fp32, fp32)", "*fp32:16, (fp32, fp32, fp32)", "*fp32:16, ()",
                    "*fp32:16, (i32, i32:16)", "*fp32:16, (i32, i32)"}


def test_tl_tuple_in_kernels():
    @kiln.jit
    def k(out):
        t = tl.tuple((1, 2)) + (3,)
        tl.static_assert(t == (1, 2, 3))
        tl.static_assert(tl.tuple([4, 5])[1] == 5)
        tl.static_assert(tuple() == ())
        for i in tl.static_range(3):
            tl.store(out + i, t[i])

    out = np.zeros(3, np.int32)
    k[(1,)](out)
    assert out.tolist() == [1, 2, 3]


@kiln.jit
def _takes(t, out):
    tl.store(out, 0)


@pytest.mark.parametrize("bad, why", [
    ([1, 2], "argument 0 ('t') is list, which kiln kernels cannot take (pass a tuple"),
    ({"a": 1}, "argument 0 ('t') is dict"),
    ((1, [2]), "argument 0 ('t'), element [1] is list"),
    ((1, ("s",)), "argument 0 ('t'), element [1][0] is a string, which only a tl.constexpr parameter can take"),
    ((1, object()), "argument 0 ('t'), element [1] is object"),
    ((1, len), "argument 0 ('t'), element [1] is a Python function, not a @jit function"),
])
def test_what_a_tuple_cannot_hold(bad, why):
    with pytest.raises(kiln.ArgumentError) as e:
        _takes[(1,)](bad, np.zeros(1, np.int32))
    assert why in str(e.value)


def test_constexpr_strings_in_tuples():
    @kiln.jit
    def k(t, out):
        tl.static_assert(t[0] == "relu")
        tl.store(out, 1)

    out = np.zeros(1, np.int32)
    k[(1,)]((tl.constexpr("relu"),), out)
    assert out[0] == 1
    assert k.specialization((tl.constexpr("relu"),), out).startswith("('relu',)")


def test_pointer_in_a_constexpr_tuple_is_an_error():
    @kiln.jit
    def k(t: tl.constexpr):
        pass

    with pytest.raises(kiln.ArgumentError, match=r"element \[0\] is a constexpr, but got a tensor"):
        k[(1,)]((np.zeros(1, np.float32),))


def test_warmup_takes_signature_strings_in_tuples():
    compiled = _sum_tuple.warmup("*fp32:16", ("fp32", "fp32"), grid=(1,))
    assert compiled.signature == "*fp32:16, (fp32, fp32)"


@kiln.jit
def _scale_add(x, a, b):
    return x * a + b


@kiln.jit
def _starred_call(x_ptr, y_ptr, coeffs, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, _scale_add(x, *coeffs) + tl.maximum(*(x, 0.5 * x)))


def test_starred_call_arguments(backend):
    """f(x, *t): the tuple's elements are positional arguments, for @jit helpers and builtins alike."""
    xh = np.linspace(-2, 2, 16).astype(np.float32)
    y = backend.empty(16, np.float32)
    _starred_call[(1,)](backend.asarray(xh), y, (3.0, 1.0), 16)
    np.testing.assert_allclose(backend.numpy(y), xh * 3 + 1 + np.maximum(xh, 0.5 * xh), rtol=1e-6)


class Pair(NamedTuple):
    a: object
    b: object = 7


@kiln.jit
def _make_desc(shape, ptr, stride):
    return Desc(shape=shape, ptr=ptr, stride=stride)  # keywords in another order than the fields


@kiln.jit
def _construct_namedtuples(src, dst, out, BLOCK: tl.constexpr):
    s = _make_desc(src.shape, src.ptr, src.stride)
    d = Desc(dst.ptr, dst.shape, stride=dst.stride)
    offs = tl.arange(0, BLOCK)
    mask = offs < s.shape[0]
    tl.store(d.ptr + offs * d.stride[0], tl.load(s.ptr + offs * s.stride[0], mask=mask) * 2, mask=mask)
    p = Pair(3)
    q = Pair(a=1, b=tl.load(src.ptr + 2))
    tl.static_assert(p == (3, 7))
    tl.static_assert(isinstance(p, Pair) and not isinstance(s, Pair) and isinstance(s, Desc))
    tl.static_assert(Desc._fields == ("ptr", "shape", "stride"))
    tl.store(out + 0, p.a * 10 + p.b)
    tl.store(out + 1, q.b + q.a)


def test_namedtuples_made_in_kernels(backend):
    """A NamedTuple class of the kernel's module is callable in kernels as in Python: positional and keyword
    fields, defaults, attribute access, isinstance, passed to and returned from @jit helpers."""
    a = backend.asarray(np.arange(10, dtype=np.float32))
    b = backend.asarray(np.zeros(10, np.float32))
    out = backend.asarray(np.zeros(2, np.float32))
    _construct_namedtuples[(1,)](Desc(a, (10,), (1,)), Desc(b, (10,), (1,)), out, BLOCK=16)
    backend.sync()
    assert backend.numpy(b).tolist() == [2.0 * i for i in range(10)]
    assert backend.numpy(out).tolist() == [37.0, 3.0]


@pytest.mark.parametrize("call, why", [
    ("Pair()", "Pair() missing required argument 'a'"),
    ("Pair(1, 2, 3)", "Pair() takes 2 positional arguments but 3 were given"),
    ("Pair(1, c=2)", "Pair() got an unexpected keyword argument 'c'"),
    ("Pair(1, a=2)", "Pair() got multiple values for argument 'a'"),
])
def test_namedtuple_construction_errors(call, why, tmp_path):
    path = tmp_path / "nt_errors.py"
    path.write_text("from typing import NamedTuple\nimport numpy as np\nimport kiln\nimport kiln.language as tl\n\n\n"
                    "class Pair(NamedTuple):\n    a: object\n    b: object = 7\n\n\n"
                    f"@kiln.jit\ndef k(out):\n    p = {call}\n    tl.store(out, p[0])\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("nt_errors", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(kiln.CompilationError) as e:
        mod.k[(1,)](np.zeros(1, np.int32))
    assert why in str(e.value)
    assert "nt_errors.py:14" in str(e.value)
