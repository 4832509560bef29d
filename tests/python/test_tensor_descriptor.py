"""triton.tools.tensor_descriptor.TensorDescriptor: Triton 3.6's host class, its fields and its checks;
passing one to a kernel is an ArgumentError naming the argument (kiln's compiler has no descriptors)."""
import dataclasses

import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl
from conftest import torch
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
def copy_block(desc, out_ptr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK))


def test_a_descriptor_argument_is_a_clear_error():
    d = TensorDescriptor.from_tensor(aligned((16, 16)), [16, 16])
    with pytest.raises(kiln.ArgumentError) as e:
        copy_block[(1,)](d, np.zeros(16, np.int32), BLOCK=16)
    assert "argument 0 ('desc')" in str(e.value)
    assert "tensor descriptors are not supported by kiln yet" in str(e.value)


def test_under_compat():
    with kiln.compat.as_triton():
        from triton.tools.tensor_descriptor import TensorDescriptor as T
        import triton.tools
        assert T is TensorDescriptor and triton.tools.tensor_descriptor.TensorDescriptor is T
