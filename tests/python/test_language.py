"""kiln.language on the host: a stub for every builtin the compiler supports, dtypes, constexpr; and
kiln.testing (do_bench, assert_close), cdiv, next_power_of_2."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from kiln import _kiln


def test_every_compiler_builtin_has_a_name():
    for name in _kiln.builtin_names("tl"):
        assert callable(getattr(tl, name)), name
    for name in _kiln.builtin_names("math"):
        assert callable(getattr(tl.math, name)), name
    for name in _kiln.builtin_names("random"):
        assert callable(getattr(tl.random, name)) and callable(getattr(tl, name)), name
    for name in _kiln.builtin_names("triton"):
        assert callable(getattr(kiln, name)), name
    for name in ("load", "store", "dot", "arange", "program_id", "sum", "max", "where", "exp2"):
        assert name in _kiln.builtin_names("tl")


def test_stubs_explain_themselves():
    with pytest.raises(RuntimeError, match=r"tl.load\(\) runs only inside a @jit kernel"):
        tl.load(None)
    with pytest.raises(RuntimeError, match=r"tl.math.exp2\(\)"):
        tl.math.exp2(1.0)


def test_dtypes():
    assert tl.float16.name == "fp16" and tl.bfloat16.name == "bf16" and tl.int32.name == "int32"
    assert tl.float32.primitive_bitwidth == 32 and tl.float16.fp_mantissa_width == 10
    assert tl.float16.is_fp16() and tl.float16.is_floating() and not tl.float16.is_int()
    assert tl.uint8.is_int_unsigned() and tl.int1.is_bool() and tl.int64.int_bitwidth == 64
    assert tl.float8e4nv.is_fp8() and tl.float8e5.is_fp8e5()
    assert tl.pointer_type(tl.float32).element_ty == tl.float32 and tl.pointer_type(tl.float32).is_ptr()
    assert tl.pi32_t.element_ty == tl.int32
    assert tl.float32 == tl.float32 and tl.float32 != tl.float16
    assert repr(tl.bfloat16) == "triton.language.bfloat16"
    assert tl.PropagateNan.ALL != tl.PropagateNan.NONE


def test_constexpr():
    c = tl.constexpr(128)
    assert c.value == 128 and c == 128 and int(c) == 128
    assert kiln.cdiv(1000, c) == 8
    assert (c * 2).value == 256 and (2 * c).value == 256 and (c // 3).value == 42
    assert list(range(c))[-1] == 127
    assert tl.constexpr(tl.constexpr(3)).value == 3


@pytest.mark.parametrize("n, p", [(0, 1), (1, 1), (2, 2), (3, 4), (1000, 1024), (1024, 1024), (2**40 + 1, 2**41)])
def test_next_power_of_2(n, p):
    assert kiln.next_power_of_2(n) == p


def test_cdiv():
    assert kiln.cdiv(10, 3) == 4 and kiln.cdiv(9, 3) == 3 and kiln.cdiv(0, 5) == 0


def test_do_bench_without_a_gpu(monkeypatch):
    import kiln.testing as kt
    monkeypatch.setattr(kt, "_torch_cuda", lambda: None)
    calls = []
    ms = kt.do_bench(lambda: calls.append(1), warmup=1, rep=2)
    assert ms >= 0 and len(calls) > 1
    q = kt.do_bench(lambda: None, warmup=1, rep=2, quantiles=[0.2, 0.5, 0.8])
    assert len(q) == 3 and q[0] <= q[1] <= q[2]
    assert len(kt.do_bench(lambda: None, warmup=0, rep=1, return_mode="all")) >= 1
    with pytest.raises(ValueError):
        kt.do_bench(lambda: None, warmup=0, rep=1, return_mode="mode")


def test_quantiles_interpolate():
    import kiln.testing as kt
    assert kt._quantiles([1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0]) == [1.0, 2.5, 4.0]


def test_assert_close():
    kiln.testing.assert_close(np.array([1.0, 2.0]), np.array([1.001, 2.0]))
    with pytest.raises(AssertionError):
        kiln.testing.assert_close(np.array([1.0, 2.0]), np.array([1.1, 2.0]))
    kiln.testing.assert_close(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    with pytest.raises(AssertionError):
        kiln.testing.assert_close(np.array([1.0, 2.0]), np.array([1.5, 2.0]), atol=0, rtol=0.1)
    kiln.testing.assert_close(np.array([True, False]), np.array([True, False]))


def test_interpret_flag(monkeypatch, tmp_path):
    # KILN_INTERPRET=1 when a kernel is decorated makes it an interpreted kernel.
    src = tmp_path / "interp_mod.py"
    src.write_text("import kiln\nimport kiln.language as tl\n\n@kiln.jit\ndef k(x_ptr):\n"
                   "    tl.store(x_ptr, tl.load(x_ptr) + 1)\n\n@kiln.jit(interpret=False)\ndef g(x_ptr):\n    pass\n")
    monkeypatch.setenv("KILN_INTERPRET", "1")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    mod = importlib.import_module("interp_mod")
    assert mod.k.interpreted and not mod.g.interpreted
    x = np.zeros(1, np.float32)
    mod.k[(1,)](x)
    assert x[0] == 1
