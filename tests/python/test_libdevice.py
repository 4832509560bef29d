"""triton.language.extra.libdevice and extra.cuda: the libdevice functions kiln's language has compile as
its tl.math builtins; every other Triton libdevice name imports, and using it is a located
CompilationError "not supported by kiln" (not an AttributeError at import)."""
import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl
from kiln.language.extra import cuda, libdevice
from kiln.language.extra.libdevice import exp as libdevice_exp


@kiln.jit
def through_module(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = libdevice.exp(x) + libdevice.sqrt(x) + libdevice.floor(x) + libdevice.fma_rn(x, x, x) + libdevice_exp(x)
    tl.store(out_ptr + offs, y)


@kiln.jit
def through_tl(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.extra.cuda.libdevice.rsqrt(x) + tl.extra.libdevice.div_rn(x, 3.0))


@kiln.jit
def uses_cosh(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, libdevice.cosh(tl.load(x_ptr + offs)))


@kiln.jit
def uses_tanh(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.tanh(tl.load(x_ptr + offs)))


@kiln.jit
def uses_smid(x_ptr):
    tl.store(x_ptr, cuda.smid())


def test_supported_functions_compute(rng):
    x = rng.uniform(0.5, 4.0, 64).astype(np.float32)
    out = np.zeros_like(x)
    through_module[(1,)](x, out, BLOCK=64)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out, 2 * np.exp(xd) + np.sqrt(xd) + np.floor(xd) + xd * xd + xd, rtol=1e-5)
    through_tl[(1,)](x, out, BLOCK=64)
    np.testing.assert_allclose(out, 1 / np.sqrt(xd) + xd / 3, rtol=1e-5)
    # tanh across both of its branches (|x| < 0.55 and beyond), both signs, and saturation
    t = np.concatenate([rng.uniform(-0.6, 0.6, 32), rng.uniform(-12, 12, 32)]).astype(np.float32)
    uses_tanh[(1,)](t, out, BLOCK=64)
    np.testing.assert_allclose(out, np.tanh(t.astype(np.float64)), rtol=4e-7, atol=1e-30)


def test_other_names_import_and_fail_at_their_use():
    assert callable(libdevice.cosh) and callable(libdevice.fast_dividef) and callable(cuda.globaltimer)
    with pytest.raises(RuntimeError, match="runs only inside a @jit kernel"):
        libdevice.cosh(1.0)
    with pytest.raises(kiln.CompilationError) as e:
        uses_cosh[(1,)](np.zeros(8, np.float32), BLOCK=8)
    assert "libdevice.cosh is not supported by kiln" in str(e.value)
    assert e.value.file.endswith("test_libdevice.py") and e.value.line == uses_cosh.fn.__code__.co_firstlineno + 3
    with pytest.raises(kiln.CompilationError, match="tl.extra.cuda.smid is not supported by kiln"):
        uses_smid[(1,)](np.zeros(1, np.int32))


def test_a_name_triton_does_not_have_is_an_attribute_error():
    with pytest.raises(AttributeError):
        libdevice.no_such_function


def test_under_compat():
    with kiln.compat.as_triton():
        from triton.language.extra import libdevice as a
        from triton.language.extra.cuda import libdevice as b
        import triton.language.extra.libdevice as c
        import triton.language as tl_
        assert a is b is c is libdevice and tl_.extra.cuda.libdevice is libdevice
        from triton.language.extra.libdevice import fast_dividef  # noqa: F401
