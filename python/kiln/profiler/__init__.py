"""kiln.profiler (triton.profiler under kiln.compat): Proton's entry points, recording the GPU time of
every kernel launch with CUDA events (the wall time of interpreter runs, labelled as such), nested by
scope, written at finalize() as a table and a JSON tree (`<name>.hatchet`). See docs/python.md.

    import kiln.profiler as proton
    proton.start("matmul", hook="triton")
    with proton.scope("fp16"):
        kernel[grid](...)
    proton.finalize()
"""
from ._sessions import DEFAULT_PROFILE_NAME, activate, deactivate, finalize, profile, start
from .scope import cpu_timed_scope, enter_scope, exit_scope, scope
from . import language, viewer

__all__ = ["DEFAULT_PROFILE_NAME", "activate", "cpu_timed_scope", "deactivate", "enter_scope", "exit_scope",
           "finalize", "profile", "scope", "start", "viewer"]
