"""Several GPUs in one process: the example kernels on cuda:0 and cuda:1 interleaved, from two threads at
once and with torch's current device switched; pointers that carry no device under a device context;
warmup and the autotuner per device; arguments on two GPUs refused by name. Every result is checked
against torch, and every launch must leave torch's current device as it found it. Runs where torch sees
two CUDA devices and kiln can use them; skipped elsewhere."""
import threading

import pytest

import kiln
import kiln.language as tl
from conftest import load_example, torch

TWO_GPUS = torch is not None and torch.cuda.is_available() and torch.cuda.device_count() >= 2 and kiln.has_gpu()
pytestmark = pytest.mark.skipif(not TWO_GPUS, reason="needs two CUDA devices that torch and kiln can use")


def _check(got, want, what, atol, rtol=0.0):
    assert got.device == want.device, f"{what}: the result is on {got.device}, expected {want.device}"
    torch.testing.assert_close(got.float(), want.float(), atol=atol, rtol=rtol, msg=lambda m: f"{what}: {m}")


def run_examples(device, seed):
    """vector_add, softmax, layernorm and matmul on `device`, each against torch there."""
    g = torch.Generator(device=device).manual_seed(seed)
    dev = torch.device(device)
    x, y = torch.rand(98432, device=dev, generator=g), torch.rand(98432, device=dev, generator=g)
    _check(load_example("vector_add").add(x, y), x + y, f"vector_add on {device}", atol=1e-6)
    s = torch.randn(257, 781, device=dev, generator=g)
    _check(load_example("softmax").softmax(s), torch.softmax(s, dim=1), f"softmax on {device}", atol=1e-6)
    h = torch.randn(33, 1024, device=dev, generator=g).half()
    w, b = torch.rand(1024, device=dev, generator=g).half(), torch.randn(1024, device=dev, generator=g).half()
    ln, _, _ = load_example("layernorm").layer_norm(h, w, b)
    _check(ln, torch.nn.functional.layer_norm(h.float(), (1024,), w.float(), b.float(), 1e-5),
           f"layernorm on {device}", atol=1e-2)
    a, bm = torch.randn(256, 192, device=dev, generator=g).half(), torch.randn(192, 320, device=dev, generator=g).half()
    _check(load_example("matmul").matmul(a, bm), a.float() @ bm.float(), f"matmul on {device}", atol=5e-2,
           rtol=1e-2)


def test_examples_interleaved_on_two_devices():
    torch.cuda.set_device(0)
    add_kernel = load_example("vector_add").add_kernel
    for round_ in range(3):
        for device in ("cuda:0", "cuda:1"):
            specializations = add_kernel.cache_size
            run_examples(device, seed=round_)
            assert torch.cuda.current_device() == 0, f"a launch on {device} changed torch's current device"
            if device == "cuda:1":  # cuda:0's specializations serve cuda:1: none is compiled again
                assert add_kernel.cache_size == specializations


@kiln.jit
def offset(x_ptr, out_ptr, n, delta, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + delta, mask=offs < n)


def test_two_threads_on_two_devices_at_once():
    # The example modules are imported here (importing is not what is tested); `offset` has not run yet,
    # so the two threads' first launches compile and load it at once, one on each device.
    for name in ("vector_add", "softmax", "layernorm", "matmul"):
        load_example(name)
    start = threading.Barrier(2)
    errors = []

    def work(device):
        try:
            start.wait()
            x = torch.randn(10000, device=device)
            out = torch.empty_like(x)
            offset[(kiln.cdiv(10000, 512),)](x, out, 10000, 0.5, BLOCK=512)
            _check(out, x + 0.5, f"offset on {device}", atol=1e-6)
            for round_ in range(10):
                run_examples(device, seed=100 + round_)
            torch.cuda.synchronize(device)
            # A new thread's current device is 0; launching on cuda:1 from it leaves it so.
            assert torch.cuda.current_device() == 0, f"{device}'s thread now has device {torch.cuda.current_device()}"
        except BaseException as e:  # reported by the main thread
            errors.append(f"{device}: {e!r}")

    threads = [threading.Thread(target=work, args=(d,)) for d in ("cuda:0", "cuda:1")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("switch", ["set_device", "device_context"])
def test_torch_current_device_switched(switch):
    torch.cuda.set_device(0)
    try:
        if switch == "set_device":
            torch.cuda.set_device(1)
            _launch_both_while_current_is(1)
        else:
            with torch.cuda.device(1):
                _launch_both_while_current_is(1)
            assert torch.cuda.current_device() == 0
    finally:
        torch.cuda.set_device(0)


def _launch_both_while_current_is(current):
    for device in ("cuda:0", "cuda:1"):  # tensors on either device run there, whatever is current
        run_examples(device, seed=7)
        assert torch.cuda.current_device() == current


class CudaArray:
    """Only __cuda_array_interface__ (as CuPy and Numba arrays have): no device is named."""

    def __init__(self, t):
        self.t = t  # keeps the memory alive
        self.__cuda_array_interface__ = t.__cuda_array_interface__


@kiln.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * factor, mask=offs < n)


@pytest.mark.parametrize("context", [0, 1])
def test_array_interface_memory_runs_where_it_lives(context):
    # The protocol names no device: the driver places the memory on cuda:1, under either device context.
    x = torch.randn(5000, device="cuda:1")
    out = torch.zeros_like(x)
    with torch.cuda.device(context):
        scale[(kiln.cdiv(5000, 1024),)](CudaArray(x), CudaArray(out), 5000, 3.0, BLOCK=1024)
        assert torch.cuda.current_device() == context
    torch.cuda.synchronize(1)
    _check(out, x * 3.0, "scale through __cuda_array_interface__", atol=1e-6)


@kiln.jit
def no_arrays(n, BLOCK: tl.constexpr):
    tl.device_assert(n >= 0)


def test_launch_and_warmup_without_arrays_use_the_current_device():
    with torch.cuda.device(1):
        no_arrays[(1,)](4, BLOCK=16)
        torch.cuda.synchronize(1)
        k = scale.warmup("*fp32:16", "*fp32:16", "i32", "fp32", BLOCK=256, grid=(1,))
        assert k.arch == kiln.runtime.driver.active.utils.get_device_properties(1)["arch"]
        assert torch.cuda.current_device() == 1
    assert torch.cuda.current_device() == 0


def test_arguments_on_two_devices_are_refused_by_name():
    x0, x1 = torch.ones(64, device="cuda:0"), torch.ones(64, device="cuda:1")
    with pytest.raises(kiln.ArgumentError) as info:
        scale[(1,)](x0, x1, 64, 2.0, BLOCK=64)
    assert "argument 0 ('x_ptr') is on cuda:0 but argument 1 ('out_ptr') is on cuda:1" in str(info.value)
    with pytest.raises(kiln.ArgumentError) as info:
        scale[(1,)](x1, torch.ones(64), 64, 2.0, BLOCK=64)
    assert "argument 1 ('out_ptr') is a CPU tensor in host memory, but argument 0 ('x_ptr') is on the GPU" \
        in str(info.value)


@kiln.autotune(configs=[kiln.Config({"BLOCK": 256}, num_warps=2), kiln.Config({"BLOCK": 1024}, num_warps=4)],
               key=["n"])
@kiln.jit
def tuned_scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * factor, mask=offs < n)


def test_autotuner_keeps_a_choice_per_device():
    torch.cuda.set_device(0)
    n = 1 << 24  # 128 MB moved: tens of microseconds on any GPU
    tuned_scale.cache.clear()
    for device in ("cuda:1", "cuda:0"):
        x = torch.randn(n, device=device)
        out = torch.zeros_like(x)
        tuned_scale[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](x, out, n, 2.0)
        assert torch.cuda.current_device() == 0
        _check(out, x * 2.0, f"tuned scale on {device}", atol=1e-6)
        # Timed on the launch's device: at least 10 us per config, not the few microseconds of an empty
        # pair of events, which is what events recorded on another device's stream would show.
        assert all(t[0] > 0.01 for t in tuned_scale.configs_timings.values()), tuned_scale.configs_timings
    assert sorted(slot[-1] for slot in tuned_scale.cache) == ["cuda:0", "cuda:1"]
