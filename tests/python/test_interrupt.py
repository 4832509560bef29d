"""Interpreter launches release the GIL and stop on Ctrl-C: a long grid used to hold
the GIL to the end and ignore SIGINT (2^31 programs ran for a quarter of an hour). Compiling releases the
GIL too (warmups, and the first GPU launch of a specialization)."""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np

import kiln
import kiln.language as tl


@kiln.jit(interpret=True)
def touch(out_ptr):
    tl.store(out_ptr + tl.program_id(0) % 4, tl.program_id(0))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent)] +
                                        [p for p in [env.get("PYTHONPATH")] if p])
    return env


def test_ctrl_c_stops_a_long_interpreter_launch(tmp_path):
    script = tmp_path / "long_launch.py"
    script.write_text(textwrap.dedent("""
        import signal, sys, time, numpy as np, kiln, kiln.language as tl
        signal.signal(signal.SIGINT, signal.default_int_handler)  # even where the parent ignores SIGINT
        @kiln.jit(interpret=True)
        def touch(out_ptr):
            tl.store(out_ptr + tl.program_id(0) % 4, tl.program_id(0))
        out = np.zeros(4, np.int32)
        touch[(1,)](out)  # compiled before the long run
        print("launching", flush=True)
        try:
            touch[(2**31,)](out)
        except KeyboardInterrupt:
            print("interrupted", time.monotonic(), flush=True)
            raise
    """))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=_env())
    try:
        assert child.stdout.readline().strip() == "launching"
        time.sleep(0.5)  # well inside the launch
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert "KeyboardInterrupt" in err, err
    stopped = float(out.split()[1])
    assert stopped - sent < 2.0, f"the launch went on {stopped - sent:.2f} s after SIGINT"


def _gaps_while(work):
    """Runs `work` on another thread; returns the gaps between this thread's turns of a 1 ms sleep loop
    meanwhile (a call that holds the GIL shows as one long gap)."""
    launcher = threading.Thread(target=work)
    gaps, last = [], None
    launcher.start()
    while launcher.is_alive():
        now = time.perf_counter()
        if last is not None:
            gaps.append(now - last)
        last = now
        time.sleep(0.001)
    launcher.join()
    return gaps


def test_other_threads_run_during_an_interpreter_launch():
    out = np.zeros(4, np.int32)
    touch[(1,)](out)
    grid = 50_000
    t0 = time.perf_counter()
    touch[(grid,)](out)
    per_program = (time.perf_counter() - t0) / grid
    grid = max(grid, int(1.5 / per_program))  # a second and a half of interpreting
    gaps = _gaps_while(lambda: touch[(grid,)](out))
    # Holding the GIL, the launch froze this loop for its whole length (one gap of over a second).
    assert len(gaps) > 50 and max(gaps) < 0.4, (len(gaps), max(gaps, default=0))


@kiln.jit
def slow_to_compile(p, out, N: tl.constexpr):
    acc = tl.load(p)
    for i in tl.static_range(N):
        acc = acc * 1.0001 + tl.load(p + i)
    tl.store(out, acc)


def test_other_threads_run_while_a_kernel_compiles():
    # A warmup (and a GPU launch's first run) compiles with the GIL released: here 4,000 unrolled steps,
    # most of a second of compiling, during which this thread keeps running.
    spent = []

    def warm():
        t0 = time.perf_counter()
        slow_to_compile.warmup("*fp32", "*fp32", 4000, grid=(1,))
        spent.append(time.perf_counter() - t0)

    gaps = _gaps_while(warm)
    assert spent and spent[0] > 0.2, spent  # long enough to tell a held GIL from a released one
    # Holding the GIL, the compile froze this loop for its whole length.
    assert max(gaps, default=0) < spent[0] / 2, (len(gaps), max(gaps, default=0), spent[0])
