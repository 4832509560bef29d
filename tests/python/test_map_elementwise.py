"""tl.map_elementwise (one result, several, pack) and the fp8 variants (fp8e4b15 on every backend,
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
