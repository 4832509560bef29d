"""A module of @jit helpers and constants that test_imports.py's kernels use from another file, through
`from kiln_helpers import add`, `import kiln_helpers` and `kiln_helpers.add`, as Triton code does."""
import kiln
import kiln.language as tl
import kiln_helpers_inner as inner
from kiln_helpers_inner import inner_scale

BLOCK = 64
OFFSET = 0.5
ENABLED = True
MODE = "double"
DTYPE = tl.float16
WRAPPED: tl.constexpr = tl.constexpr(7)
SIZES = [16, 32]  # not a constant a kernel can use


def host_only(x):
    return x


@kiln.jit
def add(x, y):
    return x + y


@kiln.jit
def scaled(x):
    # This module's own helper and constant, and another module's (kiln_helpers_inner).
    return _twice(x) * FACTOR + inner.INNER_BIAS + inner_scale(x)


@kiln.jit
def _twice(x):
    if MODE == "double":
        return x * 2
    return x


@kiln.jit
def broken(x):
    return tl.lod(x)


FACTOR = 3  # after the functions that read it: resolved when the kernel is first compiled
