"""tl.range(..., loop_unroll_factor=k): the loop runs k iterations per trip of an unrolled main loop and
the rest one at a time (passes/unroll.cpp), so every iteration runs once, in order, whatever the trip
count: none, fewer than k, a multiple of k, a remainder, bounds at the ends of int32."""
import numpy as np
import pytest

import kiln
import kiln.language as tl

I32_MIN, I32_MAX = -(2**31), 2**31 - 1


@kiln.jit
def trace_kernel(out_ptr, lb, ub, STEP: tl.constexpr, UNROLL: tl.constexpr):
    # each iteration appends its index to out[2:], in order; out[0] counts them, out[1] hashes the order
    count = 0
    h = 7
    for i in tl.range(lb, ub, STEP, loop_unroll_factor=UNROLL):
        tl.store(out_ptr + 2 + count, i)
        h = h * 31 + i
        count += 1
    tl.store(out_ptr + 0, count)
    tl.store(out_ptr + 1, h)


def reference(lb, ub, step):
    xs = list(range(lb, ub, step))
    h = 7
    for i in xs:
        h = (h * 31 + i + 2**31) % 2**32 - 2**31  # int32 wraps
    return xs, h


BOUNDS = [(0, 0), (0, 1), (0, 5), (0, 12), (3, 40), (-17, 9), (5, 2),
          (I32_MAX - 20, I32_MAX), (I32_MIN, I32_MIN + 5), (I32_MIN + 3, I32_MIN + 30),
          # a main-loop trip whose next start, i + k*step, passes INT32_MAX: the rest is empty
          (I32_MAX - 11, I32_MAX), (I32_MAX - 7, I32_MAX)]


@pytest.mark.parametrize("unroll", [2, 3, 4])
@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize("bounds", BOUNDS)
def test_every_iteration_once_in_order(backend, bounds, step, unroll):
    lb, ub = bounds
    xs, h = reference(lb, ub, step)
    out = backend.asarray(np.full(2 + 64, -1, np.int32))
    backend.launcher(trace_kernel)[(1,)](out, lb, ub, STEP=step, UNROLL=unroll)
    backend.sync()
    got = backend.numpy(out)
    assert got[0] == len(xs)
    assert list(got[2:2 + len(xs)]) == xs
    assert got[1] == h


@kiln.jit
def tile_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in tl.range(0, n, BLOCK, loop_unroll_factor=UNROLL):
        acc = acc * 0.5 + tl.load(x_ptr + start + offs, mask=start + offs < n, other=0.0)
    tl.store(out_ptr + offs, acc)


@pytest.mark.parametrize("n", [0, 16, 48, 100, 257])
def test_tiles_unrolled_match_rolled(backend, rng, n):
    x = rng.standard_normal(max(n, 1)).astype(np.float32)
    outs = []
    for unroll in (1, 2, 3):
        out = backend.empty(16, np.float32)
        backend.launcher(tile_sum_kernel)[(1,)](backend.asarray(x), out, n, BLOCK=16, UNROLL=unroll)
        backend.sync()
        outs.append(backend.numpy(out))
    want = np.zeros(16, np.float64)
    for start in range(0, n, 16):
        chunk = np.zeros(16)
        m = min(16, n - start)
        chunk[:m] = x[start:start + m]
        want = want * 0.5 + chunk
    for got in outs:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(outs[1], outs[0])  # the same operations in the same order
    np.testing.assert_array_equal(outs[2], outs[0])


@kiln.jit
def nested_kernel(out_ptr, n, m):
    # both loops unrolled (the inner one inside every copy of the outer body), with an early exit
    count = 0
    for i in tl.range(0, n, 1, loop_unroll_factor=2):
        for j in tl.range(i, m, 2, loop_unroll_factor=3):
            if j > 20:
                break
            tl.store(out_ptr + 1 + count, i * 100 + j)
            count += 1
    tl.store(out_ptr, count)


@pytest.mark.parametrize("n, m", [(0, 5), (1, 1), (3, 10), (5, 30)])
def test_nested_loops_with_break(backend, n, m):
    want = []
    for i in range(n):
        for j in range(i, m, 2):
            if j > 20:
                break
            want.append(i * 100 + j)
    out = backend.asarray(np.full(1 + 64, -1, np.int32))
    backend.launcher(nested_kernel)[(1,)](out, n, m)
    backend.sync()
    got = backend.numpy(out)
    assert got[0] == len(want)
    assert list(got[1:1 + len(want)]) == want
