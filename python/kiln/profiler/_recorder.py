"""kiln.profiler's sessions and the launch recorder that the extension tells of every launch while a
session is active (kiln._kiln.set_launch_observer; python/src/jit.cpp, PyJit::launch).

A GPU launch is timed by two torch.cuda events recorded on the launch's stream before and after it;
their times are read when the session is finalized (or, for long runs, once they have completed), so
recording adds no synchronization. An interpreter launch runs on the calling thread: its wall time is
its run time, recorded with the clock "interpreter wall".
"""
import os
import sys
import threading
import time

from .. import _kiln
from ._tree import CLOCK_GPU, CLOCK_INTERPRETER, CLOCK_NONE, Node

_KILN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PENDING_LIMIT = 4096  # GPU timings kept unread before the completed ones are read
_scopes = threading.local()


def scope_stack():
    """This thread's open scope names (outermost first)."""
    stack = getattr(_scopes, "stack", None)
    if stack is None:
        stack = _scopes.stack = []
    return stack


def _python_path():
    """context="python": the calling Python frames outside kiln, outermost first, as "fn@file:line"."""
    frames = []
    f = sys._getframe(2)
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if not path.startswith(_KILN_DIR + os.sep):
            frames.append(f"{f.f_code.co_name}@{os.path.basename(path)}:{f.f_lineno}")
        f = f.f_back
    return tuple(reversed(frames))


def _torch_cuda():
    torch = sys.modules.get("torch")
    return torch if torch is not None and torch.cuda.is_available() else None


class Session:
    def __init__(self, sid, name, context, hook):
        self.id, self.name, self.context, self.hook = sid, name, context, hook
        self.active = True
        self.root = Node("ROOT")

    def path(self):
        return (_python_path() if self.context == "python" else ()) + tuple(scope_stack())


class _Launch:
    """What launch_begin learned, for launch_end."""
    __slots__ = ("jit", "grid", "args", "sessions", "paths", "stream", "start", "wall_start", "clock")


class Recorder:
    """The sessions of this process (kiln.profiler.start ... finalize) and the launch observer."""

    def __init__(self):
        self.sessions = {}
        self.next_id = 0
        self.pending = []  # [(kernel nodes, start event, end event)] not read yet
        self.lock = threading.Lock()

    def active(self):
        return [s for s in self.sessions.values() if s.active]

    def update_observer(self):
        _kiln.set_launch_observer(self if self.active() else None)

    # ---- called by the extension around every launch while a session is active

    def launch_begin(self, jit, grid, args, on_gpu, device):
        rec = _Launch()
        rec.sessions = self.active()
        rec.paths = [s.path() for s in rec.sessions]
        rec.jit, rec.grid, rec.args = jit, grid, args
        rec.start = None
        torch = _torch_cuda() if on_gpu else None
        if torch is not None:
            rec.clock = CLOCK_GPU
            rec.stream = torch.cuda.current_stream(device)  # the stream kiln launches on
            rec.start = torch.cuda.Event(enable_timing=True)
            rec.start.record(rec.stream)
        else:
            rec.clock = CLOCK_NONE if on_gpu else CLOCK_INTERPRETER
        rec.wall_start = time.perf_counter_ns()
        return rec

    def launch_end(self, rec, compiled):
        wall = time.perf_counter_ns() - rec.wall_start
        end = None
        if rec.start is not None:
            end = _torch_cuda().cuda.Event(enable_timing=True)
            end.record(rec.stream)
        base_name = compiled.name
        nodes = []
        for session, path in zip(rec.sessions, rec.paths):
            name, metrics = base_name, {}
            launch_metadata = getattr(rec.jit, "launch_metadata", None)
            if session.hook and launch_metadata is not None:
                name, metrics = _from_launch_metadata(launch_metadata, rec.grid, compiled, rec.args, base_name)
            node = session.root.at(path).child(name, "kernel")
            node.set_clock(rec.clock)
            node.add({"count": 1, **metrics})
            nodes.append(node)
        if rec.clock == CLOCK_INTERPRETER:
            for node in nodes:
                node.add({"time (ns)": wall})
        elif end is not None:
            with self.lock:
                self.pending.append((nodes, rec.start, end))
                if len(self.pending) > _PENDING_LIMIT:
                    self._read(wait=False)

    def _read(self, wait):
        """Adds the GPU times of pending launches to their nodes: all of them (waiting for the GPU) with
        wait, else the completed ones from the oldest on."""
        done = 0
        for nodes, start, end in self.pending:
            if wait:
                end.synchronize()
            elif not end.query():
                break
            ns = start.elapsed_time(end) * 1e6
            for node in nodes:
                node.add({"time (ns)": ns})
            done += 1
        del self.pending[:done]

    def read_all(self):
        with self.lock:
            self._read(wait=True)


def _from_launch_metadata(fn, grid, compiled, args, default_name):
    """(name, metrics) from a kernel's launch_metadata(grid, metadata, args), as Proton's "triton" hook
    reads it: "name" names the launch, the other entries are numeric metrics (flops16, bytes, ...)."""
    out = fn(grid, compiled.metadata, dict(args))
    if out is None:
        return default_name, {}
    if not isinstance(out, dict):
        raise TypeError(f"launch_metadata of '{default_name}' returned {type(out).__name__}, expected a dict")
    name = out.get("name", default_name)
    metrics = {}
    for k, v in out.items():
        if k == "name":
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"launch_metadata of '{default_name}': metric '{k}' is {v!r}; metrics must be numbers")
        metrics[k] = v
    return str(name), metrics


recorder = Recorder()
