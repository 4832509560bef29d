"""GPU targets: kiln.supported_archs() is every target from sm_80 up that the installed ptxas knows;
CompiledKernel.stage(name, arch) compiles for any of them with that target's features and refuses
others; a launch on a GPU compiles for the device's own target. Every target's PTX is assembled by
ptxas for that target."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import kiln
import kiln.language as tl

from conftest import HAS_CUDA, ROOT

ARCHS = kiln.supported_archs()
PTXAS = os.environ.get("KILN_PTXAS") or shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
needs_ptxas = pytest.mark.skipif(not ARCHS, reason="no ptxas: no list of targets")


# The kernel of the golden test tests/lit/lower/ptx_arch.test (tile_dot of ptx_dot.py), with fp8 operands.
tile_dot = kiln.compat.import_as_triton(ROOT / "tests" / "lit" / "lower" / "ptx_dot.py").tile_dot


def _compiled():
    return tile_dot.warmup("*fp8e4nv:16", "*fp8e4nv:16", "*fp32:16", M=64, N=64, K=32, grid=(1,))


@needs_ptxas
def test_supported_archs_are_ptxas_targets_from_sm_80():
    assert {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"} <= set(ARCHS)
    for a in ARCHS:
        assert a.startswith("sm_") and int(a[3:].rstrip("a")) >= 80 and not a.endswith("f"), a
    caps = [(int(a[3:].rstrip("a")), a.endswith("a")) for a in ARCHS]
    assert caps == sorted(caps) and len(set(ARCHS)) == len(ARCHS)


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
def test_each_target_compiles_with_its_features_and_assembles(arch, tmp_path):
    ptx = _compiled().stage("ptx", arch)
    assert f".target {arch}\n" in ptx
    fp8_mma = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" in ptx
    fp8_wgmma = "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3" in ptx
    # fp8 tensor cores from Ada on: sm_90a's warpgroup MMA there, mma.sync elsewhere.
    assert fp8_wgmma == (arch == "sm_90a")
    assert fp8_mma == (int(arch[3:].rstrip("a")) >= 89 and arch != "sm_90a")
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("arch, message", [
    ("sm_75", "kiln compiles for sm_<capability>[a] from sm_80 up"),
    ("sm_90f", "unknown GPU target 'sm_90f'"),
    ("compute_90", "unknown GPU target 'compute_90'"),
])
def test_other_targets_are_refused(arch, message):
    with pytest.raises(kiln.ArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _compiled().stage("ptx", arch)


@needs_ptxas
def test_a_target_ptxas_does_not_know_is_refused():
    with pytest.raises(kiln.ArgumentError, match="the installed ptxas cannot assemble for 'sm_99' .it knows sm_80"):
        _compiled().stage("ptx", "sm_99")


@pytest.mark.skipif(not HAS_CUDA, reason="needs torch with a CUDA device")
def test_a_launch_compiles_for_the_device():
    import torch
    arch = kiln.runtime.driver.active.get_current_target().arch
    major, minor = torch.cuda.get_device_capability()
    assert arch == ("sm_90a" if (major, minor) == (9, 0) else f"sm_{major}{minor}")
    x = torch.ones(64, device="cuda")

    @kiln.jit
    def double(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 2 * tl.load(x_ptr + offs))

    k = double[(1,)](x, BLOCK=64)
    torch.cuda.synchronize()
    assert torch.equal(x, torch.full_like(x, 2.0))
    assert f".target {arch}\n" in k.asm["ptx"]
