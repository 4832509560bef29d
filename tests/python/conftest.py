"""Shared fixtures of kiln's Python tests.

Every kernel test takes the `backend` fixture and runs once per backend: "numpy" (NumPy arrays on the
interpreter; always), "torch-cpu" (CPU tensors on the interpreter; needs torch) and "cuda" (CUDA
tensors on the GPU; needs torch.cuda, skipped elsewhere). The package is found on PYTHONPATH
(ctest sets BUILD/python); run by hand, build/python or $KILN_BUILD_DIR/python is used.
"""
import contextlib
import importlib
import os
import pathlib
import sys
import types
import zlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _find_package():
    try:
        importlib.import_module("kiln")
        return
    except ImportError:
        pass
    for build in (os.environ.get("KILN_BUILD_DIR"), "build"):
        if build and (ROOT / build / "python" / "kiln").is_dir():
            sys.path.insert(0, str(ROOT / build / "python"))
            return


_find_package()
import kiln  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

HAS_CUDA = torch is not None and torch.cuda.is_available()

_SEED = int(os.environ.get("KILN_TEST_SEED", "0") or 0) or np.random.SeedSequence().entropy % (1 << 32)


def pytest_report_header(config):
    return [f"kiln: {kiln.__file__}; torch: {getattr(torch, '__version__', 'absent')}; cuda: {HAS_CUDA}; "
            f"random inputs from KILN_TEST_SEED={_SEED}"]


@pytest.fixture
def rng(request):
    """A generator seeded from KILN_TEST_SEED (printed in the header) and the test's name."""
    return np.random.default_rng([_SEED, zlib.crc32(request.node.nodeid.encode())])


class Backend:
    """Makes the arrays of one backend from NumPy data and reads them back."""

    def __init__(self, name):
        self.name = name

    @property
    def is_cuda(self):
        return self.name == "cuda"

    def asarray(self, a):
        a = np.ascontiguousarray(a)
        if self.name == "numpy":
            return a.copy()
        t = torch.from_numpy(a.copy())
        return t.cuda() if self.is_cuda else t

    def empty(self, shape, dtype):
        """An output poisoned with 0xFF bytes (NaN in every float type) so unwritten elements fail."""
        a = np.empty(shape, dtype=dtype)
        a.view(np.uint8)[...] = 0xFF
        return self.asarray(a)

    def numpy(self, a):
        if isinstance(a, np.ndarray):
            return a
        return a.detach().cpu().numpy()

    def sync(self):
        if self.is_cuda:
            torch.cuda.synchronize()

    def launcher(self, kernel):
        """`kernel` as it runs on this backend when no argument is an array: kiln launches such a kernel
        on the GPU wherever there is one, so the host backends take its twin decorated with
        interpret=True, and "cuda" the kernel itself."""
        if self.is_cuda:
            return kernel
        if kernel not in _interpreted:
            _interpreted[kernel] = kiln.jit(interpret=True)(kernel.fn)
        return _interpreted[kernel]

    def __repr__(self):
        return self.name


_interpreted = {}  # a kernel's interpret=True twin, compiled once a session

BACKENDS = [
    "numpy",
    pytest.param("torch-cpu", marks=pytest.mark.skipif(torch is None, reason="needs torch")),
    pytest.param("cuda", marks=pytest.mark.skipif(not HAS_CUDA, reason="needs torch with a CUDA device")),
]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return Backend(request.param)


@contextlib.contextmanager
def _torch_stub():
    """Examples import torch for their host code; without torch a stub lets their kernels load."""
    if torch is not None or "torch" in sys.modules:
        yield
        return
    stub = types.ModuleType("torch")
    stub.Tensor = type("Tensor", (), {})
    sys.modules["torch"] = stub
    try:
        yield
    finally:
        sys.modules.pop("torch", None)


_examples = {}


def load_example(name):
    """examples/<name>.py as a module whose `import triton` is kiln (kiln.compat.import_as_triton)."""
    if name not in _examples:
        with _torch_stub():
            _examples[name] = kiln.compat.import_as_triton(EXAMPLES / f"{name}.py")
    return _examples[name]


def kernel_of_lines(params, *lines):
    """A @kiln.jit kernel `k(params)` whose body is `lines`, built with exec() (its source is "<string>":
    lines[i] is on line 3 + i), for tests of located errors."""
    src = f"@kiln.jit\ndef k({params}):\n" + "".join(f"    {line}\n" for line in lines)
    scope = {"kiln": kiln, "tl": kiln.language}
    exec(src, scope)
    return scope["k"]


def assert_allclose(got, want, rtol, atol, what=""):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))  # NaN fails
    if bad.any():
        idx = np.argwhere(bad)[:5]
        detail = ", ".join(f"{tuple(i)}: got {got[tuple(i)]}, want {want[tuple(i)]}" for i in idx)
        pytest.fail(f"{what}: {int(bad.sum())} of {bad.size} elements differ (seed {_SEED}): {detail}")
