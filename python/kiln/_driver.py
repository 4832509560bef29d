"""triton.runtime.driver.active, as Triton's tutorials use it: the current device and stream, the device
as a torch.device, and the device's properties (from the CUDA driver kiln loads, src/runtime).

Without a usable GPU, get_active_torch_device() is torch.device("cpu") (kiln runs CPU tensors on its
interpreter, so a tutorial's tensors land where its kernels can run), and every query that needs a
device raises kiln.DeviceError saying why there is none.
"""
import sys
import types

from . import _kiln


def _torch():
    """torch if the program imported it (kiln never imports torch itself)."""
    return sys.modules.get("torch")


def _require_gpu(what):
    ok, why = _kiln.has_gpu()
    if not ok:
        raise _kiln.DeviceError(f"{what}: no CUDA device ({why or 'none found'})")


class _Utils:
    """driver.active.utils."""

    @staticmethod
    def get_device_properties(device=None):
        """Triton's keys (max_shared_mem, max_num_regs, multiprocessor_count, warpSize, sm_clock_rate,
        mem_clock_rate, mem_bus_width; clocks in kHz, width in bits; None where the driver does not say)
        and kiln's (name, arch, max_threads_per_block, total_memory) for a device ordinal."""
        what = "triton.runtime.driver.active.utils.get_device_properties"
        _require_gpu(what)
        if device is None:
            device = _ActiveDriver.get_current_device()
        if isinstance(device, bool) or not isinstance(device, int):
            index = getattr(device, "index", None)  # a torch.device
            if not isinstance(index, int):
                raise _kiln.DeviceError(f"{what}: expected a device ordinal (int), got {device!r}")
            device = index
        props = _kiln.device_properties(device)
        if props is None:
            raise _kiln.DeviceError(f"{what}: no CUDA device {device} (there are {_kiln.device_count()})")
        return props


class _ActiveDriver:
    """driver.active: the CUDA driver, as kiln sees it."""

    utils = _Utils()

    @staticmethod
    def is_active():
        return _kiln.has_gpu()[0]

    @staticmethod
    def get_current_device():
        """torch's current CUDA device when torch has initialised CUDA, else 0; DeviceError without a GPU."""
        _require_gpu("triton.runtime.driver.active.get_current_device")
        torch = _torch()
        if torch is not None and torch.cuda.is_available():
            return torch.cuda.current_device()
        return 0

    @staticmethod
    def set_current_device(device):
        _require_gpu("triton.runtime.driver.active.set_current_device")
        torch = _torch()
        if torch is None or not torch.cuda.is_available():
            raise _kiln.DeviceError("triton.runtime.driver.active.set_current_device: kiln launches on the "
                                    "device of its tensor arguments; setting a current device needs torch.cuda")
        torch.cuda.set_device(device)

    @staticmethod
    def get_current_stream(device=None):
        """The CUstream kiln launches on (torch's current stream of `device`), as an int; 0 (the legacy
        default stream) without torch. DeviceError without a GPU."""
        _require_gpu("triton.runtime.driver.active.get_current_stream")
        torch = _torch()
        if torch is None or not torch.cuda.is_available():
            return 0
        if device is None:
            device = torch.cuda.current_device()
        return torch.cuda.current_stream(device).cuda_stream

    @staticmethod
    def get_active_torch_device():
        """torch.device("cuda", current device) with a GPU kiln and torch can use, else
        torch.device("cpu"): kiln runs kernels on CPU tensors with its interpreter."""
        torch = _torch()
        if torch is None:
            try:
                import torch
            except ImportError:
                raise _kiln.DeviceError("triton.runtime.driver.active.get_active_torch_device: torch is not "
                                        "installed") from None
        if _kiln.has_gpu()[0] and torch.cuda.is_available():
            return torch.device("cuda", _ActiveDriver.get_current_device())
        return torch.device("cpu")

    @staticmethod
    def get_current_target():
        device = _ActiveDriver.get_current_device()
        return _Target("cuda", _kiln.device_arch(device), 32)


class _Target(types.SimpleNamespace):
    """What get_current_target() returns: Triton's GPUTarget fields (backend, arch, warp_size)."""

    def __init__(self, backend, arch, warp_size):
        super().__init__(backend=backend, arch=arch, warp_size=warp_size)

    def is_cuda_backend(self):
        return self.backend == "cuda"


driver = types.SimpleNamespace(active=_ActiveDriver())

__all__ = ["driver"]
