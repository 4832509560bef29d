"""The CUDA device a launch runs on, as the launch path (python/src/jit.cpp) picks it, for Python code that
must agree with it: the autotuner times, caches and keys its choices per device."""
import contextlib
import sys

from . import _kiln


def on_gpu(values):
    """Whether `values` hold a device array (a CUDA torch tensor or a __cuda_array_interface__ object,
    tuples and TensorWrappers looked into): such a launch runs on a GPU, unless kiln interprets it."""
    return any(_is_device_array(v) for v in _leaves(values))


def of(values):
    """The device of the first device array among `values` that says where it lives: a CUDA torch tensor,
    or a __cuda_array_interface__ object whose memory the driver places on one device; else torch's
    current device (torch.cuda.set_device, `with torch.cuda.device(n)`); else 0."""
    for v in _leaves(values):
        device = _known_device(v)
        if device is not None:
            return device
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.current_device()
    return 0


def current(device):
    """A context in which `device` is torch's current device (its current stream, events, allocations and
    synchronize are that device's); one that changes nothing for None (the interpreter) or without torch."""
    torch = sys.modules.get("torch")
    if device is None or torch is None or not torch.cuda.is_available():
        return contextlib.nullcontext()
    return torch.cuda.device(device)


def _leaves(values):
    """The values, with tuples replaced by their elements and TensorWrappers and TensorDescriptors by their
    base, as the launch converts them."""
    for v in values:
        if isinstance(v, tuple):
            yield from _leaves(v)
        elif type(v).__name__ in ("TensorWrapper", "TensorDescriptor") and getattr(v, "base", None) is not None:
            yield from _leaves((v.base,))
        else:
            yield v


def _is_device_array(v):
    return getattr(v, "is_cuda", False) or hasattr(v, "__cuda_array_interface__")


def _known_device(v):
    if getattr(v, "is_cuda", False) and hasattr(v, "get_device"):
        return v.get_device()
    interface = getattr(v, "__cuda_array_interface__", None)
    if isinstance(interface, dict) and interface.get("data"):
        device = _kiln.device_of(int(interface["data"][0] or 0))
        return device if device >= 0 else None
    return None
