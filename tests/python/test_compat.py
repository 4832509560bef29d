"""kiln.compat: Triton-style files run unchanged, per module (import_as_triton) or for the whole process
(install, python -m kiln.compat); the real triton's sys.modules entries are restored."""
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

import kiln
import kiln.compat

HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE / "triton_scripts" / "scale.py"


def test_import_as_triton_runs_the_file_with_kiln():
    mod = kiln.compat.import_as_triton(SCRIPT)
    assert mod.triton is kiln.compat.triton and mod.tl is kiln.language and mod.triton.jit is kiln.jit
    assert isinstance(mod.scale_kernel, kiln.JITFunction)
    assert isinstance(mod.tuned_scale_kernel, kiln.Autotuner)
    np.testing.assert_array_equal(mod.run(), np.arange(100, dtype=np.float32) * 3)
    assert "triton" not in sys.modules or sys.modules["triton"] is not kiln.compat.triton


def test_import_as_triton_restores_a_real_triton():
    fake = types.ModuleType("triton")
    fake_language = types.ModuleType("triton.language")
    fake_extra = types.ModuleType("triton.language.extra")
    saved = {n: sys.modules.get(n) for n in ("triton", "triton.language", "triton.language.extra")}
    sys.modules.update({"triton": fake, "triton.language": fake_language, "triton.language.extra": fake_extra})
    try:
        mod = kiln.compat.import_as_triton(SCRIPT, module_name="scale_as_kiln")
        assert mod.triton is kiln.compat.triton
        assert sys.modules["scale_as_kiln"] is mod
        assert sys.modules["triton"] is fake and sys.modules["triton.language"] is fake_language
        assert sys.modules["triton.language.extra"] is fake_extra
        assert "triton.testing" not in sys.modules
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


def test_import_errors_propagate_and_leave_sys_modules_clean(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import triton\nraise ValueError('boom')\n")
    with pytest.raises(ValueError, match="boom"):
        kiln.compat.import_as_triton(bad, module_name="bad_mod")
    assert "bad_mod" not in sys.modules
    assert sys.modules.get("triton") is not kiln


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent)] +
                                        [p for p in [env.get("PYTHONPATH")] if p])
    return env


def test_python_m_kiln_compat_runs_a_script():
    r = subprocess.run([sys.executable, "-m", "kiln.compat", str(SCRIPT), "a", "b"], capture_output=True, text=True,
                       env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "ran with kiln ['a', 'b']" in r.stdout


def test_python_m_kiln_compat_runs_a_module(tmp_path):
    # `-m pytest FILE` is how Triton's tutorial 06 runs its correctness test: the module sees kiln as
    # triton, its argv as `python -m` gives it, and a SystemExit status comes back unchanged.
    (tmp_path / "probe_mod.py").write_text(
        "import sys, triton, kiln\nprint('module with kiln', triton.jit is kiln.jit, sys.argv[1:])\n"
        "sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-m", "kiln.compat", "-m", "probe_mod", "x"], capture_output=True, text=True,
                       env=_env(), timeout=120, cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert "module with kiln True ['x']" in r.stdout
    r = subprocess.run([sys.executable, "-m", "kiln.compat", "-m"], capture_output=True, text=True, env=_env(),
                       timeout=120)
    assert r.returncode == 2 and "-m needs a module name" in r.stderr


def test_install_registers_kiln_as_triton():
    code = ("import kiln.compat; kiln.compat.install(); import triton, triton.language as tl, triton.testing; "
            "from triton.runtime.errors import OutOfResources; from triton.compiler.errors import CompilationError; "
            "import kiln; assert triton is kiln.compat.triton and triton.jit is kiln.jit and tl is kiln.language "
            "and triton.testing is kiln.testing; "
            "print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_usage_message():
    r = subprocess.run([sys.executable, "-m", "kiln.compat"], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 2 and "usage: python -m kiln.compat" in r.stderr


def test_importlib_finds_the_triton_module():
    # torch asks importlib.util.find_spec("triton") when CUDA initialises; a module without a spec in
    # sys.modules makes that raise, and torch then fails every CUDA call.
    code = ("import importlib.util, kiln.compat; kiln.compat.install(); import triton; "
            "s = importlib.util.find_spec('triton'); assert s is not None and s.name == 'triton', s; "
            "assert importlib.util.find_spec('triton.language') is not None; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_tritons_cublas_binding_computes_through_torch():
    # The persistent-matmul tutorial imports Triton's cuBLASLt binding as its reference:
    # CublasLt(workspace).matmul(a, b, c) is c = a @ b.T. It computes through torch: without torch there
    # is nothing to run.
    pytest.importorskip("torch")
    code = ("import kiln, kiln.compat; kiln.compat.install(); from triton._C.libtriton import nvidia\n"
            "import torch\n"
            "if not torch.cuda.is_available():\n"
            "    try:\n"
            "        nvidia.cublas.CublasLt(None)\n"
            "    except kiln.DeviceError as e:\n"
            "        print('no gpu:', e)\n"
            "else:\n"
            "    blas = nvidia.cublas.CublasLt(torch.empty(1 << 20, device='cuda', dtype=torch.uint8))\n"
            "    a = torch.randn(64, 32, device='cuda', dtype=torch.float16)\n"
            "    b = torch.randn(48, 32, device='cuda', dtype=torch.float16)\n"
            "    c = torch.empty(64, 48, device='cuda', dtype=torch.float16)\n"
            "    blas.matmul(a, b, c)\n"
            "    torch.testing.assert_close(c.float(), a.float() @ b.float().T, atol=1e-2, rtol=1e-2)\n"
            "    try:\n"
            "        blas.matmul(a, a, c)\n"
            "    except kiln.ArgumentError as e:\n"
            "        print('shape error:', e)\n"
            "print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ok")
    assert "no CUDA device" in r.stdout or "do not make c = a @ b.T" in r.stdout
