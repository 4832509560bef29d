"""Which CUDA device a launch runs on, as far as it shows without a GPU: kiln._launch_device (what the
autotuner keys and times by) and the driver's answer for memory that is no device's. The launches
themselves on two GPUs: test_multi_gpu.py."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from kiln import _kiln, _launch_device
from conftest import HAS_CUDA, torch


class OnGpu:
    """Looks like a CUDA torch tensor on `device` to code that reads is_cuda and get_device()."""
    is_cuda = True
    dtype = "torch.float32"
    shape = (4,)

    def __init__(self, device):
        self.device = device

    def get_device(self):
        return self.device


class CudaArray:
    """Only __cuda_array_interface__, at `address` (here: host memory, which no device owns)."""

    def __init__(self, address):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": "<f4", "shape": (4,),
                                         "strides": None, "version": 3}


def current_device():
    return torch.cuda.current_device() if HAS_CUDA else 0


def test_host_memory_is_no_devices_memory():
    x = np.zeros(16, np.float32)
    assert _kiln.device_of(x.ctypes.data) == -1
    assert _kiln.device_of(0) == -1


def test_the_first_array_that_names_its_device_decides():
    assert _launch_device.of([3, OnGpu(1), OnGpu(0)]) == 1
    assert _launch_device.of([np.ones(4), (None, (OnGpu(2),))]) == 2  # inside nested tuples
    assert _launch_device.of([kiln.TensorWrapper(OnGpu(3), tl.int32)]) == 3  # a wrapper's base
    host = np.zeros(4, np.float32)
    # Memory the driver does not place names no device: a later tensor decides, else the current device.
    assert _launch_device.of([CudaArray(host.ctypes.data), OnGpu(1)]) == 1
    assert _launch_device.of([CudaArray(host.ctypes.data), 5]) == current_device()
    assert _launch_device.of([]) == current_device()


def test_which_arguments_make_a_gpu_launch():
    assert _launch_device.on_gpu([OnGpu(0)])
    assert _launch_device.on_gpu([(1, (CudaArray(0),))])
    assert _launch_device.on_gpu([kiln.TensorWrapper(OnGpu(1), tl.int32)])
    assert not _launch_device.on_gpu([np.ones(4), 3, (2.0,)])


def test_current_is_a_no_op_for_the_interpreter():
    with _launch_device.current(None):
        pass
    if not HAS_CUDA:
        with _launch_device.current(1):  # no CUDA torch: nothing to switch
            pass


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_cpu_tensor_among_device_arrays_names_both():
    @kiln.jit
    def copy(src, dst, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs))

    host = np.zeros(16, np.float32)
    with pytest.raises(kiln.ArgumentError) as info:
        copy[(1,)](CudaArray(host.ctypes.data), torch.zeros(16), BLOCK=16)
    assert "argument 1 ('dst') is a CPU tensor in host memory, but argument 0 ('src') is on the GPU" \
        in str(info.value)
    with pytest.raises(kiln.ArgumentError) as info:
        copy[(1,)](torch.zeros(16), CudaArray(host.ctypes.data), BLOCK=16)
    assert "argument 0 ('src') is a CPU tensor in host memory, but argument 1 ('dst') is on the GPU" \
        in str(info.value)


def test_host_array_in_a_tuple_among_device_arrays_names_both_elements():
    @kiln.jit
    def copy_pair(pair, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(pair[1] + offs, tl.load(pair[0] + offs))

    host = np.zeros(16, np.float32)
    with pytest.raises(kiln.ArgumentError) as info:
        copy_pair[(1,)]((CudaArray(host.ctypes.data), host), BLOCK=16)
    assert ("argument 0 ('pair'), element [1] is a NumPy array in host memory, but argument 0 ('pair'), "
            "element [0] is on the GPU") in str(info.value)
