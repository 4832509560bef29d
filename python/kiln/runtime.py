"""kiln.runtime: the parts of triton.runtime that host code reaches for (driver queries, errors, jit)."""
import sys
import types

from . import _kiln
from ._kiln import InterpreterError, OutOfResources
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


class _Utils:
    @staticmethod
    def get_device_properties(device=0):
        props = _kiln.device_properties(int(device))
        if props is None:
            raise _kiln.DeviceError(f"no CUDA device {device}: {_kiln.has_gpu()[1] or 'not present'}")
        return props


class _ActiveDriver:
    utils = _Utils()

    @staticmethod
    def get_current_device():
        torch = sys.modules.get("torch")
        return torch.cuda.current_device() if torch is not None and torch.cuda.is_available() else 0

    @staticmethod
    def get_current_stream(device=None):
        torch = sys.modules.get("torch")
        if torch is None:
            return 0
        return torch.cuda.current_stream(device).cuda_stream

    @staticmethod
    def get_current_target():
        return types.SimpleNamespace(backend="cuda", arch=_kiln.device_arch(_ActiveDriver.get_current_device()),
                                     warp_size=32)


driver = types.SimpleNamespace(active=_ActiveDriver())

__all__ = ["Autotuner", "Config", "Heuristics", "InterpreterError", "JITFunction", "KernelInterface", "OutOfResources",
           "TensorWrapper", "driver", "errors", "jit", "reinterpret"]
