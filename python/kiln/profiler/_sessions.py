"""start, activate, deactivate, finalize and profile: Proton's session API (triton.profiler).

A session records every kernel launch while it is active; finalize() writes its tree as JSON to
`<name>.hatchet` and prints it as a table. What kiln takes of Proton's options, and what it refuses,
is listed in docs/python.md ("Profiler").
"""
import functools
import json
import os

from ._recorder import recorder
from ._tree import document
from . import viewer

DEFAULT_PROFILE_NAME = "proton"

_CONTEXTS = ("shadow", "python")
_HOOKS = (None, "triton", "launch")
_BACKENDS = (None, "cupti")


def _check(value, allowed, what):
    if value not in allowed:
        raise NotImplementedError(f"kiln.profiler.start: {what}={value!r} is not supported (kiln takes "
                                  f"{', '.join(repr(a) for a in allowed)})")


def start(name=None, *, context="shadow", data="tree", backend=None, mode=None, hook=None):
    """Starts (and activates) a session; returns its id. context "shadow" nests launches by scope;
    "python" by the Python call stack, then scope. hook="triton" names launches and adds metrics from
    the kernel's launch_metadata, as Proton's launch hook does."""
    _check(context, _CONTEXTS, "context")
    _check(data, ("tree",), "data")
    _check(backend, _BACKENDS, "backend")
    _check(mode, (None,), "mode")
    _check(hook, _HOOKS, "hook")
    name = DEFAULT_PROFILE_NAME if name is None else os.fspath(name)
    sid = recorder.next_id
    recorder.next_id += 1
    recorder.sessions[sid] = _new_session(sid, name, context, hook)
    recorder.update_observer()
    return sid


def _new_session(sid, name, context, hook):
    from ._recorder import Session
    return Session(sid, name, context, hook)


def _select(session, what):
    if session is None:
        return list(recorder.sessions.values())
    if session not in recorder.sessions:
        raise ValueError(f"kiln.profiler.{what}: no session {session} (sessions: "
                         f"{sorted(recorder.sessions) or 'none started'})")
    return [recorder.sessions[session]]


def activate(session=None):
    """Resumes recording in `session` (default: every session)."""
    for s in _select(session, "activate"):
        s.active = True
    recorder.update_observer()


def deactivate(session=None):
    """Pauses recording in `session` (default: every session); what it recorded is kept."""
    for s in _select(session, "deactivate"):
        s.active = False
    recorder.update_observer()


def _table_metrics(tree):
    names = ["count", "time/ms", "avg_time/us"]
    available = tree.available()
    if any(k.startswith("flops") for k in available):
        names.append("tflop/s")
    if "bytes" in available:
        names.append("gbyte/s")
    return names


def finalize(session=None, output_format=""):
    """Ends `session` (default: every session): waits for its GPU timings, writes `<name>.hatchet`
    (the JSON tree) and prints the profile as a table."""
    if output_format not in ("", "hatchet"):
        raise NotImplementedError(f"kiln.profiler.finalize: output_format={output_format!r} is not supported "
                                  "(kiln writes 'hatchet': a JSON tree)")
    sessions = _select(session, "finalize") if session is not None or recorder.sessions else []
    recorder.read_all()
    for s in sessions:
        del recorder.sessions[s.id]
    recorder.update_observer()
    for s in sessions:
        path = s.name if s.name.endswith(".hatchet") else s.name + ".hatchet"
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(path, "w") as f:
            json.dump(document(s.root, s.name), f, indent=1)
        tree = viewer.Tree(s.root)
        print(f"kiln.profiler: {path}")
        print(viewer.format_tree(tree, _table_metrics(tree)))


def profile(func=None, *, name=None, context="shadow", data="tree", backend=None, mode=None, hook=None):
    """@profile: a session started when the function is called and deactivated when it returns."""

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            sid = start(name, context=context, data=data, backend=backend, mode=mode, hook=hook)
            try:
                return f(*args, **kwargs)
            finally:
                deactivate(sid)

        return wrapper

    return decorate(func) if func is not None else decorate
