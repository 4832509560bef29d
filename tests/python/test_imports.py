"""@jit helpers and constants of other modules, reached as Triton reaches them (through the function's
__globals__): `from helpers import add`, `import helpers` then `helpers.add(...)` and `helpers.BLOCK`,
aliases, and helpers that use their own module's names and other modules in turn. Errors in imported
code point into its file; names that resolve to something a kernel cannot use say what it is."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
import kiln_helpers
import kiln_helpers as h
from kiln_helpers import BLOCK, DTYPE, ENABLED, WRAPPED, add, host_only
from kiln_helpers import add as plus


@kiln.jit
def from_import_kernel(x_ptr, y_ptr, out_ptr, n):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, add(tl.load(x_ptr + offs, mask=m), tl.load(y_ptr + offs, mask=m)), mask=m)


@kiln.jit
def module_attribute_kernel(x_ptr, out_ptr, n):
    offs = tl.arange(0, kiln_helpers.BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, kiln_helpers.scaled(x) + kiln_helpers.OFFSET, mask=m)


@kiln.jit
def alias_kernel(x_ptr, out_ptr, n):
    offs = tl.arange(0, h.BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = plus(x, h.add(x, 1.0))
    if ENABLED:
        y = y + WRAPPED
    tl.store(out_ptr + offs, (y + LATE).to(DTYPE), mask=m)


twice = kiln_helpers._twice  # a @jit function of another module under a name of this one


@kiln.jit
def assigned_helper_kernel(x_ptr):
    tl.store(x_ptr, twice(tl.load(x_ptr)))


@kiln.jit
def local_shadows_import(x_ptr):
    add = 5.0  # a local named like the imported helper: the local wins
    tl.store(x_ptr, add)


@kiln.jit
def host_function_kernel(x_ptr):
    tl.store(x_ptr, host_only(1.0))


@kiln.jit
def missing_attribute_kernel(x_ptr):
    tl.store(x_ptr, kiln_helpers.NOT_THERE)


@kiln.jit
def list_value_kernel(x_ptr):
    tl.store(x_ptr, kiln_helpers.SIZES)


@kiln.jit
def triton_names_through_a_module(x_ptr, out_ptr):
    # kiln_helpers.tl is triton.language; kiln_helpers.DTYPE a dtype.
    x = kiln_helpers.tl.load(x_ptr + kiln_helpers.tl.arange(0, 4))
    tl.store(out_ptr + tl.arange(0, 4), x.to(kiln_helpers.DTYPE))


@kiln.jit
def broken_helper_kernel(x_ptr):
    tl.store(x_ptr, kiln_helpers.broken(1.0))


def run(kernel, backend, n=50):
    xh = (np.arange(n, dtype=np.float32) - 20) / 4
    yh = np.full(n, 0.25, np.float32)
    x, y, out = backend.asarray(xh), backend.asarray(yh), backend.empty(n, np.float32)
    return xh, yh, x, y, out


def test_from_import(backend):
    n = 50
    xh, yh, x, y, out = run(from_import_kernel, backend, n)
    from_import_kernel[(1,)](x, y, out, n)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), xh + yh)


def test_module_attributes_and_transitive_helpers(backend):
    n = 50
    xh, _, x, _, out = run(module_attribute_kernel, backend, n)
    ck = module_attribute_kernel[(1,)](x, out, n)
    backend.sync()
    want = xh * 2 * 3 + 100 + xh * 10 + 0.5
    np.testing.assert_allclose(backend.numpy(out), want, rtol=1e-6)
    assert ck.signature.endswith("i32")


def test_aliases_dtypes_and_late_names(backend):
    n = 50
    xh, _, x, _, out = run(alias_kernel, backend, n)
    out = backend.empty(n, np.float16)
    alias_kernel[(1,)](x, out, n)
    backend.sync()
    want = (xh + (xh + 1) + 7 + 0.125).astype(np.float16)
    np.testing.assert_array_equal(backend.numpy(out), want)
    assert alias_kernel.specialization(x, out, n).endswith("i32")


def test_a_helper_assigned_to_a_module_name():
    x = np.full(1, 1.5, np.float32)
    assigned_helper_kernel[(1,)](x)
    assert x[0] == 3.0


def test_kernels_in_functions_read_their_closure():
    scale = 2

    @kiln.jit
    def closure(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr) * scale + kiln_helpers.OFFSET)

    x = np.ones(1, np.float32)
    closure[(1,)](x)
    assert x[0] == 2 + kiln_helpers.OFFSET


def test_a_local_shadows_an_import():
    x = np.zeros(1, np.float32)
    local_shadows_import[(1,)](x)
    assert x[0] == 5.0


def test_python_function_from_another_module_is_a_located_error():
    with pytest.raises(kiln.CompilationError) as info:
        host_function_kernel[(1,)](np.zeros(1, np.float32))
    e = info.value
    assert e.file == __file__
    assert e.line == host_function_kernel.fn.__code__.co_firstlineno + 2 and e.col > 0
    assert e.message.startswith("'host_only' is a Python function, not a @jit function")
    assert "tl.store(x_ptr, host_only(1.0))" in str(e)


def test_missing_and_unusable_module_attributes():
    with pytest.raises(kiln.CompilationError, match="module 'kiln_helpers' has no attribute 'NOT_THERE'") as info:
        missing_attribute_kernel[(1,)](np.zeros(1, np.float32))
    assert info.value.file == __file__
    with pytest.raises(kiln.CompilationError, match=r"'kiln_helpers.SIZES' is a list: kernels can use @jit "
                                                     r"functions and constants"):
        list_value_kernel[(1,)](np.zeros(1, np.float32))


def test_triton_names_reached_through_another_module():
    x, out = np.arange(4, dtype=np.float32) + 0.5, np.zeros(4, np.float16)
    triton_names_through_a_module[(1,)](x, out)
    np.testing.assert_array_equal(out, x.astype(np.float16))


def test_errors_inside_an_imported_helper_point_into_its_file():
    with pytest.raises(kiln.CompilationError) as info:
        broken_helper_kernel[(1,)](np.zeros(1, np.float32))
    e = info.value
    assert e.file == kiln_helpers.__file__
    assert e.line == kiln_helpers.broken.fn.__code__.co_firstlineno + 2
    assert "return tl.lod(x)" in str(e)
    assert "note: in 'kiln_helpers.broken' called from here" in str(e)  # linked as module.function


LATE = 0.125  # defined after the kernels that use it: read on their first compilation
