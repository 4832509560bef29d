"""triton.set_allocator: the function Triton calls for a kernel's global-memory scratch workspace
(allocator(size, alignment, stream) -> an object with data_ptr()).

kiln keeps the allocator set here, but its kernels never need a global scratch workspace yet: every
scratch buffer kiln's code generator uses (reductions, layout conversions, pipelined loads) is shared
memory, and kiln builds no on-device TMA descriptors. So kiln never calls the allocator; it is stored
so that code written for Triton (which sets one before launching TMA or profiling kernels) runs, and
get_allocator() returns it (docs/python.md).
"""
from . import _kiln

_allocator = None


def set_allocator(allocator):
    """Sets the allocator (a callable, or None to unset)."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise _kiln.KilnError(f"triton.set_allocator: expected a callable allocator(size, alignment, stream) or "
                              f"None, got {type(allocator).__name__}")
    _allocator = allocator


def get_allocator():
    """The allocator set_allocator stored, or None."""
    return _allocator


__all__ = ["get_allocator", "set_allocator"]
