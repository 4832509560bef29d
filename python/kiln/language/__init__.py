"""kiln.language (import kiln.language as tl): the names a kernel uses, for the host side.

Kernels are compiled from their source by kiln's C++ compiler, so these objects never run inside a
kernel. On the host they are what Triton code touches: tl.constexpr (annotations, module constants),
the dtypes, and one stub per builtin the compiler supports (taken from the compiler's own table), which
explains itself if called outside a kernel.
"""
from .. import _kiln
from .core import (PropagateNan, block_type, constexpr, dtype, pointer_type, range, static_range, tensor,
                   _stub, bfloat16, float8e4nv, float8e5, float16, float32, float64, int1, int8, int16, int32,
                   int64, uint8, uint16, uint32, uint64, pi32_t)
from . import core
from . import math
from . import random
from . import extra

float8e4b15 = dtype("fp8e4b15")  # fp8e4b8 and fp8e5b16 run on the interpreter only (docs/language.md)
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")
void = dtype("void")
TRITON_MAX_TENSOR_NUMEL = 1 << 20  # the most elements a tile may have, as the compiler enforces it

for _name in _kiln.builtin_names("tl"):
    if _name not in globals():
        globals()[_name] = _stub("tl", _name)
del _name

__all__ = sorted(n for n in globals() if not n.startswith("_"))
