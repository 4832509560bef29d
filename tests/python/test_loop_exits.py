"""break and continue in kernel loops (beyond Triton, which refuses both): while loops stop, for loops
over a range run their remaining iterations empty, unrolled loops stop unrolling, nested loops own
their exits. (An exit outside a loop, which Python itself refuses, is a located error of kiln's own parser
path: tests/lit/errors/loop_exits.test.)"""
import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def first_index_above(x_ptr, n, limit):
    i = 0
    found = -1
    while True:
        if i >= n:
            break
        if tl.load(x_ptr + i) > limit:
            found = i
            break
        i += 1
    return found


@kiln.jit
def exits_kernel(x_ptr, out_ptr, n, limit, BLOCK: tl.constexpr):
    # while True with breaks: a linear search
    tl.store(out_ptr + 0, first_index_above(x_ptr, n, limit))
    # for with a runtime break: the sum up to the first negative element
    s = 0.0
    for i in range(n):
        v = tl.load(x_ptr + i)
        if v < 0:
            break
        s += v
    tl.store(out_ptr + 1, s)
    # for with continue: the sum of the elements above the limit
    t = 0.0
    for i in tl.range(0, n, 1):
        v = tl.load(x_ptr + i)
        if v <= limit:
            continue
        t += v
    tl.store(out_ptr + 2, t)
    # nested loops: the inner break leaves the inner loop only; the outer continue skips a row
    count = 0
    for r in range(4):
        if r == 2:
            continue
        for c in range(10):
            if c > r:
                break
            count += 1
    tl.store(out_ptr + 3, count)
    # static_range: a break that always runs stops the unrolling, a runtime one guards the rest
    u = 0
    for k in tl.static_range(8):
        if k == 5:
            break
        u += k
    w = 0.0
    for k in tl.static_range(BLOCK):
        if tl.load(x_ptr + k) < 0:
            break
        w += tl.load(x_ptr + k)
    tl.store(out_ptr + 4, u)
    tl.store(out_ptr + 5, w)
    # while with a condition and a continue
    j = 0
    odd = 0
    while j < n:
        j += 1
        if j % 2 == 0:
            continue
        odd += 1
    tl.store(out_ptr + 6, odd)


def reference(x, n, limit):
    above = [i for i in range(n) if x[i] > limit]
    s = 0.0
    for v in x[:n]:
        if v < 0:
            break
        s += v
    t = sum(v for v in x[:n] if v > limit)
    count = sum(min(r, 9) + 1 for r in range(4) if r != 2)
    w = 0.0
    for v in x[:8]:
        if v < 0:
            break
        w += v
    return [above[0] if above else -1, s, t, count, 10, w, (n + 1) // 2]


@pytest.mark.parametrize("case", range(4))
def test_break_and_continue(backend, rng, case):
    n = [13, 20, 7, 0][case]
    x = rng.uniform(-0.2, 1.0, 20).astype(np.float32)
    if case == 1:
        x = np.abs(x)  # no negative element: the loops run to the end
    out = backend.empty(7, np.float32)
    backend.launcher(exits_kernel)[(1,)](backend.asarray(x), out, n, 0.5, BLOCK=8)
    backend.sync()
    np.testing.assert_allclose(backend.numpy(out), reference(x.tolist(), n, 0.5), rtol=1e-5)


@kiln.jit
def condition_kernel(x_ptr, n, out_ptr):
    i = 0
    s = 0.0
    while tl.condition(i < n, disable_licm=True):  # Triton 3.6's while-loop wrapper
        s += tl.load(x_ptr + i) * (n * 2.0)  # n * 2.0 stays in the loop (disable_licm)
        i += 1
    tl.store(out_ptr, s)


def test_tl_condition(backend):
    x = np.arange(6, dtype=np.float32)
    out = backend.empty(1, np.float32)
    backend.launcher(condition_kernel)[(1,)](backend.asarray(x), 5, out)
    backend.sync()
    assert backend.numpy(out)[0] == sum(range(5)) * 10.0
