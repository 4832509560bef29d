"""pytest plugin for tools/device-triton-tests, loaded after the harness's kiln_triton_plugin: gives the
`triton` module that plugin registers a module spec. torch (2.11) asks importlib.util.find_spec("triton")
when CUDA initialises, which raises for a sys.modules entry without one, so every CUDA test failed before
reaching kiln. kiln.compat's own `triton` has a spec; the harness's stand-in (read-only, shared) does not.
"""
import importlib.machinery
import sys

_triton = sys.modules.get("triton")
if _triton is not None and getattr(_triton, "__spec__", None) is None:
    _triton.__spec__ = importlib.machinery.ModuleSpec("triton", None, is_package=True)
