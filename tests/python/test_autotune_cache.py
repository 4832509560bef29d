"""Autotuning as users run it: the choice kept on disk (cache_results=True, KILN_CACHE_AUTOTUNING /
TRITON_CACHE_AUTOTUNING) and read back by later processes, KILN_PRINT_AUTOTUNING's report,
use_cuda_graph and do_bench_cudagraph. The disk cache is kiln's cache directory, set per test."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln
import kiln.language as tl
from kiln import _autotune_cache

from conftest import HAS_CUDA, ROOT

FAKE_MS = {16: 3.0, 32: 2.0, 64: 1.0}
timed = []


def fake_bench(fn, quantiles=None):
    fn()
    return [FAKE_MS[timed[-1]]] * len(quantiles or [0])


def record_block(args):
    timed.append(args["BLOCK"])


def make_kernel(**autotune_options):
    configs = [kiln.Config({"BLOCK": b}, pre_hook=record_block) for b in (16, 32, 64)]

    @kiln.autotune(configs=configs, key=["n"], do_bench=fake_bench, **autotune_options)
    @kiln.jit
    def cached_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    return cached_copy


def run(kernel, n=40):
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    kernel[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](x, out, n)
    np.testing.assert_array_equal(out, x)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(kiln.knobs, "_CACHE_DIR", str(tmp_path))
    for v in ("KILN_CACHE_AUTOTUNING", "TRITON_CACHE_AUTOTUNING", "KILN_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"):
        monkeypatch.delenv(v, raising=False)
    timed.clear()
    return tmp_path / "autotune"


def test_cache_results_writes_one_file_per_key_and_reads_it_back(cache_dir):
    run(make_kernel(cache_results=True))
    assert sorted(timed[:3]) == [16, 32, 64]  # then the launch with the choice
    files = os.listdir(cache_dir)
    assert len(files) == 1 and files[0].endswith(".json")
    stored = json.loads((cache_dir / files[0]).read_text())
    assert stored["best"] == 2 and "BLOCK: 64" in stored["best_config"]
    timed.clear()
    again = make_kernel(cache_results=True)  # a new autotuner, as in a new process
    run(again)
    assert timed == [64]  # only the chosen config's launch (its pre_hook): nothing was timed
    assert again.best_config.kwargs == {"BLOCK": 64}
    run(again, n=70)  # another key is tuned and stored
    assert len(os.listdir(cache_dir)) == 2


def test_without_cache_results_nothing_is_written(cache_dir):
    run(make_kernel())
    assert not cache_dir.exists()


@pytest.mark.parametrize("variable", ["KILN_CACHE_AUTOTUNING", "TRITON_CACHE_AUTOTUNING"])
def test_environment_turns_the_cache_on(cache_dir, monkeypatch, variable):
    monkeypatch.setenv(variable, "1")
    run(make_kernel())
    assert len(os.listdir(cache_dir)) == 1


def test_the_file_depends_on_configs_and_kernel_text(cache_dir):
    kernel = make_kernel(cache_results=True)
    run(kernel)
    fingerprint = _autotune_cache.kernel_fingerprint(kernel._jit())
    key, pruned = (40, "torch.float32"), kernel.configs
    path = _autotune_cache.entry_path(fingerprint, key, pruned, "interpreter")
    assert _autotune_cache.entry_path(fingerprint, key, pruned[:2], "interpreter") != path
    assert _autotune_cache.entry_path(fingerprint + "0", key, pruned, "interpreter") != path
    assert _autotune_cache.entry_path(fingerprint, key, pruned, "NVIDIA H200:sm_90a") != path


def test_a_corrupt_or_foreign_file_is_retuned(cache_dir):
    run(make_kernel(cache_results=True))
    (path,) = [cache_dir / f for f in os.listdir(cache_dir)]
    path.write_text("{not json")
    timed.clear()
    run(make_kernel(cache_results=True))
    assert sorted(timed[:3]) == [16, 32, 64]
    assert json.loads(path.read_text())["best"] == 2  # rewritten whole


def test_store_leaves_no_temporary_file(tmp_path):
    configs = [kiln.Config({"B": 1}), kiln.Config({"B": 2})]
    path = str(tmp_path / "d" / "entry.json")
    _autotune_cache.store(path, configs, configs[1], {configs[0]: [2.0], configs[1]: [1.0]})
    assert os.listdir(tmp_path / "d") == ["entry.json"]
    best, timings = _autotune_cache.load(path, configs)
    assert best is configs[1] and timings[configs[0]] == [2.0]


def test_disk_cache_off_warns_and_keeps_the_choice_in_memory(monkeypatch):
    monkeypatch.setattr(kiln.knobs, "_CACHE_DIR", None)
    timed.clear()
    with pytest.warns(UserWarning, match="cannot be kept on disk"):
        run(make_kernel(cache_results=True))


@pytest.mark.parametrize("variable", ["KILN_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"])
def test_print_autotuning(cache_dir, monkeypatch, capsys, variable):
    monkeypatch.setenv(variable, "1")
    run(make_kernel(cache_results=True))
    out = capsys.readouterr().out
    assert "kiln autotuning 'cached_copy' for key (40, 'float32', 'float32'): tuned in" in out
    assert "tuned in" in out and "best config: BLOCK: 64" in out
    assert "*    1.0000" in out and "3.0000" in out
    run(make_kernel(cache_results=True))
    assert "read from the disk cache" in capsys.readouterr().out


def test_choice_is_shared_between_processes(tmp_path):
    """Two processes in turn: the first tunes (wall clock on the interpreter) and stores; the second
    finds the file and times nothing."""
    script = tmp_path / "tune.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, kiln, kiln.language as tl

        @kiln.autotune(configs=[kiln.Config({"BLOCK": b}) for b in (32, 64)], key=["n"], cache_results=True,
                       warmup=1, rep=1)
        @kiln.jit
        def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

        x = np.arange(100, dtype=np.float32); out = np.zeros_like(x)
        copy[lambda m: (kiln.cdiv(100, m["BLOCK"]),)](x, out, 100)
        assert (out == x).all()
        print("best", copy.best_config.kwargs["BLOCK"])
    """))
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache"), KILN_PRINT_AUTOTUNING="1",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    first = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    assert "tuned in" in first.stdout
    second = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=ROOT)
    assert second.returncode == 0, second.stderr
    assert "read from the disk cache" in second.stdout
    assert first.stdout.split("best")[-1] == second.stdout.split("best")[-1]


def test_do_bench_cudagraph_without_cuda_says_why():
    if HAS_CUDA:
        pytest.skip("a CUDA device is present")
    with pytest.raises(kiln.DeviceError, match="do_bench_cudagraph needs torch with a CUDA device"):
        kiln.testing.do_bench_cudagraph(lambda: None)


@pytest.mark.skipif(not HAS_CUDA, reason="needs torch with a CUDA device")
def test_do_bench_cudagraph_and_use_cuda_graph_on_the_gpu():
    import torch
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)

    @kiln.autotune(configs=[kiln.Config({"BLOCK": b}) for b in (256, 1024)], key=["n"], use_cuda_graph=True)
    @kiln.jit
    def graph_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    graph_copy[lambda m: (kiln.cdiv(n, m["BLOCK"]),)](x, out, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x)
    ms = kiln.testing.do_bench_cudagraph(lambda: graph_copy[lambda m: (kiln.cdiv(n, m["BLOCK"]),)](x, out, n))
    assert 0 < ms < 10
    assert all(t[0] > 0 for t in graph_copy.configs_timings.values())


def test_knobs_turn_printing_and_caching_on(cache_dir, capsys):
    with kiln.knobs.autotuning.scope():
        kiln.knobs.autotuning.print = True
        kiln.knobs.autotuning.cache = True
        assert os.environ["KILN_PRINT_AUTOTUNING"] == "1" and kiln.knobs.autotuning.cache
        run(make_kernel())
    assert "tuned in" in capsys.readouterr().out and len(os.listdir(cache_dir)) == 1
    assert "KILN_PRINT_AUTOTUNING" not in os.environ
