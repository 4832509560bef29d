"""kiln.runtime: the parts of triton.runtime that host code reaches for (driver queries, errors, jit)."""
import types

from . import _kiln
from ._kiln import InterpreterError, OutOfResources
from ._driver import driver
from ._tensor_wrapper import TensorWrapper, reinterpret, type_canonicalisation_dict
from .autotuner import Autotuner, Config, Heuristics
from .jit import JITFunction, KernelInterface, jit as _jit

errors = types.ModuleType("kiln.runtime.errors")
errors.OutOfResources = OutOfResources
errors.InterpreterError = InterpreterError
errors.TritonError = _kiln.TritonError
errors.KilnError = _kiln.KilnError

# triton.runtime.jit: the names host code imports from Triton's module of that name.
jit = types.ModuleType("kiln.runtime.jit")
jit.__dict__.update(JITFunction=JITFunction, KernelInterface=KernelInterface, jit=_jit, TensorWrapper=TensorWrapper,
                    reinterpret=reinterpret, type_canonicalisation_dict=type_canonicalisation_dict)

__all__ = ["Autotuner", "Config", "Heuristics", "InterpreterError", "JITFunction", "KernelInterface", "OutOfResources",
           "TensorWrapper", "driver", "errors", "jit", "reinterpret"]
