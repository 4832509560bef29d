"""kiln: Triton's kernel language compiled by kiln's own C++ compiler, with Triton's Python API.

    import kiln
    import kiln.language as tl

    @kiln.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n),
                 mask=offs < n)

    add_kernel[(kiln.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

CUDA tensors run on the GPU (asynchronously, on PyTorch's current stream); NumPy arrays and CPU tensors
run on kiln's interpreter, as does everything with KILN_INTERPRET=1. See docs/python.md.
"""
from . import _kiln
from ._kiln import (ArgumentError, CompilationError, CompilationWarning, CompiledKernel, DeviceError,
                    InterpreterError, KernelError, KilnError, LongLaunchWarning, OutOfResources, TritonError)
from ._tensor_wrapper import TensorWrapper, reinterpret
from ._allocator import set_allocator
from . import language
from .jit import JITFunction, KernelInterface, jit
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from . import testing
from . import runtime
from . import compiler
from . import knobs
from . import tools
from . import profiler

__version__ = "0.1.0"  # kiln's own; under kiln.compat, triton.__version__ is the Triton API kiln follows


def cdiv(x, y):
    """Ceiling division: the number of blocks of size y that cover x."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def supported_archs():
    """The GPU targets kiln compiles for here ("sm_80", "sm_86", ..., "sm_90a", "sm_100", ...): every
    one from sm_80 up that the installed ptxas knows (empty without ptxas). CompiledKernel.stage(name,
    arch) and the CLI's --arch take these; a launch compiles for its device's own target."""
    return list(_kiln.supported_archs())


def has_gpu() -> bool:
    """Whether kiln can launch on a CUDA device here."""
    return _kiln.has_gpu()[0]


__all__ = [
    "jit", "JITFunction", "KernelInterface", "autotune", "Autotuner", "heuristics", "Heuristics", "Config",
    "cdiv", "next_power_of_2", "language", "testing", "runtime", "compiler", "CompiledKernel", "KilnError",
    "CompilationError", "ArgumentError", "OutOfResources", "KernelError", "DeviceError", "has_gpu", "TritonError",
    "InterpreterError", "TensorWrapper", "reinterpret", "knobs", "set_allocator", "tools", "CompilationWarning",
    "LongLaunchWarning", "profiler", "supported_archs",
]

from . import compat  # noqa: E402  (kiln.compat.import_as_triton after a plain `import kiln`)
