"""Run code written for Triton with kiln in Triton's place.

    python -m kiln.compat script.py [args...]      # `import triton` in script.py (and below) is kiln
                                                    # (kiln/compat/__main__.py)

    import kiln.compat
    kiln.compat.install()                           # from here on, `import triton` gives kiln
    mod = kiln.compat.import_as_triton("kernels.py")  # only this file sees kiln as triton; the real
                                                    # triton stays usable in the same process
"""
import contextlib
import importlib.util
import itertools
import os
import sys

import kiln
from kiln import compiler, knobs, language, profiler, runtime, testing, tools
from kiln.language import core, extra, math, random
from . import _cublas
from ._triton import TRITON_VERSION, triton

_counter = itertools.count()


def _triton_modules():
    """sys.modules entries that make `import triton...` resolve to kiln."""
    return {
        "triton": triton,
        "triton.language": language,
        "triton.language.core": core,
        "triton.language.math": math,
        "triton.language.random": random,
        "triton.testing": testing,
        "triton.runtime": runtime,
        "triton.runtime.errors": runtime.errors,
        "triton.runtime.driver": runtime.driver,
        "triton.runtime.jit": runtime.jit,
        "triton.knobs": knobs,
        "triton.compiler": compiler,
        "triton.compiler.errors": compiler.errors,
        "triton.tools": tools,
        "triton.tools.tensor_descriptor": tools.tensor_descriptor,
        "triton.profiler": profiler,
        "triton.profiler.viewer": profiler.viewer,
        "triton.profiler.language": profiler.language,
        "triton.language.extra": extra,
        "triton.language.extra.libdevice": extra.libdevice,
        "triton.language.extra.cuda": extra.cuda,
        "triton.language.extra.cuda.libdevice": extra.libdevice,
        # Triton's cuBLASLt binding (the persistent-matmul tutorial's reference), computed through torch
        "triton._C": _cublas._C,
        "triton._C.libtriton": _cublas.libtriton,
        "triton._C.libtriton.nvidia": _cublas.nvidia,
        "triton._C.libtriton.nvidia.cublas": _cublas.cublas,
    }


@contextlib.contextmanager
def as_triton():
    """Within the block, `import triton` (and triton.language, triton.testing, ...) gives kiln; the
    previous sys.modules entries (the real triton's, if imported) are put back afterwards."""
    mapping = _triton_modules()
    # Hide every other triton.* module too, so nothing of the real triton is picked up half-way.
    names = set(mapping) | {n for n in sys.modules if n == "triton" or n.startswith("triton.")}
    saved = {n: sys.modules[n] for n in names if n in sys.modules}
    for n in names:
        sys.modules.pop(n, None)
    sys.modules.update(mapping)
    try:
        yield
    finally:
        for n in names:
            sys.modules.pop(n, None)
        sys.modules.update(saved)


def import_as_triton(path, module_name=None):
    """Executes the Triton-style file at `path` as a new module whose `import triton`,
    `import triton.language as tl`, `from triton import ...` and `import triton.testing` give kiln,
    and returns it. sys.modules is restored afterwards (the real triton stays importable); the module
    itself is registered under module_name (default: "kiln_triton_<file stem>_<n>")."""
    path = os.path.abspath(os.fspath(path))
    if module_name is None:
        stem = os.path.splitext(os.path.basename(path))[0]
        module_name = f"kiln_triton_{stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"kiln.compat: cannot import '{path}'")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        with as_triton():
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def install():
    """Registers kiln as `triton` for the rest of the process (replacing the real triton's entries)."""
    for n in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        del sys.modules[n]
    sys.modules.update(_triton_modules())


__all__ = ["TRITON_VERSION", "as_triton", "import_as_triton", "install", "triton"]
