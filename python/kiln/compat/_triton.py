"""The module that `import triton` gives under kiln.compat: every name is kiln's (looked up on kiln at
each access, so the two never disagree), except __version__, which is the Triton release whose API kiln
follows. kiln's own version stays kiln.__version__.
"""
import importlib.machinery
import types

import kiln

TRITON_VERSION = "3.6.0"


class _TritonModule(types.ModuleType):
    """`triton`: kiln's names under Triton's version."""

    def __getattr__(self, name):
        try:
            return getattr(kiln, name)
        except AttributeError:
            raise AttributeError(f"module 'triton' (kiln under kiln.compat) has no attribute '{name}'") from None

    def __dir__(self):
        return sorted(set(dir(kiln)) | set(self.__dict__))


triton = _TritonModule("triton", kiln.__doc__)
triton.__version__ = TRITON_VERSION
triton.__path__ = []  # a package: `import triton.language` finds its submodules in sys.modules
# importlib.util.find_spec("triton") answers from sys.modules and raises when a module there has no
# spec; torch asks it when CUDA initialises (to register its Triton kernels).
triton.__spec__ = importlib.machinery.ModuleSpec("triton", None, is_package=True)
triton.__kiln__ = kiln

__all__ = ["TRITON_VERSION", "triton"]
