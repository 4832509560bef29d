"""The benchmark suite's own kernel files (bench/kernels/*.py, loaded unchanged through
kiln.compat.import_as_triton) at small shapes, on each backend against float64 references: the
interpreter and the GPU run the same sources the suite times, with every launch configuration the
suite's autotuner may pick (warps, and softmax's row-loop stages)."""
import pathlib

import numpy as np
import pytest

import kiln
from conftest import assert_allclose

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "kernels"
_modules = {}


def load(name):
    if name not in _modules:
        _modules[name] = kiln.compat.import_as_triton(BENCH / f"{name}.py", module_name=f"bench_{name}")
    return _modules[name]


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rows, cols", [(5, 100), (3, 1024), (2, 3000)])
def test_softmax(backend, rng, rows, cols):
    m = load("softmax")
    xh = rng.standard_normal((rows, cols)).astype(np.float32)
    block = 1 << (cols - 1).bit_length()
    for cfg in m.get_configs():
        y = backend.empty((rows, cols), np.float32)
        # One program per row as the suite launches it, and a persistent grid of two programs.
        for grid in (rows, 2):
            m.softmax_kernel[(grid,)](y, backend.asarray(xh), cols, cols, rows, cols, BLOCK_SIZE=block,
                                      **cfg.kwargs, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
            assert_allclose(backend.numpy(y), softmax_ref(xh.astype(np.float64)), rtol=1e-5, atol=1e-6,
                            what=f"softmax {cfg}, grid {grid}")


@pytest.mark.parametrize("rows, cols, block", [(3, 100, 128), (2, 1000, 1024), (2, 1000, 256), (1, 3000, 1024)])
def test_layernorm(backend, rng, rows, cols, block):
    # block >= cols: one pass over registers; block < cols: the three chunked passes.
    m = load("layernorm")
    xh = rng.standard_normal((rows, cols)).astype(np.float16)
    wh, bh = rng.random(cols).astype(np.float16), rng.standard_normal(cols).astype(np.float16)
    eps = 1e-5
    x64 = xh.astype(np.float64)
    mu = x64.mean(axis=1)
    r = 1 / np.sqrt(x64.var(axis=1) + eps)
    ref = (x64 - mu[:, None]) * r[:, None] * wh + bh
    for cfg in m.get_configs():
        y = backend.empty((rows, cols), np.float16)
        mean, rstd = backend.empty(rows, np.float32), backend.empty(rows, np.float32)
        m.layer_norm_fwd_kernel[(rows,)](backend.asarray(xh), y, backend.asarray(wh), backend.asarray(bh), mean,
                                         rstd, cols, cols, eps, BLOCK_SIZE=block, ONE_PASS=block >= cols,
                                         num_warps=cfg.num_warps)
        assert_allclose(backend.numpy(mean), mu, rtol=1e-5, atol=1e-5, what=f"mean {cfg}")
        assert_allclose(backend.numpy(rstd), r, rtol=1e-4, atol=1e-5, what=f"rstd {cfg}")
        assert_allclose(backend.numpy(y), ref, rtol=1e-2, atol=1e-3, what=f"y {cfg}")
