"""Scalar arguments of 16-bit float types: how a kernel gets an fp16/bf16 scalar parameter (a NumPy
float16, an annotation such as `h: tl.float16`, a warmup signature string), and that the value it
reads is the argument rounded to nearest even (NaN stays NaN, overflow is inf), on every backend."""
import math

import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def store_scalars(out_ptr, x, h: tl.float16, b: tl.bfloat16, w: "fp64"):
    tl.store(out_ptr, x.to(tl.float32))
    tl.store(out_ptr + 1, h.to(tl.float32))
    tl.store(out_ptr + 2, b.to(tl.float32))
    tl.store(out_ptr + 3, w.to(tl.float32))


@kiln.jit
def scale_kernel(x_ptr, out_ptr, n, alpha: tl.float16, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * alpha, mask=m)


@kiln.jit
def narrow_int(out_ptr, n: tl.int8):
    tl.store(out_ptr, n.to(tl.int32))


def bf16(v):
    """v rounded to bfloat16 (nearest even), as a float."""
    bits = int(np.array([v], dtype=np.float32).view(np.uint32)[0])
    if math.isnan(v):
        return float("nan")
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


def signature_tail(sig):
    """The signature without its first (pointer) entry, whose alignment hint depends on the array."""
    return sig.split(", ", 1)[1]


def test_annotations_and_numpy_float16_type_the_parameter():
    out = np.zeros(4, np.float32)
    assert signature_tail(store_scalars.specialization(out, 0.1, 0.1, 0.1, 0.1)) == "fp32, fp16, bf16, fp64"
    assert signature_tail(store_scalars.specialization(out, np.float16(0.1), 1, True, 2)) == "fp16, fp16, bf16, fp64"
    assert signature_tail(store_scalars.specialization(out, np.float32(0.5), 0.1, 0.1, 0.1)) == \
        "fp32, fp16, bf16, fp64"
    # Annotated integers keep Triton's divisibility hint, never the constant 1.
    assert signature_tail(narrow_int.specialization(out, 32)) == "i8:16"
    assert signature_tail(narrow_int.specialization(out, 1)) == "i8"


@pytest.mark.parametrize("value", [0.1, -2.5, 65504.0, 65520.0, 1e5, 3.14159, float("nan"), 2 ** -24])
def test_values_round_to_nearest_even(backend, value):
    out = backend.asarray(np.zeros(4, np.float32))  # not NaN-poisoned: a NaN read back was written
    with np.errstate(over="ignore"):
        ck = store_scalars[(1,)](out, np.float16(value), value, value, value)
        want = np.array([np.float16(value), np.float16(value), bf16(value), value], dtype=np.float32)
    backend.sync()
    got = backend.numpy(out)
    np.testing.assert_array_equal(got, want)  # NaN equals NaN here, and nothing else does
    assert [t for _, t in ck.params] == ["ptr<f32>", "f16", "f16", "bf16", "f64"]


def test_fp16_scale_in_a_vector_kernel(backend, rng):
    n = 100
    xh = rng.random(n, dtype=np.float32).astype(np.float16)
    x, out = backend.asarray(xh), backend.empty(n, np.float16)
    scale_kernel[(1,)](x, out, n, 0.3, BLOCK=128)
    backend.sync()
    want = (xh.astype(np.float32) * np.float32(np.float16(0.3))).astype(np.float16)
    np.testing.assert_allclose(backend.numpy(out).astype(np.float32), want.astype(np.float32), rtol=1e-3)


def test_warmup_with_an_fp16_signature_string():
    ck = store_scalars.warmup("*fp32:16", "fp16", "fp16", "bf16", "fp64", grid=(1,))
    assert [t for _, t in ck.params] == ["ptr<f32>", "f16", "f16", "bf16", "f64"]
    assert "fp16, fp16, bf16, fp64" in ck.signature
    ptx = ck.asm["ptx"]  # generated for sm_90a (or the GPU's arch) even without a GPU
    assert ".param .b16 store_scalars_x" in ptx and ".param .b16 store_scalars_b" in ptx


def test_annotation_mismatches_are_argument_errors():
    out = np.zeros(1, np.int32)
    with pytest.raises(kiln.ArgumentError, match=r"argument 1 \('n'\) is 300, which does not fit the parameter's "
                                                 r"annotated type i8"):
        narrow_int[(1,)](out, 300)
    with pytest.raises(kiln.ArgumentError, match=r"argument 1 \('n'\) is a float, but the parameter is annotated i8"):
        narrow_int[(1,)](out, 1.5)
    with pytest.raises(kiln.ArgumentError, match=r"argument 2 \('h'\) is a tensor \(a pointer\), but the parameter "
                                                 r"is annotated fp16"):
        store_scalars[(1,)](np.zeros(4, np.float32), 1.0, out, 1.0, 1.0)
    narrow_int[(1,)](out, -128)
    assert out[0] == -128
