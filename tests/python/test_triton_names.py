"""Triton names that host code and Triton's own tests import: triton.TritonError and
triton.runtime.errors.InterpreterError (kiln's errors derive from them), triton.reinterpret /
TensorWrapper (a tensor seen by a kernel as another element type), the tl.dtype type lists, and
triton.knobs."""
import os
import warnings

import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl
from kiln import knobs


@kiln.jit
def shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) >> 1, mask=m)


@kiln.jit
def upcast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m).to(tl.float32), mask=m)


@kiln.jit
def bad_axis_kernel(x_ptr, BLOCK: tl.constexpr):
    t = tl.expand_dims(tl.arange(0, BLOCK), 3)
    tl.store(x_ptr + t, t)


@kiln.jit
def out_of_bounds_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs)


# ---- errors


def test_error_hierarchy():
    assert issubclass(kiln.KilnError, kiln.TritonError) and issubclass(kiln.InterpreterError, kiln.TritonError)
    for cls in (kiln.CompilationError, kiln.KernelError):
        assert issubclass(cls, kiln.KilnError) and issubclass(cls, kiln.InterpreterError)
    assert issubclass(kiln.KernelError, RuntimeError) and issubclass(kiln.ArgumentError, TypeError)
    for cls in (kiln.ArgumentError, kiln.OutOfResources, kiln.DeviceError):
        assert issubclass(cls, kiln.TritonError) and not issubclass(cls, kiln.InterpreterError)
    assert kiln.runtime.errors.InterpreterError is kiln.InterpreterError is kiln.runtime.InterpreterError


def test_compile_error_is_an_interpreter_error_caused_by_its_message():
    with pytest.raises(kiln.InterpreterError) as e:
        bad_axis_kernel[(1,)](np.zeros(4, np.int32), BLOCK=4)
    assert isinstance(e.value, kiln.CompilationError)
    assert "test_triton_names.py" in str(e.value)  # the located text
    cause = e.value.__cause__
    assert isinstance(cause, kiln.CompilationError) and str(cause) == e.value.message
    assert "test_triton_names.py" not in str(cause) and "axis" in str(cause)


def test_kernel_error_is_an_interpreter_error():
    with pytest.raises(kiln.InterpreterError) as e:
        out_of_bounds_kernel[(1,)](np.zeros(4, np.int32), BLOCK=8)
    assert isinstance(e.value, kiln.KernelError)
    assert e.value.__cause__ is not None and str(e.value.__cause__) in str(e.value)


def test_errors_under_compat():
    with kiln.compat.as_triton():
        import triton
        from triton.runtime.errors import InterpreterError
        assert triton.TritonError is kiln.TritonError and InterpreterError is kiln.InterpreterError
        assert triton.InterpreterError is InterpreterError
        try:
            bad_axis_kernel[(1,)](np.zeros(4, np.int32), BLOCK=4)
        except triton.TritonError as e:
            assert isinstance(e, triton.CompilationError)
        else:
            pytest.fail("no error")


# ---- reinterpret / TensorWrapper


def test_reinterpret_numpy_as_unsigned():
    x = np.array([-2, 6, -8, 1], dtype=np.int32)
    y = np.zeros(4, np.int32)
    xu, yu = kiln.reinterpret(x, tl.uint32), kiln.reinterpret(y, tl.uint32)
    assert isinstance(xu, kiln.TensorWrapper) and xu.base is x and xu.dtype == tl.uint32
    assert shift_kernel.specialization(xu, yu, 4, BLOCK=4).startswith("*u32:16, *u32:16")
    shift_kernel[(1,)](xu, yu, 4, BLOCK=4)
    np.testing.assert_array_equal(y.view(np.uint32), x.view(np.uint32) >> 1)  # a logical shift
    shift_kernel[(1,)](x, y, 4, BLOCK=4)
    np.testing.assert_array_equal(y, x >> 1)  # the arithmetic one, unwrapped


def test_reinterpret_int8_as_fp8():
    bits = np.array([0x3C, 0x40, 0xBC, 0x00], dtype=np.uint8).view(np.int8)  # e5m2: 1, 2, -1, 0
    out = np.zeros(4, np.float32)
    upcast_kernel[(1,)](kiln.reinterpret(bits, tl.float8e5), out, 4, BLOCK=4)
    np.testing.assert_array_equal(out, [1.0, 2.0, -1.0, 0.0])
    # fp8e4b15: Triton's bias-15 e4m3 with no inf or NaN (0x7f is 1.875)
    bits = np.array([0x78, 0x7F, 0xF8, 0x01], np.uint8)
    upcast_kernel[(1,)](kiln.reinterpret(bits, tl.float8e4b15), out, 4, BLOCK=4)
    np.testing.assert_array_equal(out, [1.0, 1.875, -1.0, 2.0**-17])


def test_reinterpret_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    x = torch.tensor([-2, 6, -8, 1], dtype=torch.int16)
    y = torch.zeros(4, dtype=torch.int16)
    shift_kernel[(1,)](kiln.reinterpret(x, tl.uint16), kiln.reinterpret(y, tl.uint16), 4, BLOCK=4)
    np.testing.assert_array_equal(y.numpy().view(np.uint16), x.numpy().view(np.uint16) >> 1)
    # a torch dtype names the view as well (Triton's tests pass torch.float16 and friends)
    h = torch.tensor([1.5, -2.0], dtype=torch.float16).view(torch.int16)
    out = torch.zeros(2, dtype=torch.float32)
    upcast_kernel[(1,)](kiln.reinterpret(h, torch.float16), out, 2, BLOCK=2)
    assert out.tolist() == [1.5, -2.0]
    w = kiln.reinterpret(x, tl.uint16)
    assert w.stride() == (1,) and w.numel() == 4 and w.element_size() == 2 and not w.is_cuda
    assert w.clone().base is not x and w.cpu().dtype == tl.uint16


@pytest.mark.skipif(not kiln.has_gpu(), reason="needs a GPU")
def test_reinterpret_cuda_tensor():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs torch.cuda")
    x = torch.tensor([-2, 6, -8, 1], dtype=torch.int32, device="cuda")
    y = torch.zeros(4, dtype=torch.int32, device="cuda")
    shift_kernel[(1,)](kiln.reinterpret(x, tl.uint32), kiln.reinterpret(y, tl.uint32), 4, BLOCK=4)
    np.testing.assert_array_equal(y.cpu().numpy().view(np.uint32), x.cpu().numpy().view(np.uint32) >> 1)


def test_reinterpret_round_trip_and_misuse():
    x = np.zeros(4, np.int32)
    w = kiln.reinterpret(x, tl.uint32)
    assert kiln.reinterpret(w, tl.int32) is x
    assert kiln.reinterpret(w, tl.float32).base is x
    assert w.stride() == (1,) and w.numel() == 4 and w.element_size() == 4 and w.data_ptr() == x.ctypes.data
    with pytest.raises(TypeError, match="cannot reinterpret"):
        kiln.reinterpret(3, tl.uint32)


@pytest.mark.parametrize("dtype", [tl.pointer_type(tl.int32)])
def test_reinterpret_as_a_dtype_kiln_cannot_point_to(dtype):
    with pytest.raises(kiln.ArgumentError, match=r"argument 0 \('x_ptr'\) is a TensorWrapper of dtype"):
        upcast_kernel[(1,)](kiln.reinterpret(np.zeros(4, np.int8), dtype), np.zeros(4, np.float32), 4, BLOCK=4)


def test_another_packages_tensor_wrapper():
    class TensorWrapper:  # e.g. the real triton's, from code that imported it before kiln.compat
        def __init__(self, base, dtype):
            self.base, self.dtype = base, dtype

    x = np.array([-2, 4], dtype=np.int32)
    y = np.zeros(2, np.int32)
    shift_kernel[(1,)](TensorWrapper(x, tl.uint32), TensorWrapper(y, tl.uint32), 2, BLOCK=2)
    np.testing.assert_array_equal(y.view(np.uint32), x.view(np.uint32) >> 1)


def test_runtime_jit_module_under_compat():
    with kiln.compat.as_triton():
        import triton
        from triton.runtime.jit import JITFunction, TensorWrapper, reinterpret, type_canonicalisation_dict
        assert triton.reinterpret is reinterpret is kiln.reinterpret and TensorWrapper is kiln.TensorWrapper
        assert JITFunction is kiln.JITFunction
    assert type_canonicalisation_dict["bool"] == "u1" and type_canonicalisation_dict["float8_e5m2"] == "fp8e5"
    assert type_canonicalisation_dict["uint32"] == "u32" and type_canonicalisation_dict["fp16"] == "fp16"


# ---- tl.dtype


def test_dtype_type_lists():
    names = tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.FP_TYPES + tl.dtype.OTHER_TYPES
    assert tl.dtype.SINT_TYPES == ["int8", "int16", "int32", "int64"]
    assert tl.dtype.UINT_TYPES == ["int1", "uint8", "uint16", "uint32", "uint64"]
    assert set(tl.dtype.STANDARD_FP_TYPES) <= set(tl.dtype.FP_TYPES) and len(tl.dtype.FP_TYPES) == 9
    for d in map(tl.dtype, names):
        assert d.is_int_signed() == (d.name in tl.dtype.SINT_TYPES)
        assert d.is_int_unsigned() == (d.name in tl.dtype.UINT_TYPES)
        assert d.is_floating() == (d.name in tl.dtype.FP_TYPES)
    assert tl.int1.is_int_unsigned() and tl.int1.primitive_bitwidth == 1


# ---- knobs


def test_interpret_knob_is_kiln_interpret():
    with knobs.runtime.scope():
        knobs.runtime.interpret = True
        assert os.environ["KILN_INTERPRET"] == "1" and knobs.runtime.interpret is True
        assert kiln.jit(upcast_kernel.fn).interpreted
        knobs.runtime.interpret = False
        assert not knobs.runtime.interpret and not kiln.jit(upcast_kernel.fn).interpreted


def test_knobs_kiln_does_not_honour_raise_when_set():
    assert knobs.language.default_fp_fusion is True and knobs.runtime.override_arch is None
    knobs.language.default_fp_fusion = True  # the default: accepted
    knobs.runtime.jit_cache_hook = None
    with pytest.raises(NotImplementedError, match="knobs.language.default_fp_fusion = False.*enable_fp_fusion"):
        knobs.language.default_fp_fusion = False
    with pytest.raises(NotImplementedError, match="knobs.runtime.jit_cache_hook"):
        knobs.runtime.jit_cache_hook = print
    with pytest.raises(NotImplementedError, match="override_arch"):
        knobs.runtime.override_arch = "sm80"
    with pytest.raises(AttributeError, match="kiln.knobs has no 'nvidia'"):
        knobs.nvidia


def test_cache_dir_knob_warns_that_this_process_keeps_its_directory(tmp_path):
    before = knobs.cache.dir
    with knobs.cache.scope():
        knobs.cache.dir = before  # no change: no warning
        with pytest.warns(knobs.KnobWarning, match="this process keeps"):
            knobs.cache.dir = str(tmp_path)
        assert knobs.cache.dir == before and os.environ["KILN_CACHE_DIR"] == str(tmp_path)
    assert os.environ.get("KILN_CACHE_DIR") != str(tmp_path)


def test_knobs_have_the_structure_fresh_knobs_fixtures_use():
    with kiln.compat.as_triton():
        from triton import knobs as tk
        import triton.knobs
        assert tk is knobs is triton.knobs
    groups = {n: g for n, g in vars(knobs).items() if isinstance(g, knobs.base_knobs)}
    assert {"runtime", "cache", "language", "compilation", "autotuning"} <= set(groups)
    for g in groups.values():
        fresh = g.copy().reset()
        assert type(fresh) is type(g) and all(isinstance(d.key, str) for d in fresh.knob_descriptors.values())
        assert set(fresh.knobs) == set(g.knob_descriptors)
    assert knobs.propagate_env is True
    with knobs.runtime.scope(), warnings.catch_warnings():
        warnings.simplefilter("error")
        knobs.runtime.interpret = knobs.env  # back to the default (the variable unset)
        assert "KILN_INTERPRET" not in os.environ and knobs.runtime.interpret is False


@kiln.jit
def arithmetic_functions_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.add(x, 3) + tl.sub(x, 1, sanitize_overflow=False) * tl.mul(x, x)
    tl.static_assert(tl.TRITON_MAX_TENSOR_NUMEL == 1048576)
    tl.store(out_ptr + offs, y)


def test_add_sub_mul_and_max_numel():
    """tl.add / tl.sub / tl.mul (Triton 3.6's functions behind the operators) and TRITON_MAX_TENSOR_NUMEL."""
    x = np.arange(8, dtype=np.int32)
    out = np.zeros(8, np.int32)
    arithmetic_functions_kernel[(1,)](x, out, BLOCK=8)
    np.testing.assert_array_equal(out, x + 3 + (x - 1) * x * x)
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1048576
