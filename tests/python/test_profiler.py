"""kiln.profiler (triton.profiler): sessions, scopes, the launch recorder, the JSON tree and the table,
the viewer, and Proton's options kiln refuses. Interpreter launches are timed by the wall clock and say
so; with torch and a GPU (the cuda backend) launches are timed by CUDA events."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kiln
import kiln.language as tl
import kiln.profiler as proton
from kiln.profiler import viewer


def _flops_metadata(grid, metadata, args):
    return {"name": f"{metadata.name} [n={args['n']}]", "flops32": 2.0 * args["n"], "bytes": 12 * args["n"]}


@kiln.jit(launch_metadata=_flops_metadata)
def scaled_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def _launch(backend, n=100):
    x = backend.asarray(np.arange(n, dtype=np.float32))
    y = backend.asarray(np.ones(n, dtype=np.float32))
    out = backend.empty(n, np.float32)
    scaled_add[(kiln.cdiv(n, 64),)](x, y, out, n, BLOCK=64)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), 2.0 * np.arange(n, dtype=np.float32) + 1)


def _tree(path):
    with open(path) as f:
        doc = json.load(f)
    assert doc[1]["kiln"]["format"] == 1
    return doc[0]


def _child(node, name):
    found = [c for c in node["children"] if c["frame"]["name"] == name]
    assert len(found) == 1, f"no single '{name}' under '{node['frame']['name']}': " \
                            f"{[c['frame']['name'] for c in node['children']]}"
    return found[0]


@pytest.fixture(autouse=True)
def _no_session_left():
    yield
    recorder = kiln.profiler._recorder.recorder
    if recorder.sessions:  # a failed test's session
        recorder.sessions.clear()
        recorder.update_observer()


def test_launches_nest_under_scopes(backend, tmp_path, capsys):
    sid = proton.start(str(tmp_path / "prof"))
    assert sid is not None
    with proton.scope("outer"):
        _launch(backend)
        with proton.scope("inner", {"bytes": 10}):
            _launch(backend)
            _launch(backend)
    _launch(backend)
    proton.finalize()
    root = _tree(tmp_path / "prof.hatchet")
    top = _child(root, "scaled_add")
    assert top["metrics"]["count"] == 1
    outer = _child(root, "outer")
    assert _child(outer, "scaled_add")["metrics"]["count"] == 1
    inner = _child(outer, "inner")
    assert inner["metrics"]["bytes"] == 10
    kernel = _child(inner, "scaled_add")
    assert kernel["frame"]["type"] == "kernel" and kernel["metrics"]["count"] == 2
    assert kernel["metrics"]["time (ns)"] > 0
    want_clock = "gpu" if backend.is_cuda else "interpreter wall"
    assert kernel["frame"]["clock"] == want_clock
    table = capsys.readouterr().out
    assert "prof.hatchet" in table and "outer" in table and "inner" in table
    if not backend.is_cuda:
        assert "scaled_add [interpreter wall]" in table


def test_no_session_records_nothing(tmp_path):
    with proton.scope("ignored"):
        _launch_numpy()
    assert proton.enter_scope("x") is None and proton.exit_scope() is None
    sid = proton.start(str(tmp_path / "late"))
    _launch_numpy()
    proton.finalize(sid)
    root = _tree(tmp_path / "late.hatchet")
    assert [c["frame"]["name"] for c in root["children"]] == ["scaled_add"]


def _launch_numpy():
    from conftest import Backend
    _launch(Backend("numpy"))


def test_deactivate_and_activate(tmp_path):
    sid = proton.start(str(tmp_path / "p"))
    _launch_numpy()
    proton.deactivate(sid)
    _launch_numpy()
    _launch_numpy()
    proton.activate(sid)
    _launch_numpy()
    proton.finalize()
    assert _child(_tree(tmp_path / "p.hatchet"), "scaled_add")["metrics"]["count"] == 2


def test_triton_hook_names_launches_and_adds_metrics(tmp_path):
    proton.start(str(tmp_path / "hooked"), hook="triton")
    _launch_numpy()
    proton.finalize()
    node = _child(_tree(tmp_path / "hooked.hatchet"), "scaled_add [n=100]")
    assert node["metrics"]["flops32"] == 200.0 and node["metrics"]["bytes"] == 1200
    tree, metrics = viewer.parse(["time/ms", "gflop32/s", "gflop/s", "gbyte/s", "avg_time/us"],
                                 str(tmp_path / "hooked.hatchet"))
    totals = tree.totals(tree.root)
    seconds = totals["time (ns)"] / 1e9
    assert viewer._derive("gflop32/s", totals) == pytest.approx(200.0 / seconds / 1e9)
    assert viewer._derive("gflop/s", totals) == viewer._derive("gflop32/s", totals)
    assert viewer._derive("avg_time/us", totals) == pytest.approx(totals["time (ns)"] / 1e3)
    text = viewer.format_tree(tree, metrics)
    assert "scaled_add [n=100] [interpreter wall]" in text


def test_launch_metadata_must_give_numbers(tmp_path):
    @kiln.jit(launch_metadata=lambda grid, md, args: {"note": "text"})
    def noted(out_ptr):
        tl.store(out_ptr, 1)

    proton.start(str(tmp_path / "bad"), hook="triton")
    with pytest.raises(TypeError, match="metric 'note'"):
        noted[(1,)](np.zeros(1, np.int32))
    proton.finalize()


def test_scope_decorator_enter_exit_and_cpu_timed(tmp_path):
    @proton.scope("decorated")
    def work():
        _launch_numpy()

    proton.start(str(tmp_path / "s"))
    work()
    proton.enter_scope("manual", metrics={"flops16": 5})
    _launch_numpy()
    with pytest.raises(ValueError, match="mismatch"):
        proton.exit_scope("other")
    proton.exit_scope("manual")
    with proton.cpu_timed_scope("timed"):
        pass
    proton.finalize()
    root = _tree(tmp_path / "s.hatchet")
    assert _child(_child(root, "decorated"), "scaled_add")["metrics"]["count"] == 1
    assert _child(root, "manual")["metrics"]["flops16"] == 5
    assert _child(root, "timed")["metrics"]["cpu_time (ns)(exc)"] >= 0


def test_python_context_nests_by_call_stack(tmp_path):
    def caller_of_launch():
        _launch_numpy()

    proton.start(str(tmp_path / "py"), context="python")
    caller_of_launch()
    proton.finalize()
    names = []
    node = _tree(tmp_path / "py.hatchet")
    while node["children"]:
        node = node["children"][0]
        names.append(node["frame"]["name"])
    assert any(n.startswith("caller_of_launch@test_profiler.py:") for n in names)
    assert any(n.startswith("_launch@test_profiler.py:") for n in names)
    assert names[-1] == "scaled_add"


def test_two_sessions_record_independently(tmp_path):
    a = proton.start(str(tmp_path / "a"))
    _launch_numpy()
    b = proton.start(str(tmp_path / "b"))
    _launch_numpy()
    proton.finalize(a)
    _launch_numpy()
    proton.finalize(b)
    assert _child(_tree(tmp_path / "a.hatchet"), "scaled_add")["metrics"]["count"] == 2
    assert _child(_tree(tmp_path / "b.hatchet"), "scaled_add")["metrics"]["count"] == 2


@pytest.mark.parametrize("option", [{"context": "cupti"}, {"data": "trace"}, {"backend": "instrumentation"},
                                    {"mode": "pcsampling"}, {"hook": "other"}])
def test_unsupported_options_say_so(option):
    with pytest.raises(NotImplementedError, match="not supported"):
        proton.start("never", **option)


def test_unknown_session_and_output_format(tmp_path):
    with pytest.raises(ValueError, match="no session 7"):
        proton.activate(7)
    proton.start(str(tmp_path / "f"))
    with pytest.raises(NotImplementedError, match="chrome_trace"):
        proton.finalize(output_format="chrome_trace")
    proton.finalize()


def test_viewer_rejects_unknown_metric_and_has_a_command_line(tmp_path, capsys):
    proton.start(str(tmp_path / "v"))
    _launch_numpy()
    proton.finalize()
    capsys.readouterr()
    with pytest.raises(ValueError, match="tflop16/s"):
        viewer.parse(["tflop16/s"], str(tmp_path / "v.hatchet"))
    cli = subprocess.run([sys.executable, "-m", "kiln.profiler", "-m", "count,time/us", str(tmp_path / "v.hatchet")],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert cli.returncode == 0 and cli.stderr == "", cli.stderr  # no RuntimeWarning from runpy either
    out = cli.stdout.splitlines()
    assert out[0].split() == ["name", "count", "time/us"]
    assert out[1].split()[:4] == ["ROOT", "[interpreter", "wall]", "1"]  # its total includes wall-clock time


def test_profile_decorator(tmp_path):
    @proton.profile(name=str(tmp_path / "deco"))
    def run():
        _launch_numpy()

    run()
    _launch_numpy()  # after the function returned the session is inactive
    proton.finalize()
    assert _child(_tree(tmp_path / "deco.hatchet"), "scaled_add")["metrics"]["count"] == 1


def test_under_compat_as_the_tutorials_import_it(tmp_path):
    with kiln.compat.as_triton():
        import triton.profiler as tp
        import triton.profiler.viewer as tv
        assert tp.start is proton.start and tv.parse is viewer.parse


def test_in_kernel_instrumentation_is_refused_clearly():
    with kiln.compat.as_triton():
        import triton.profiler.language as pl
    with pytest.raises(NotImplementedError, match="kiln has no in-kernel instrumentation"):
        pl.enable_semantic("triton")

    @kiln.jit
    def instrumented(out_ptr):
        pl.enter_scope("load")
        tl.store(out_ptr, 1)

    with pytest.raises(kiln.CompilationError, match="'pl' refers to 'triton.profiler.language', which kiln does not know"):
        instrumented[(1,)](np.zeros(1, np.int32))
