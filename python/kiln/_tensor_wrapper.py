"""kiln.reinterpret / kiln.TensorWrapper (Triton's triton.reinterpret): a tensor or array passed to a
kernel as a pointer to another element type, e.g. an int32 tensor as *u32 or an int8 one as *fp8e5.

The extension (python/src/args.cpp) converts a TensorWrapper as its `base` with the pointee replaced
by `dtype`; nothing is copied or converted on the host.
"""
import numbers

# Triton's dtype spellings (tl names, PyTorch and NumPy names) -> its short signature names, as
# triton.runtime.jit.type_canonicalisation_dict has them (Triton writes bools as u1; kiln's own
# signatures say i1, and accept both).
type_canonicalisation_dict = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1",
    "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16", "float": "fp32", "float32": "fp32",
    "double": "fp64", "float64": "fp64",
    "float8e4nv": "fp8e4nv", "float8_e4m3fn": "fp8e4nv", "float8e5": "fp8e5", "float8_e5m2": "fp8e5",
    "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8", "float8_e4m3fnuz": "fp8e4b8",
    "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "void": "void",
}
type_canonicalisation_dict.update({v: v for v in list(type_canonicalisation_dict.values())})


def _dtype_name(dtype):
    """The short name of a tl, torch or NumPy dtype ("u32", "fp16"), or its own text if unknown."""
    name = getattr(dtype, "name", None)
    if not isinstance(name, str):
        name = str(dtype).rsplit(".", 1)[-1]  # torch.float16 -> float16
    return type_canonicalisation_dict.get(name, name)


def _is_torch(x):
    return type(x).__module__.startswith("torch")


class TensorWrapper:
    """`base` (a torch tensor, a NumPy array, a __cuda_array_interface__ object) seen by kernels as a
    pointer to `dtype` (a tl dtype, or a torch dtype). The few tensor methods host code calls on it
    are forwarded to base, re-wrapped where they return a tensor."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", "cpu")
        self.shape = base.shape

    def _wrap(self, base):
        return TensorWrapper(base, self.dtype)

    @property
    def _pointee(self):
        # What the extension reads: the dtype's short name ("u32", "fp8e5"), whatever spelled it.
        return _dtype_name(self.dtype)

    @property
    def is_cuda(self):
        return bool(getattr(self.base, "is_cuda", False))

    def data_ptr(self):
        if hasattr(self.base, "data_ptr"):
            return self.base.data_ptr()
        interface = getattr(self.base, "__cuda_array_interface__", None) or self.base.__array_interface__
        return interface["data"][0]

    def stride(self, *args):
        if _is_torch(self.base):
            return self.base.stride(*args)
        strides = tuple(s // self.base.itemsize for s in self.base.strides)  # NumPy's are in bytes
        return strides[args[0]] if args else strides

    def element_size(self):
        return self.base.element_size() if _is_torch(self.base) else self.base.itemsize

    def numel(self):
        return self.base.numel() if _is_torch(self.base) else int(self.base.size)

    def detach(self):
        return self._wrap(self.base.detach()) if hasattr(self.base, "detach") else self

    def cpu(self):
        return self._wrap(self.base.cpu()) if hasattr(self.base, "cpu") else self._wrap(self.base)

    def copy_(self, other):
        src = other.base if isinstance(other, TensorWrapper) else other
        if _is_torch(self.base):
            self.base.copy_(src)
        else:
            import numpy
            numpy.copyto(self.base, src)
        return self

    def clone(self):
        return self._wrap(self.base.clone() if _is_torch(self.base) else self.base.copy())

    def to(self, device):
        if _is_torch(self.base):
            return self._wrap(self.base.to(device))
        if str(device) != "cpu":
            raise TypeError(f"TensorWrapper.to({device!r}): the base is a host array; move it with torch")
        return self

    def new_empty(self, sizes):
        if _is_torch(self.base):
            return self._wrap(self.base.new_empty(sizes))
        import numpy
        return self._wrap(numpy.empty(sizes, dtype=self.base.dtype))

    def __str__(self):
        return f"TensorWrapper[{self.dtype}]({self.base})"

    __repr__ = __str__


def reinterpret(tensor, dtype):
    """`tensor` as a kernel argument of element type `dtype` (the same bits, no conversion): Triton's
    triton.reinterpret. Reinterpreting a TensorWrapper as its base's own dtype gives the base back."""
    if isinstance(tensor, TensorWrapper):
        if _dtype_name(dtype) == _dtype_name(tensor.base.dtype):
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if isinstance(tensor, numbers.Number) or not (
            hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__")
            or hasattr(tensor, "__cuda_array_interface__")):
        raise TypeError(f"cannot reinterpret a {type(tensor).__name__}: pass a tensor or an array")
    return TensorWrapper(tensor, dtype)
