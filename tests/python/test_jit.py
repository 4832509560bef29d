"""The launch API: grids, keywords, defaults, launch options, the returned CompiledKernel and its stages,
warmup, specialization keys (computed in C++) and the cache, and every error a launch can raise."""
import ctypes
import sys

import numpy as np
import pytest

import kiln
import kiln.language as tl
from conftest import HAS_CUDA, torch

SCALE = 3  # a module constant: the compiler reads it from this file


@kiln.jit
def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y * SCALE, mask=mask)


@kiln.jit
def twice(x):
    return x * 2


@kiln.jit
def apply_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if OP == "twice":
        x = twice(x)
    tl.store(out_ptr + offs, x, mask=mask)


@kiln.jit(do_not_specialize=["n"])
def copy_nospec(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@kiln.jit(do_not_specialize=[2], noinline=True)
def copy_nospec_index(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@kiln.jit
def grid3d(out_ptr):
    p = tl.program_id(0) + 10 * tl.program_id(1) + 100 * tl.program_id(2)
    n = tl.num_programs(0) + 10 * tl.num_programs(1) + 100 * tl.num_programs(2)
    tl.store(out_ptr + p, n)


@kiln.jit
def typo_kernel(x_ptr):
    tl.store(x_ptr, tl.lod(x_ptr))


@kiln.jit
def overrun(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


@kiln.jit
def transpose_big(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tile = tl.load(x_ptr + offs[:, None] * N + offs[None, :])
    tl.store(y_ptr + offs[:, None] * N + offs[None, :], tl.trans(tile))


@kiln.jit
def double_plus_bias(x_ptr, bias_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if bias_ptr is not None:
        x = x + tl.load(bias_ptr + offs, mask=m)
    tl.store(out_ptr + offs, 2 * x, mask=m)


@kiln.jit
def cast_to(x_ptr, y_ptr, n, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m).to(OUT), mask=m)


def _axpy_ref(xh, yh, alpha):
    return alpha * xh.astype(np.float64) + yh.astype(np.float64) * SCALE


# ---- launching


@pytest.mark.parametrize("grid_kind", ["tuple", "list", "int", "callable"])
def test_grid_forms(backend, rng, grid_kind):
    n = 300
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x, y, out = backend.asarray(xh), backend.asarray(yh), backend.empty(n, np.float32)
    blocks = kiln.cdiv(n, 64)
    grid = {"tuple": (blocks,), "list": [blocks], "int": blocks,
            "callable": lambda meta: (kiln.cdiv(meta["n"], meta["BLOCK"]),)}[grid_kind]
    axpy[grid](x, y, out, n, 0.5)
    np.testing.assert_allclose(backend.numpy(out), _axpy_ref(xh, yh, 0.5), rtol=1e-6)


def test_keywords_defaults_and_options(backend, rng):
    n = 200
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x, y, out = backend.asarray(xh), backend.asarray(yh), backend.empty(n, np.float32)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (kiln.cdiv(meta["n"], meta["BLOCK"]),)

    k = axpy[grid](x_ptr=x, y_ptr=y, out_ptr=out, n=n, alpha=2.0, BLOCK=128, num_warps=2, num_stages=2)
    np.testing.assert_allclose(backend.numpy(out), _axpy_ref(xh, yh, 2.0), rtol=1e-6)
    assert seen["BLOCK"] == 128 and seen["n"] == n and seen["num_warps"] == 2
    assert isinstance(k, kiln.CompiledKernel)
    assert (k.num_warps, k.num_stages) == (2, 2)
    assert k.signature.endswith("fp32, 128")
    # The default BLOCK (64) when it is not given.
    out2 = backend.empty(n, np.float32)
    k2 = axpy[(kiln.cdiv(n, 64),)](x, y, out2, n, 2.0)
    assert k2.signature.endswith(", 64")
    np.testing.assert_allclose(backend.numpy(out2), _axpy_ref(xh, yh, 2.0), rtol=1e-6)


@kiln.jit
def mul_add(a_ptr, b_ptr, c_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(a_ptr + offs) * tl.load(b_ptr + offs) + tl.load(c_ptr + offs))


def test_fp_fusion_rounds_once_unless_disabled(backend):
    # (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: one rounding (fma) keeps the 2^-24; rounding the product first
    # (a tie, to even) loses it. The same on the GPU and on the interpreter.
    a = backend.asarray(np.full(16, 1 + 2.0**-12, np.float32))
    c = backend.asarray(np.full(16, -1.0, np.float32))
    fused, apart = backend.empty(16, np.float32), backend.empty(16, np.float32)
    mul_add[(1,)](a, a, c, fused, BLOCK=16)
    k = mul_add[(1,)](a, a, c, apart, BLOCK=16, enable_fp_fusion=False)
    assert "fma" not in k.asm["ir"] and "mul" in k.asm["ir"]
    np.testing.assert_array_equal(backend.numpy(fused), np.float32(2.0**-11 + 2.0**-24))
    np.testing.assert_array_equal(backend.numpy(apart), np.float32(2.0**-11))


@kiln.jit
def sum_of_squares(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x * x, axis=0))


def test_sum_of_products_contracts_unless_fusion_is_disabled(backend, rng):
    # With fp fusion a sum of single-use products may fuse them into its adds (GPU: an fma chain per
    # thread); either way the sum is the float64 one within f32 rounding.
    xh = rng.standard_normal(4096).astype(np.float32)
    want = np.sum(xh.astype(np.float64) ** 2)
    for fusion in (True, False):
        out = backend.empty(1, np.float32)
        k = sum_of_squares[(1,)](backend.asarray(xh), out, BLOCK=4096, enable_fp_fusion=fusion)
        assert ("contract = 1" in k.asm["ir"]) == fusion
        np.testing.assert_allclose(backend.numpy(out)[0], want, rtol=1e-5)


@kiln.jit
def divide_two_ways(x_ptr, d_ptr, d_each_ptr, shared_ptr, each_ptr, BLOCK: tl.constexpr):
    # Row pid of both outputs: x / d[pid], the divisor one scalar for the row (one reciprocal serves
    # every quotient) and the same divisor loaded once per element (div.full.f32 each).
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(shared_ptr + pid * BLOCK + offs, x / tl.load(d_ptr + pid))
    tl.store(each_ptr + pid * BLOCK + offs, x / tl.load(d_each_ptr + pid * BLOCK + offs))


def test_shared_divisor_quotients_equal_per_element_division(backend, rng):
    # Divisors on both sides of the 2^126 / 2^-126 scaling thresholds, subnormal, signed zeros,
    # infinities and NaN; numerators whose scaled value under- or overflows. Bit for bit equal.
    block = 512
    d = np.array([3.0, -7.5, 2.0**126, 2.0**127, 3e38, -1.5 * 2.0**126, 2.0**-126, 2.0**-127, 1e-45, 1e-30,
                  0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    x = (rng.uniform(-2, 2, block) * 2.0 ** rng.integers(-140, 127, block)).astype(np.float32)  # finite
    x[:6] = [0.0, -0.0, 1e-45, 3e38, -1e-38, np.inf]
    rows = len(d)
    shared, each = backend.empty(rows * block, np.float32), backend.empty(rows * block, np.float32)
    divide_two_ways[(rows,)](backend.asarray(x), backend.asarray(d), backend.asarray(np.repeat(d, block)), shared,
                             each, BLOCK=block)
    np.testing.assert_array_equal(backend.numpy(shared), backend.numpy(each))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = (x[None, :].astype(np.float64) / d[:, None].astype(np.float64)).ravel()
    moderate = (np.abs(want) > 2.0**-120) & (np.abs(want) < 2.0**120)
    np.testing.assert_allclose(backend.numpy(shared)[moderate], want[moderate], rtol=2.5e-7)  # 2 ulp


def test_run_and_helper_and_string_constexpr(backend, rng):
    n = 100
    xh = rng.random(n, dtype=np.float32)
    x, out = backend.asarray(xh), backend.empty(n, np.float32)
    apply_kernel.run(x, out, n, OP="twice", BLOCK=128, grid=(1,))
    np.testing.assert_array_equal(backend.numpy(out), xh * 2)
    apply_kernel[(1,)](x, out, n, "none", 128)
    np.testing.assert_array_equal(backend.numpy(out), xh)


def test_3d_grid_and_empty_grid(backend):
    out = backend.asarray(np.full(1000, -1, dtype=np.int32))
    grid3d[(2, 3, 4)](out)
    got = backend.numpy(out)
    for p in range(2):
        for q in range(3):
            for r in range(4):
                assert got[p + 10 * q + 100 * r] == 432
    assert (got == 432).sum() == 24
    # An empty grid launches nothing (as in Triton) but still compiles.
    out2 = backend.asarray(np.full(10, -1, dtype=np.int32))
    grid3d[(0,)](out2)
    assert (backend.numpy(out2) == -1).all()


def test_compiled_kernel_stages():
    x = np.zeros(64, np.float32)
    k = axpy[(1,)](x, x, x, 64, 1.0)
    assert k.name == "axpy"
    assert set(k.asm) >= {"ast", "ir", "ir-before-passes", "ttir", "gpu-ir", "ptx"}
    assert "tt.func" in k.asm["ir"] or "func" in k.asm["ir"]
    assert ".entry axpy" in k.asm["ptx"]
    assert ".target sm_80" in k.stage("ptx", "sm_80")
    assert [name for name, _ in k.params] == ["x_ptr", "y_ptr", "out_ptr", "n", "alpha"]
    if not HAS_CUDA:  # registers, spills and shared memory come from the driver once loaded
        assert k.n_regs is None and k.n_spills is None and k.shared is None
    # The same specialization returns the very same object.
    assert axpy[(1,)](x, x, x, 64, 1.0) is k


def test_warmup_with_type_strings():
    before = axpy.cache_size
    k = axpy.warmup("*fp32:16", "*fp32:16", "*fp32", "i32", "fp32", BLOCK=32, grid=(1,))
    assert k.signature == "*fp32:16, *fp32:16, *fp32, i32, fp32, 32"
    assert "ptr<f32>" in k.asm["ir"]
    assert axpy.cache_size == before + 1


def test_jit_function_is_not_callable():
    with pytest.raises(kiln.KilnError, match=r"axpy\[grid\]"):
        axpy(1, 2, 3)


# ---- specialization keys


def _aligned(n, dtype=np.float32, offset=0):
    """A NumPy array whose data starts `offset` bytes past a 16-byte boundary."""
    item = np.dtype(dtype).itemsize
    raw = np.zeros(n + 64 // item, dtype=dtype)
    start = (-raw.ctypes.data % 16 + offset) // item
    a = raw[start:start + n]
    assert a.ctypes.data % 16 == offset
    return a


@pytest.mark.parametrize("n, entry", [
    (1, "1"), (16, "i32:16"), (24, "i32:8"), (17, "i32"), (-32, "i32:16"), (2**31 - 1, "i32"), (2**31, "i64:16"),
    (2**40 + 1, "i64"), (2**63, "u64:16"), (2**64 - 1, "u64"), (True, "i1"), (2.5, "fp32"),
])
def test_scalar_specialization(n, entry):
    x = _aligned(16)
    sig = axpy.specialization(x, x, x, n, 1.0, BLOCK=16)
    assert sig == f"*fp32:16, *fp32:16, *fp32:16, {entry}, fp32, 16"


def test_pointer_alignment_and_dtypes():
    a16, a4 = _aligned(8), _aligned(8, offset=4)
    assert copy_nospec.specialization(a16, a4, 5, 8) == "*fp32:16, *fp32, i32, 8"
    for dtype, name in [(np.float16, "fp16"), (np.float64, "fp64"), (np.int8, "i8"), (np.int16, "i16"),
                        (np.int32, "i32"), (np.int64, "i64"), (np.uint8, "u8"), (np.uint32, "u32"),
                        (np.bool_, "i1")]:
        a = _aligned(16, dtype)
        assert copy_nospec.specialization(a, a, 3, 8).startswith(f"*{name}:16, *{name}:16,")


def test_do_not_specialize():
    a = _aligned(16)
    assert copy_nospec.specialization(a, a, 1, 8) == "*fp32:16, *fp32:16, i32, 8"
    assert copy_nospec.specialization(a, a, 32, 8) == "*fp32:16, *fp32:16, i32, 8"
    assert copy_nospec_index.specialization(a, a, 32, 8) == "*fp32:16, *fp32:16, i32, 8"
    assert copy_nospec_index.noinline
    assert axpy.specialization(a, a, a, 32, 1.0) == "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32, 64"


@pytest.mark.parametrize("value, text", [(3, "3"), (-7, "-7"), (1.5, "1.5"), (2.0, "2.0"), (1e-300, "1e-300"),
                                         (True, "True"), (None, "None"), ("relu", "'relu'"),
                                         ("it's", "'it\\'s'"), (tl.constexpr(5), "5")])
def test_constexpr_values(value, text):
    a = _aligned(16)
    assert apply_kernel.specialization(a, a, 3, value, 16) == f"*fp32:16, *fp32:16, i32, {text}, 16"


def test_cache_reuse(backend):
    x = backend.asarray(np.arange(64, dtype=np.float32))
    out = backend.empty(64, np.float32)
    # The backends share compiled kernels, so each uses num_warps of its own to start from a fresh key.
    warps = {"numpy": 1, "torch-cpu": 2, "cuda": 8}[backend.name]
    assert len({copy_nospec.specialization(x, out, n, 64) for n in (5, 17, 33, 64)}) == 1
    before = copy_nospec.cache_size
    for n in (5, 17, 33, 64):  # do_not_specialize: one key for every n
        copy_nospec[(1,)](x, out, n, 64, num_warps=warps)
    assert copy_nospec.cache_size == before + 1
    copy_nospec[(1,)](x, out, 64, 64, num_warps=warps, num_stages=2)  # launch options are part of the key
    assert copy_nospec.cache_size == before + 2
    np.testing.assert_array_equal(backend.numpy(out), np.arange(64, dtype=np.float32))


# ---- errors (and the process goes on)


def test_none_specializes_a_runtime_parameter(backend, rng):
    # Triton's rule: None compiles as a constexpr None, and the kernel takes one argument fewer.
    xh = rng.standard_normal(40).astype(np.float32)
    bh = rng.standard_normal(40).astype(np.float32)
    x, b = backend.asarray(xh), backend.asarray(bh)
    out = backend.empty(40, np.float32)
    assert double_plus_bias.specialization(x, None, out, 40, BLOCK=64).split(", ")[1] == "None"
    double_plus_bias[(1,)](x, None, out, 40, BLOCK=64)
    np.testing.assert_array_equal(backend.numpy(out), 2 * xh)
    double_plus_bias[(1,)](x, b, out, 40, BLOCK=64)
    np.testing.assert_allclose(backend.numpy(out), 2 * (xh + bh), rtol=1e-6)
    k = double_plus_bias.warmup("*fp32:16", None, "*fp32:16", "i32", BLOCK=64)
    assert "bias_ptr" not in k.asm["ir"].splitlines()[0]


@pytest.mark.parametrize("out_dtype, np_dtype", [(tl.float16, np.float16), (tl.int32, np.int32),
                                                  (tl.uint8, np.uint8), (tl.float64, np.float64)])
def test_dtype_as_a_constexpr(backend, rng, out_dtype, np_dtype):
    xh = (rng.standard_normal(50) * 20).astype(np.float32)
    x = backend.asarray(xh)
    y = backend.empty(50, np_dtype)
    cast_to[(1,)](x, y, 50, out_dtype, BLOCK=64)
    want = np.clip(xh, 0, 255).astype(np.uint8) if np_dtype == np.uint8 else xh.astype(np_dtype)
    got = backend.numpy(y)
    if np_dtype == np.uint8:  # out-of-range float -> unsigned conversions are undefined: compare the in-range ones
        keep = (xh >= 0) & (xh < 256)
        np.testing.assert_array_equal(got[keep], want[keep])
    else:
        np.testing.assert_array_equal(got, want)
    assert cast_to.specialization(x, y, 50, out_dtype, BLOCK=64).split(", ")[3].startswith("tl.")


def test_compile_error_shows_file_line_and_source():
    x = np.zeros(4, np.float32)
    with pytest.raises(kiln.CompilationError) as info:
        typo_kernel[(1,)](x)
    text = str(info.value)
    assert f"{__file__}:" in text
    assert info.value.line > 0 and info.value.col > 0
    assert "tl.store(x_ptr, tl.lod(x_ptr))" in text
    assert "did you mean 'load'" in text
    assert "^" in text
    # The process goes on: the next launch works.
    axpy[(1,)](x, x, x, 4, 1.0)


def test_wrong_arguments():
    x = np.zeros(64, np.float32)
    with pytest.raises(kiln.ArgumentError, match="takes 6 arguments, but 7 were given"):
        axpy[(1,)](x, x, x, 64, 1.0, 64, 5)
    with pytest.raises(TypeError, match="missing required argument 'alpha'"):
        axpy[(1,)](x, x, x, 64)
    with pytest.raises(kiln.ArgumentError, match="unexpected keyword argument 'BLOK'"):
        axpy[(1,)](x, x, x, 64, 1.0, BLOK=64)
    with pytest.raises(kiln.ArgumentError, match="multiple values for argument 'n'"):
        axpy[(1,)](x, x, x, 64, 1.0, n=3)
    with pytest.raises(kiln.ArgumentError, match=r"argument 3 \('n'\) is list"):
        axpy[(1,)](x, x, x, [64], 1.0)
    with pytest.raises(kiln.ArgumentError, match=r"argument 3 \('n'\) got a string"):
        axpy[(1,)](x, x, x, "64", 1.0)
    with pytest.raises(kiln.ArgumentError, match=r"'BLOCK'\) is a constexpr, but got a tensor"):
        axpy[(1,)](x, x, x, 64, 1.0, BLOCK=x)
    with pytest.raises(kiln.ArgumentError, match="outside the 64-bit range"):
        axpy[(1,)](x, x, x, 2**70, 1.0)
    with pytest.raises(kiln.ArgumentError, match="complex"):
        axpy[(1,)](x, x, np.zeros(64, np.complex64), 64, 1.0)
    with pytest.raises(kiln.ArgumentError, match="num_ctas=1"):
        axpy[(1,)](x, x, x, 64, 1.0, num_ctas=2)
    # kiln::checkNumWarps' text, as compile and the CLI word it; checked before narrowing to an int.
    for warps in (3, 64, 0, 2**40):
        with pytest.raises(kiln.CompilationError,
                           match=f"^error: num_warps must be a power of two from 1 to 32, got {warps}$"):
            axpy[(1,)](x, x, x, 64, 1.0, num_warps=warps)
    with pytest.raises(kiln.ArgumentError, match="num_warps is 1180591620717411303424, which is out of range"):
        axpy[(1,)](x, x, x, 64, 1.0, num_warps=2**70)
    with pytest.raises(kiln.CompilationError, match="i32 and tl.float16"):  # a dtype where a block size goes
        axpy[(1,)](x, x, x, 64, 1.0, BLOCK=tl.float16)
    axpy[(1,)](x, x, x, 64, 1.0)


@pytest.mark.parametrize("grid, message", [((1, 2, 3, 4), "4 dimensions"), ((-1,), "must be in"),
                                           (("a",), "grid entries must be ints"), ((), "0 dimensions")])
def test_bad_grids(grid, message):
    x = np.zeros(64, np.float32)
    with pytest.raises(kiln.ArgumentError, match=message):
        axpy[grid](x, x, x, 64, 1.0)


def test_out_of_bounds_on_the_interpreter():
    x = np.zeros(10, np.float32)
    with pytest.raises(kiln.KernelError) as info:
        overrun[(1,)](x, 10, BLOCK=16)
    assert "out-of-bounds" in str(info.value)
    assert f"{__file__}:" in str(info.value)


class FakeCudaArray:
    """An object with __cuda_array_interface__ (as CuPy or Numba arrays have)."""

    def __init__(self, address=0x7F0000000000, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": typestr, "shape": (64,),
                                         "strides": None, "version": 3}


def test_host_and_device_arguments_do_not_mix():
    x = np.zeros(64, np.float32)
    with pytest.raises(kiln.ArgumentError) as info:
        axpy[(1,)](FakeCudaArray(), x, x, 64, 1.0)
    text = str(info.value)
    assert "argument 1 ('y_ptr') is a NumPy array in host memory" in text and "on the GPU" in text
    assert axpy.specialization(FakeCudaArray(), x, x, 64, 1.0).startswith("*fp32:16")


@pytest.mark.skipif(kiln.has_gpu(), reason="checks the error without a GPU")
def test_device_pointers_without_gpu():
    with pytest.raises(kiln.DeviceError, match="cannot run on the GPU"):
        axpy[(1,)](FakeCudaArray(), FakeCudaArray(), FakeCudaArray(), 64, 1.0)


def test_dlpack_and_numpy_scalars():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)

    class DLPackOnly:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None, **kwargs):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    copy_nospec[(1,)](DLPackOnly(x), DLPackOnly(out), np.int64(64), np.int32(64))
    np.testing.assert_array_equal(out, x)


@pytest.mark.skipif(HAS_CUDA, reason="with a GPU, warmup compiles for it and raises: the test below")
def test_big_transpose_needs_more_shared_memory_than_a_gpu_has():
    k = transpose_big.warmup("*fp32:16", "*fp32:16", N=256, num_warps=8)
    assert k.dynamic_shared_bytes("sm_90a") > 227 * 1024


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
def test_out_of_resources_on_the_gpu():
    x = torch.zeros(256 * 256, device="cuda")
    y = torch.zeros_like(x)
    with pytest.raises(kiln.OutOfResources, match="shared memory"):
        transpose_big[(1,)](x, y, N=256, num_warps=8)
    transpose_big[(1,)](x, y, N=32, num_warps=4)  # the process goes on
    torch.cuda.synchronize()


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
def test_cpu_tensor_on_the_gpu_path():
    x = torch.zeros(64, device="cuda")
    with pytest.raises(kiln.ArgumentError, match="is a CPU tensor in host memory"):
        axpy[(1,)](x, torch.zeros(64), x, 64, 1.0)


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
def test_gpu_launch_is_asynchronous_on_the_current_stream():
    n = 1 << 20
    x = torch.ones(n, device="cuda")
    out = torch.zeros(n, device="cuda")
    stream = torch.cuda.Stream()
    axpy[(kiln.cdiv(n, 1024),)](x, x, out, n, 1.0, BLOCK=1024)  # compiled and loaded before timing matters
    out.zero_()
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(50_000_000)  # keeps the stream busy, so the kernel is queued behind it
        k = axpy[(kiln.cdiv(n, 1024),)](x, x, out, n, 1.0, BLOCK=1024)
        assert not stream.query()  # returned before the kernel ran
    stream.synchronize()
    assert torch.all(out == 1 + SCALE)
    assert k.arch.startswith("sm_") and k.n_regs > 0 and k.n_spills >= 0 and k.shared >= 0
    assert len(k.asm["cubin"]) > 0


def test_subscript_slot_of_jit_classes():
    # JITFunction's kernel[grid] is the extension's C function; a subclass that defines __getitem__
    # keeps its own (the interpreter-only kernels), and only JitFunction subclasses take the slot.
    import kiln.jit as _  # noqa: F401  (the module that patches JITFunction)
    jit_module = sys.modules["kiln.jit"]

    class Custom(jit_module.JITFunction):
        def __getitem__(self, grid):
            return ("custom", grid)

    assert Custom(axpy.fn)[(3,)] == ("custom", (3,))
    if type(axpy) is jit_module.JITFunction:  # not under KILN_INTERPRET=1
        assert isinstance(axpy[(1,)], kiln._kiln.Launcher)
    with pytest.raises(TypeError, match="not a subclass"):
        kiln._kiln.fast_subscript(int)


def test_unsafe_update_src_compiles_the_new_text(backend, rng):
    """Triton's test helper patch_kernel (and users) rewrite a kernel's text: a fresh JITFunction of the
    same function, its src with names replaced, compiled instead of the function's own text."""
    n = 300
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    patched = kiln.JITFunction(axpy.fn)
    patched._unsafe_update_src(patched.src.replace("y * SCALE", "y - x"))
    assert "y - x" in patched.src and "SCALE" not in patched.src
    x, y, out = backend.asarray(xh), backend.asarray(yh), backend.empty(n, np.float32)
    patched[(kiln.cdiv(n, 64),)](x, y, out, n, 0.5)
    np.testing.assert_allclose(backend.numpy(out), 0.5 * xh + yh - xh, rtol=1e-6)
    axpy[(kiln.cdiv(n, 64),)](x, y, out, n, 0.5)  # the original keeps its own text
    np.testing.assert_allclose(backend.numpy(out), _axpy_ref(xh, yh, 0.5), rtol=1e-6)
    with pytest.raises(kiln.KilnError, match="compiled already"):
        patched._unsafe_update_src(patched.src)


@pytest.mark.parametrize("text, message", [
    ("def other(x):\n    pass\n", "one definition of a function named 'twice'"),
    ("def twice(x:\n", "not valid Python"),
    (7, "must be a str"),
])
def test_unsafe_update_src_refuses_other_text(text, message):
    with pytest.raises(kiln.KilnError, match=message):
        kiln.JITFunction(twice.fn)._unsafe_update_src(text)


def test_unsafe_update_src_errors_point_into_the_new_text():
    patched = kiln.JITFunction(twice.fn)
    patched._unsafe_update_src(patched.src.replace("x * 2", "x * missing"))
    with pytest.raises(kiln.CompilationError, match="source from _unsafe_update_src>:2:.*'missing' is not defined"):
        patched.warmup("*fp32", grid=(1,))
