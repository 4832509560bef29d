"""tl.map_elementwise (one result, several, pack, control flow on an element's value) and the fp8 variants (fp8e4b15 on every backend,
fp8e4b8/fp8e5b16 on the interpreter) through the Python package."""
import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def divmod_(a, b):
    return a // b, a % b


@kiln.jit
def divmod_packed(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@kiln.jit
def sign_of_difference(x, y):
    return tl.where(x < y, -1, tl.where(x == y, 0, 1))


@kiln.jit
def map_kernel(a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, BLOCK: tl.constexpr, PACK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    if PACK == 1:
        c, d = tl.map_elementwise(divmod_, a, b)
    else:
        c, d = tl.map_elementwise(divmod_packed, a, b, pack=PACK)
    tl.store(c_ptr + offs, c)
    tl.store(d_ptr + offs, d)
    tl.store(e_ptr + offs, tl.map_elementwise(sign_of_difference, a, b))


@pytest.mark.parametrize("pack", [1, 2])
def test_map_elementwise(backend, rng, pack):
    a = rng.integers(0, 1 << 30, 256).astype(np.uint32)
    b = rng.integers(1, 1 << 20, 256).astype(np.uint32)
    b[:8] = a[:8]
    c, d, e = (backend.empty(256, t) for t in (np.uint32, np.uint32, np.int32))
    backend.launcher(map_kernel)[(1,)](backend.asarray(a), backend.asarray(b), c, d, e, BLOCK=256, PACK=pack)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(c), a // b)
    np.testing.assert_array_equal(backend.numpy(d), a % b)
    np.testing.assert_array_equal(backend.numpy(e), np.sign(a.astype(np.int64) - b.astype(np.int64)))


# ---- control flow on an element's value: if/elif/else with returns, while, for over an element's bound,
#      loops inside branches, an assert in a branch (checked only where the branch is taken), pack

@kiln.jit
def compare(x, y):  # Triton's test_map_elementwise
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@kiln.jit
def collatz_steps(n):
    if n <= 0:
        return -1  # the loop below would never end for these: it must not run for them
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@kiln.jit
def triangle(n):
    s = 0
    for i in range(n):  # a bound per element: zero iterations where n <= 0
        s += i
    for j in range(1, 4):  # bounds no element changes
        s += j * n
    return s


@kiln.jit
def checked_quotient(x, y):
    if y != 0:
        tl.device_assert(y != 0, "divisor is zero")
        q = x // y
    else:
        q = 0
    return q


@kiln.jit
def clamp_pair(a0, a1, lo0, lo1):
    r0 = a0
    r1 = a1
    if a0 < lo0:
        r0 = lo0
    if a1 < lo1:
        r1 = lo1
    return r0, r1


@kiln.jit
def control_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.map_elementwise(compare, x, y))
    tl.store(out_ptr + BLOCK + offs, tl.map_elementwise(collatz_steps, x))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.map_elementwise(triangle, y))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.map_elementwise(checked_quotient, x, y))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.map_elementwise(clamp_pair, x, 5, pack=2)[0])  # a tuple, as in Triton


def collatz_reference(n):
    if n <= 0:
        return -1
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_control_flow_per_element(backend, rng):
    """Each element runs the function's control flow on its own values, as Triton runs it per element."""
    block = 128
    x = rng.integers(-20, 60, block).astype(np.int32)
    y = rng.integers(-5, 30, block).astype(np.int32)
    y[:16] = x[:16]
    y[16:24] = 0
    out = backend.empty(5 * block, np.int32)
    backend.launcher(control_kernel)[(1,)](backend.asarray(x), backend.asarray(y), out, BLOCK=block)
    backend.sync()
    got = backend.numpy(out).reshape(5, block)
    np.testing.assert_array_equal(got[0], np.sign(x.astype(np.int64) - y))
    np.testing.assert_array_equal(got[1], [collatz_reference(int(n)) for n in x])
    np.testing.assert_array_equal(got[2], [sum(range(max(int(n), 0))) + 6 * int(n) for n in y])
    q = [0 if b == 0 else int(np.trunc(a / b)) for a, b in zip(x.tolist(), y.tolist())]
    np.testing.assert_array_equal(got[3], q)
    np.testing.assert_array_equal(got[4], np.maximum(x, 5))


@kiln.jit
def failing_branch(x):
    if x > 3:
        tl.device_assert(x < 3, "x is above 3")
    return x


@kiln.jit
def assert_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.map_elementwise(failing_branch, tl.load(x_ptr + offs)))


def test_assert_in_a_branch_checks_the_elements_that_take_it():
    assert_kernel[(1,)](np.arange(4, dtype=np.int32), BLOCK=4)  # no element reaches the assert
    with pytest.raises(kiln.KernelError, match="x is above 3"):
        assert_kernel[(1,)](np.arange(8, dtype=np.int32), BLOCK=8)


# ---- fp8e4b15: loads, stores, abs, conversions to and from f16/f32 (Triton's rules)

@kiln.jit
def e4b15_kernel(bits_ptr, f32_ptr, f16_ptr, back_ptr, abs_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(bits_ptr + offs)
    tl.store(f32_ptr + offs, x.to(tl.float32))
    tl.store(f16_ptr + offs, x.to(tl.float16))
    tl.store(back_ptr + offs, tl.load(f32_ptr + offs).to(tl.float8e4b15))
    tl.store(abs_ptr + offs, tl.abs(x))


def e4b15_value(b):
    s, e, m = b >> 7, (b >> 3) & 15, b & 7
    v = 2.0 ** -14 * (m / 8) if e == 0 else 2.0 ** (e - 15) * (1 + m / 8)
    return -v if s else v


def test_fp8e4b15_every_pattern(backend):
    bits = np.arange(256, dtype=np.uint8)
    f32, f16 = backend.empty(256, np.float32), backend.empty(256, np.float16)
    back, ab = backend.empty(256, np.uint8), backend.empty(256, np.uint8)
    wrap = lambda a: kiln.reinterpret(a, tl.float8e4b15)
    backend.launcher(e4b15_kernel)[(1,)](wrap(backend.asarray(bits)), f32, f16, wrap(back), wrap(ab), BLOCK=256)
    backend.sync()
    want = np.array([e4b15_value(b) for b in range(256)])
    np.testing.assert_array_equal(backend.numpy(f32), want.astype(np.float32))
    np.testing.assert_array_equal(backend.numpy(f16), want.astype(np.float16))
    # back to fp8: every pattern but +-1.875 (the conversion clamps to 1.75, as Triton's does)
    expect_back = np.where((bits & 0x7F) == 0x7F, bits - 1, bits).astype(np.uint8)
    np.testing.assert_array_equal(backend.numpy(back), expect_back)
    np.testing.assert_array_equal(backend.numpy(ab), bits & 0x7F)


@kiln.jit
def to_fnuz(x_ptr, a_ptr, b_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(a_ptr + offs, x.to(tl.float8e4b8))
    tl.store(b_ptr + offs, x.to(tl.float8e5b16))


def test_fnuz_formats_on_the_interpreter():
    x = np.array([0.0, -0.0, 1.0, -1.0, 240.0, 1e6, -1e6, np.nan, np.inf, 2.0 ** -10, 2.0 ** -17, 0.1], np.float32)
    x = np.resize(x, 16)
    a, b = np.zeros(16, np.uint8), np.zeros(16, np.uint8)
    to_fnuz[(1,)](x, kiln.reinterpret(a, tl.float8e4b8), kiln.reinterpret(b, tl.float8e5b16), BLOCK=16)
    # e4b8: 1.0 = 0x40, 240 = 0x7F (the max, also for 1e6 and inf), NaN = 0x80, -0 -> +0
    assert list(a[:9]) == [0x00, 0x00, 0x40, 0xC0, 0x7F, 0x7F, 0xFF, 0x80, 0x7F]
    assert list(b[:9]) == [0x00, 0x00, 0x40, 0xC0, 0x60, 0x7F, 0xFF, 0x80, 0x7F]  # 240: a tie, to 256
