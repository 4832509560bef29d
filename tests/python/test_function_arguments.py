"""@jit functions passed as kernel arguments, as Triton takes them: constexprs wherever they stand (an
annotated or plain parameter, a tuple or NamedTuple element), each function its own specialization,
called like any helper; the launch links the function into the kernel's module."""
from typing import NamedTuple

import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def square(x):
    return x * x


@kiln.jit
def cube(x):
    return x * x * x


@kiln.jit
def apply_kernel(x_ptr, y_ptr, FN: tl.constexpr, other, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, FN(x) + other(x))  # `other` has no annotation: a function is a constexpr anyway


def test_functions_as_arguments(backend):
    x = np.linspace(-2, 2, 16).astype(np.float32)
    y = backend.empty(16, np.float32)
    launch = backend.launcher(apply_kernel)
    launch[(1,)](backend.asarray(x), y, square, cube, BLOCK=16)
    backend.sync()
    np.testing.assert_allclose(backend.numpy(y), x * x + x * x * x, rtol=1e-6)
    launch[(1,)](backend.asarray(x), y, cube, cube, BLOCK=16)
    backend.sync()
    np.testing.assert_allclose(backend.numpy(y), 2 * x * x * x, rtol=1e-6)


def test_each_function_is_a_specialization():
    x = np.ones(16, np.float32)
    y = np.zeros(16, np.float32)
    sigs = {apply_kernel.specialization(x, y, f, g, 16) for f, g in [(square, cube), (cube, square), (square, cube)]}
    assert len(sigs) == 2
    assert all("@fn_" in s for s in sigs)


class Closure(NamedTuple):
    fn: tl.constexpr
    captured: tuple


@kiln.jit
def closure_kernel(closure, x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, closure.fn(tl.load(x_ptr + offs), *closure.captured))


def test_a_function_in_a_namedtuple_defined_in_a_function(backend):
    """Triton's test_namedtuple: a function defined inside the test, passed with its captured tensor."""
    @kiln.jit
    def scale(x, a_ptr):
        return x * tl.load(a_ptr)

    x = np.arange(16, dtype=np.float32)
    a = np.array([2.5], np.float32)
    y = backend.empty(16, np.float32)
    backend.launcher(closure_kernel)[(1,)](Closure(scale, (backend.asarray(a),)), backend.asarray(x), y, BLOCK=16)
    backend.sync()
    np.testing.assert_allclose(backend.numpy(y), x * 2.5)


def test_a_plain_python_function_is_refused():
    for f in (abs, lambda v: v):
        with pytest.raises(kiln.ArgumentError, match=r"argument 2 \('FN'\) is a Python function, not a @jit function"):
            apply_kernel[(1,)](np.ones(16, np.float32), np.ones(16, np.float32), f, square, BLOCK=16)
