"""kiln.runtime: the parts of triton.runtime that host code reaches for (driver queries, errors)."""
import sys
import types

from . import _kiln
from ._kiln import OutOfResources
from .autotuner import Autotuner, Config, Heuristics
from .jit import JITFunction, KernelInterface

errors = types.ModuleType("kiln.runtime.errors")
errors.OutOfResources = OutOfResources
errors.KilnError = _kiln.KilnError


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

__all__ = ["Autotuner", "Config", "Heuristics", "JITFunction", "KernelInterface", "OutOfResources", "driver",
           "errors"]
