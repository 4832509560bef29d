"""Triton's host API as the official tutorials use it (issue 16): triton.__version__, set_allocator,
runtime.driver.active, CompiledKernel.metadata / _init_handles / n_regs / n_spills, python -m kiln and
python -m kiln.compat. On the interpreter here; what needs a GPU is checked where there is one and
skipped elsewhere. (TensorDescriptor: test_tensor_descriptor.py; libdevice: test_libdevice.py.)"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl
from conftest import HAS_CUDA, torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
HAS_GPU = kiln.has_gpu()


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent)] +
                                        [p for p in [env.get("PYTHONPATH")] if p])
    return env


@kiln.jit
def row_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + tl.program_id(0) * BLOCK + offs), axis=0))


# ---- versions, allocator


def test_triton_version_is_the_api_kiln_follows():
    with kiln.compat.as_triton():
        import triton
        assert triton.__version__ == kiln.compat.TRITON_VERSION == "3.6.0"
        assert triton.jit is kiln.jit and triton.language is kiln.language and triton.cdiv is kiln.cdiv
        with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
            triton.no_such_name
    assert kiln.__version__ == "0.1.0"


def test_set_allocator_stores_the_allocator():
    def alloc(size, alignment, stream):
        return np.empty(size, np.uint8)

    try:
        kiln.set_allocator(alloc)
        assert kiln._allocator.get_allocator() is alloc
        with kiln.compat.as_triton():
            import triton
            triton.set_allocator(None)
        assert kiln._allocator.get_allocator() is None
        with pytest.raises(kiln.KilnError, match="expected a callable allocator"):
            kiln.set_allocator(42)
    finally:
        kiln.set_allocator(None)


# ---- runtime.driver.active


def test_driver_is_under_both_names():
    with kiln.compat.as_triton():
        import triton
        import triton.runtime.driver as driver_module
        assert triton.runtime.driver.active is kiln.runtime.driver.active is driver_module.active


@pytest.mark.skipif(HAS_GPU, reason="checks the no-GPU answers")
def test_driver_queries_without_a_gpu_say_why():
    active = kiln.runtime.driver.active
    for query in (lambda: active.utils.get_device_properties(0), active.get_current_device,
                  active.get_current_stream):
        with pytest.raises(kiln.DeviceError, match="no CUDA device"):
            query()
    assert active.is_active() is False


@pytest.mark.skipif(torch is None or HAS_GPU, reason="needs torch, and no GPU")
def test_active_torch_device_without_a_gpu_is_the_cpu():
    assert kiln.runtime.driver.active.get_active_torch_device() == torch.device("cpu")


@pytest.mark.skipif(not HAS_GPU, reason="needs a GPU")
def test_device_properties_on_a_gpu():
    props = kiln.runtime.driver.active.utils.get_device_properties(0)
    for key in ("max_shared_mem", "max_num_regs", "multiprocessor_count", "warpSize"):
        assert isinstance(props[key], int) and props[key] > 0, key
    for key in ("sm_clock_rate", "mem_clock_rate", "mem_bus_width"):
        assert props[key] is None or props[key] > 0, key
    assert props["warpSize"] == 32 and props["max_num_regs"] >= 65536
    if HAS_CUDA:
        assert props["multiprocessor_count"] == torch.cuda.get_device_properties(0).multi_processor_count
        active = kiln.runtime.driver.active
        assert active.get_current_device() == torch.cuda.current_device()
        assert active.get_current_stream() == torch.cuda.current_stream().cuda_stream
        assert active.get_active_torch_device() == torch.device("cuda", torch.cuda.current_device())
        assert props == active.utils.get_device_properties(torch.device("cuda", 0))


# ---- CompiledKernel.metadata, _init_handles, n_regs, n_spills, compiled[grid](...)


@kiln.jit
def scale_rows(x_ptr, out_ptr, factor, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor + num_stages)


def test_a_warmed_up_kernel_launches_with_every_parameter_in_order():
    # Triton's softmax tutorial: kernel = fn.warmup(...); kernel[grid](*all parameters, constexprs too),
    # with a constexpr parameter named like the num_stages option.
    x = np.arange(4 * 64, dtype=np.float32)
    out = np.zeros_like(x)
    k = scale_rows.warmup(x, out, 2.0, BLOCK=64, num_stages=3, num_warps=2, grid=(1,))
    k[(4, 1, 1)](x, out, 2.0, 64, 3)
    np.testing.assert_array_equal(out, x * 2 + 3)
    with pytest.raises(kiln.ArgumentError, match=r"takes the kernel's 5 parameters in order .x_ptr, out_ptr, factor, "
                                                 r"BLOCK, num_stages., got 2"):
        k[(4, )](x, out)
    with pytest.raises(kiln.KilnError, match="launches on the current stream"):
        k[(4, )](x, out, 2.0, 64, 3, stream=7)


def test_the_target_answers_is_cuda_backend():
    if not HAS_GPU:
        pytest.skip("get_current_target needs a GPU")
    t = kiln.runtime.driver.active.get_current_target()
    assert t.is_cuda_backend() and t.backend == "cuda" and t.warp_size == 32


def test_metadata_has_the_fields_tutorials_read():
    x = np.ones((4, 256), np.float32)
    out = np.zeros(4, np.float32)
    k = row_sum.warmup(x, out, BLOCK=256, num_warps=8, num_stages=2, grid=(4,))
    m = k.metadata
    assert (m.name, m.num_warps, m.num_stages, m.num_ctas) == ("row_sum", 8, 2, 1)
    # A cross-warp sum needs shared memory; the value is the kernel's own for the target.
    assert m.shared == k.dynamic_shared_bytes(m.arch) > 0
    assert m.target.backend == "cuda" and m.target.arch == m.arch


def _ptxas_registers(ptx, arch):
    """Registers and stack bytes of the kernel in `ptx` as ptxas -v reports them, run here directly."""
    ptxas = os.environ.get("KILN_PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        pytest.skip("needs ptxas")
    path = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"kiln_host_api_{os.getpid()}.ptx"
    path.write_text(ptx)
    try:
        r = subprocess.run([ptxas, f"-arch={arch}", "-O3", "-v", str(path), "-o", os.devnull], capture_output=True,
                           text=True, timeout=120)
    finally:
        path.unlink()
    assert r.returncode == 0, r.stderr
    regs = int(re.search(r"Used (\d+) registers", r.stdout + r.stderr).group(1))
    stack = int(re.search(r"(\d+) bytes stack frame", r.stdout + r.stderr).group(1))
    return regs, stack


def test_init_handles_gives_registers_and_spills():
    x = np.ones((2, 512), np.float32)
    out = np.zeros(2, np.float32)
    k = row_sum.warmup(x, out, BLOCK=512, num_warps=4, grid=(2,))
    if k.n_regs is None:  # not loaded on a GPU: _init_handles asks the assembler
        assert k.n_spills is None
    k._init_handles()
    assert isinstance(k.n_regs, int) and k.n_regs > 0 and k.n_spills >= 0
    assert k.shared == k.metadata.shared
    if not k.arch:  # from the assembler's report: the same as ptxas says of the same PTX
        arch = k.metadata.arch
        assert (k.n_regs, k.n_spills) == _ptxas_registers(k.stage("ptx", arch), arch)
    k._init_handles()  # again: nothing changes
    assert k.n_regs > 0


# ---- python -m kiln, python -m kiln.compat


def test_python_m_kiln_runs_the_cli():
    r = subprocess.run([sys.executable, "-m", "kiln", "compile", str(ROOT / "examples" / "vector_add.py"), "--kernel",
                        "add_kernel", "--signature", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", "--emit", "ptx",
                        "--arch", "sm_80"], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert ".entry add_kernel" in r.stdout and ".target sm_80" in r.stdout
    bad = subprocess.run([sys.executable, "-m", "kiln", "compile", str(ROOT / "examples" / "vector_add.py"),
                          "--kernel", "no_such_kernel", "--signature", "i32"], capture_output=True, text=True,
                         env=_env(), timeout=120)
    assert bad.returncode == 1 and "no_such_kernel" in bad.stderr


def test_python_m_kiln_compat_prints_no_runtime_warning(tmp_path):
    script = tmp_path / "uses_triton.py"
    script.write_text("import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n"
                      "from triton.tools.tensor_descriptor import TensorDescriptor\n"
                      "print(triton.__version__, triton.runtime.driver.active.is_active() in (True, False))\n")
    r = subprocess.run([sys.executable, "-W", "always::RuntimeWarning", "-m", "kiln.compat", str(script)],
                       capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3.6.0", "True"]
    assert "RuntimeWarning" not in r.stderr, r.stderr


def test_extern_libs_is_accepted_as_tutorial_07_passes_it():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros_like(x)
    scale_rows[(1, )](x, out, 1.0, BLOCK=64, num_stages=0, extern_libs={"libdevice": "/nonexistent/libdevice.10.bc"})
    np.testing.assert_array_equal(out, x)
