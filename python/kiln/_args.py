"""Launch arguments the C++ binding does not convert itself: it calls convert() for them."""
import collections
import numbers

from . import _kiln


def convert(obj):
    """A replacement the binding understands (array, tensor, int, float, str), or None if there is none."""
    value = getattr(obj, "value", obj) if type(obj).__name__ == "constexpr" else obj
    if value is not obj:
        return value
    if type(obj).__name__ == "TensorWrapper" and hasattr(obj, "base") and hasattr(obj, "dtype"):
        # Another package's TensorWrapper (Triton's own, a test harness's): kiln's, which the binding reads.
        from ._tensor_wrapper import TensorWrapper
        return TensorWrapper(obj.base, obj.dtype)
    if hasattr(obj, "__dlpack__"):
        # Host memory goes through NumPy, which keeps a versioned producer's read-only flag (torch has none,
        # so a read-only array would be written through it); device memory through torch.
        device = getattr(obj, "__dlpack_device__", None)
        if device is not None and device()[0] == 1 and _module("numpy") is not None:  # kDLCPU
            return _from_dlpack_numpy(obj)
        torch = _module("torch")
        if torch is not None:
            return torch.from_dlpack(obj)
        return _from_dlpack_numpy(obj)
    if isinstance(obj, bool) or type(obj).__name__ == "bool_":
        return bool(obj)
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        return float(obj)
    if type(obj).__name__ == "TensorDescriptor" and hasattr(obj, "block_shape"):
        return _descriptor_argument(obj)
    if isinstance(obj, _kiln.JitFunction) and hasattr(obj, "fn"):
        return _FunctionArgument(_token_of(obj))
    name = getattr(obj, "name", None)
    if type(obj).__name__ == "pointer_type" and isinstance(name, str):
        raise _kiln.ArgumentError(
            f"a pointer type ({name}) cannot be passed to a kernel: kiln's signatures take ints, floats, bools, "
            "None, strings and dtypes as constexpr values")
    return None


# A host TensorDescriptor (kiln.tools.tensor_descriptor, or Triton's class) as the kernel receives it: the
# base pointer, shape and strides are runtime arguments; the block shape and padding are constexprs, so
# they are part of the specialization (Triton's signature entry tensordesc<fp16[64, 64]>). The compiler
# recognises this NamedTuple by its name and fields and makes the tensor descriptor of it.
_DescriptorArgument = collections.namedtuple("TensorDescriptor", "base shape strides block_shape padding")


def _descriptor_argument(desc):
    from .language.core import constexpr
    return _DescriptorArgument(desc.base, tuple(int(s) for s in desc.shape), tuple(int(s) for s in desc.strides),
                               tuple(constexpr(int(b)) for b in desc.block_shape),
                               constexpr(getattr(desc, "padding", "zero")))


# @jit functions passed as arguments (Triton takes them as constexprs): each has a token, its name in the
# signature ("@fn_3") and, once a kernel links it (JITFunction._link_function_arguments), in that kernel's
# module. The registry keeps the functions alive, so a token never comes to name another one.
_tokens = {}  # id(JITFunction) -> token
_functions = {}  # token -> JITFunction


class _FunctionArgument:
    """A @jit function argument as the binding reads it: its signature entry."""

    __slots__ = ("signature",)

    def __init__(self, token):
        self.signature = "@" + token


def _token_of(fn):
    token = _tokens.get(id(fn))
    if token is None:
        token = _tokens[id(fn)] = f"fn_{len(_functions)}"
        _functions[token] = fn
    return token


def function_of(token):
    """The @jit function an argument's token stands for."""
    return _functions[token]


def _from_dlpack_numpy(obj):
    """numpy.from_dlpack(obj), with NumPy's read-only flag kept only where the producer could set it: a
    DLPack export before version 1.0 cannot say read-only, and NumPy marks every such import read-only,
    which would make kiln refuse every store into it."""
    import numpy
    arr = numpy.from_dlpack(obj)
    if arr.flags.writeable:
        return arr
    try:  # a versioned export (its capsule's name says so) carries the producer's own flag
        if '"dltensor_versioned"' in repr(obj.__dlpack__(max_version=(1, 0))):
            return arr
    except TypeError:  # a producer that knows no versions
        pass
    return numpy.asarray(_Writable(arr))


class _Writable:
    """An array's interface with the read-only flag cleared (and the array kept alive)."""

    def __init__(self, arr):
        interface = dict(arr.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface
        self._base = arr


def _module(name):
    import sys
    return sys.modules.get(name)


_kiln.set_fallback(convert)
