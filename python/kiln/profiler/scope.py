"""scope, cpu_timed_scope, enter_scope and exit_scope: named regions that launches nest under (and
that may carry metrics of their own, such as the bytes or flops of work done outside kiln).
"""
import functools
import itertools
import time

from ._recorder import recorder, scope_stack

_ids = itertools.count()


def _profiling():
    return bool(recorder.sessions)


def _add_metrics(metrics):
    """Adds metrics to the innermost open scope in every active session."""
    for s in recorder.active():
        s.root.at(s.path()).add(metrics)


class scope:
    """`with scope("name", {"bytes": n}):` or `@scope("name")`: launches inside nest under "name"."""

    def __init__(self, name, metrics=None):
        self.name = name
        self.metrics = metrics
        self.id = None

    def _enter_scope(self):
        if not _profiling():
            return
        self.id = next(_ids)
        scope_stack().append(self.name)
        if self.metrics:
            _add_metrics(self.metrics)

    def _exit_scope(self):
        if self.id is None:
            return
        self.id = None
        stack = scope_stack()
        if stack and stack[-1] == self.name:
            stack.pop()

    def __enter__(self):
        self._enter_scope()
        return self

    def __exit__(self, *exc):
        self._exit_scope()

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self._enter_scope()
            try:
                return func(*args, **kwargs)
            finally:
                self._exit_scope()

        return wrapper


class cpu_timed_scope(scope):
    """A scope that also records its own wall time as "cpu_time (ns)(exc)"."""

    def __init__(self, name, metrics=None):
        if metrics and "cpu_time" in metrics:
            raise ValueError("The metric name 'cpu_time' is reserved.")
        super().__init__(name, metrics)
        self.start_time = None

    def _enter_scope(self):
        self.start_time = time.perf_counter_ns()
        super()._enter_scope()

    def _exit_scope(self):
        if self.id is not None:
            _add_metrics({"cpu_time (ns)(exc)": time.perf_counter_ns() - self.start_time})
        super()._exit_scope()


def enter_scope(name, *, metrics=None):
    """Opens scope `name` (closed by exit_scope); returns its id, or None when not profiling."""
    if not _profiling():
        return None
    scope_stack().append(name)
    if metrics:
        _add_metrics(metrics)
    return next(_ids)


def exit_scope(name=None, *, metrics=None):
    """Closes the innermost open scope; `name`, when given, must be its name."""
    if not _profiling():
        return None
    stack = scope_stack()
    if not stack:
        raise ValueError("kiln.profiler.exit_scope: no scope is open")
    if name and name != stack[-1]:
        raise ValueError(f"Scope name mismatch: {name} != {stack[-1]}")
    if metrics:
        _add_metrics(metrics)
    stack.pop()
    return next(_ids)
