"""TensorDescriptor (triton.tools.tensor_descriptor): a tensor with the shape, strides and block shape of
a TMA descriptor, as Triton 3.6 builds and checks it on the host.

A kernel takes one as its base pointer, shape and strides (runtime arguments) with the block shape and
padding as compile-time parts of its specialization (kiln._args); in the kernel it is a tensor descriptor
(desc.load, desc.store, ...). Host code that builds descriptors imports and validates as with Triton.
"""
import dataclasses
from typing import Any, List

TRITON_MAX_TENSOR_NUMEL = 1048576  # Triton's limit on a block's elements


class TensorDescriptorError(ValueError, AssertionError):
    """A descriptor Triton would refuse. Triton checks with `assert`, so this is also an AssertionError
    (code written against Triton catches it), and a ValueError."""


def _data_ptr(base):
    if hasattr(base, "data_ptr"):
        return int(base.data_ptr())
    interface = getattr(base, "__cuda_array_interface__", None) or getattr(base, "__array_interface__", None)
    if interface is None:
        raise TypeError(f"TensorDescriptor: base must be a tensor or an array, got {type(base).__name__}")
    return int(interface["data"][0])


def _itemsize(base):
    dtype = base.dtype
    size = getattr(dtype, "itemsize", None)
    if size is None:
        raise TypeError(f"TensorDescriptor: cannot tell the element size of base's dtype {dtype}")
    return int(size)


def _is_floating(base):
    dtype = base.dtype
    if hasattr(dtype, "is_floating_point"):  # torch
        return bool(dtype.is_floating_point)
    return getattr(dtype, "kind", "") == "f"  # NumPy


def _validate_block_shape(shape):
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, int):
            raise TypeError(f"TensorDescriptor: expected a list of integers for block_shape, but got "
                            f"{type(d).__name__} at index {i}")
        if d <= 0 or d & (d - 1):
            raise ValueError(f"TensorDescriptor: block_shape element {i} must be a power of 2, got {d}")
        numel *= d
    if numel > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(f"TensorDescriptor: block_shape numel ({numel}) exceeds Triton's maximum tensor numel "
                         f"({TRITON_MAX_TENSOR_NUMEL})")
    return numel


@dataclasses.dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        def check(ok, message):
            if not ok:
                raise TensorDescriptorError(f"TensorDescriptor: {message}")

        rank = len(self.shape)
        check(len(self.strides) == rank, f"rank mismatch: shape has {rank} dimensions, strides "
              f"{len(self.strides)}")
        check(len(self.block_shape) == rank, f"rank mismatch: shape has {rank} dimensions, block_shape "
              f"{len(self.block_shape)}")
        check(rank > 0, "rank must not be zero")
        check(rank <= 5, f"rank cannot be more than 5, got {rank}")
        if type(self.base).__name__ not in ("FakeTensor", "FunctionalTensor"):
            check(_data_ptr(self.base) % 16 == 0, "base must be 16-byte aligned")
        _validate_block_shape(self.block_shape)
        elem_bytes = _itemsize(self.base)
        for i, stride in enumerate(self.strides[:-1]):
            check((stride * elem_bytes) % 16 == 0, f"strides must be 16-byte aligned: stride {i} is {stride} "
                  f"elements of {elem_bytes} bytes")
        check(self.strides[-1] == 1, f"the last dimension must be contiguous (stride 1), got {self.strides[-1]}")
        check(self.padding in ("zero", "nan"), f"padding must be 'zero' or 'nan', got {self.padding!r}")
        if self.padding == "nan":
            check(_is_floating(self.base), "padding 'nan' is only supported for floating-point tensors")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding="zero"):
        """The descriptor of a whole tensor (or NumPy array: its byte strides become element strides)."""
        if callable(getattr(tensor, "stride", None)):
            strides = tensor.stride()
        else:
            itemsize = _itemsize(tensor)
            strides = tuple(s // itemsize for s in tensor.strides)
        return TensorDescriptor(tensor, tensor.shape, strides, block_shape, padding)


__all__ = ["TensorDescriptor", "TensorDescriptorError"]
