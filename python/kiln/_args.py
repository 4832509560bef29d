"""Launch arguments the C++ binding does not convert itself: it calls convert() for them."""
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
        torch = _module("torch")
        if torch is not None:
            return torch.from_dlpack(obj)
        import numpy
        return numpy.from_dlpack(obj)
    if isinstance(obj, bool) or type(obj).__name__ == "bool_":
        return bool(obj)
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        return float(obj)
    name = getattr(obj, "name", None)
    if type(obj).__name__ == "pointer_type" and isinstance(name, str):
        raise _kiln.ArgumentError(
            f"a pointer type ({name}) cannot be passed to a kernel: kiln's signatures take ints, floats, bools, "
            "None, strings and dtypes as constexpr values")
    return None


def _module(name):
    import sys
    return sys.modules.get(name)


_kiln.set_fallback(convert)
