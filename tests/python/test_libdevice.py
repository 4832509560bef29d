"""triton.language.extra.libdevice and extra.cuda: the functions kiln implements compute what C's <cmath>
does (within the ulp bounds of docs/ptx.md on the GPU) on awkward inputs, f32 and f64, on every backend;
every other Triton libdevice name imports, and using it is a located CompilationError "not supported by
kiln" (not an AttributeError at import)."""
import math

import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl
from kiln.language.extra import cuda, libdevice
from kiln.language.extra.libdevice import exp as libdevice_exp


@kiln.jit
def through_module(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = libdevice.exp(x) + libdevice.sqrt(x) + libdevice.floor(x) + libdevice.fma_rn(x, x, x) + libdevice_exp(x)
    tl.store(out_ptr + offs, y)


@kiln.jit
def through_tl(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.extra.cuda.libdevice.rsqrt(x) + tl.extra.libdevice.div_rn(x, 3.0))


@kiln.jit
def uses_rcp64h(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, libdevice.rcp64h(tl.load(x_ptr + offs)))


@kiln.jit
def uses_tanh(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.tanh(tl.load(x_ptr + offs)))


@kiln.jit
def uses_convert(x_ptr):
    tl.store(x_ptr, cuda.convert_custom_float8_sm80(tl.load(x_ptr), tl.float16))


def test_supported_functions_compute(rng):
    x = rng.uniform(0.5, 4.0, 64).astype(np.float32)
    out = np.zeros_like(x)
    through_module[(1,)](x, out, BLOCK=64)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out, 2 * np.exp(xd) + np.sqrt(xd) + np.floor(xd) + xd * xd + xd, rtol=1e-5)
    through_tl[(1,)](x, out, BLOCK=64)
    np.testing.assert_allclose(out, 1 / np.sqrt(xd) + xd / 3, rtol=1e-5)
    # tanh across both of its branches (|x| < 0.55 and beyond), both signs, and saturation
    t = np.concatenate([rng.uniform(-0.6, 0.6, 32), rng.uniform(-12, 12, 32)]).astype(np.float32)
    uses_tanh[(1,)](t, out, BLOCK=64)
    np.testing.assert_allclose(out, np.tanh(t.astype(np.float64)), rtol=4e-7, atol=1e-30)


def test_other_names_import_and_fail_at_their_use():
    assert callable(libdevice.erfc) and callable(libdevice.fast_dividef) and callable(cuda.globaltimer)
    with pytest.raises(RuntimeError, match="runs only inside a @jit kernel"):
        libdevice.erfc(1.0)
    with pytest.raises(kiln.CompilationError) as e:
        uses_rcp64h[(1,)](np.zeros(8, np.float32), BLOCK=8)
    assert "libdevice.rcp64h is not supported by kiln" in str(e.value)
    assert e.value.file.endswith("test_libdevice.py") and e.value.line == uses_rcp64h.fn.__code__.co_firstlineno + 3
    with pytest.raises(kiln.CompilationError, match="tl.extra.cuda.convert_custom_float8_sm80 is not supported"):
        uses_convert[(1,)](np.zeros(1, np.float16))


def test_a_name_triton_does_not_have_is_an_attribute_error():
    with pytest.raises(AttributeError):
        libdevice.no_such_function


def test_under_compat():
    with kiln.compat.as_triton():
        from triton.language.extra import libdevice as a
        from triton.language.extra.cuda import libdevice as b
        import triton.language.extra.libdevice as c
        import triton.language as tl_
        assert a is b is c is libdevice and tl_.extra.cuda.libdevice is libdevice
        from triton.language.extra.libdevice import fast_dividef  # noqa: F401


# ---- the math functions on awkward inputs: nan, +-inf, +-0, subnormals, large and tiny magnitudes

AWKWARD = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.5, 3.5, 1e-3, -1e-7, 1e-30, 1e-310, 5e-324, 1e-45, 30.0,
           -30.0, 88.5, -88.5, 100.0, 709.5, -745.0, 1e10, -1e10, 1e30, 1e300, np.inf, -np.inf, np.nan,
           0.9999999, -0.9999999, 1.0000001, 0.25, 0.75, 7.0, 1e5, -1e5]

def _normcdf(x):
    """erfc(-x / sqrt 2) / 2 with the rounding error of -x / sqrt 2 (Dekker's product) corrected to first
    order, so that the reference keeps its accuracy in the lower tail."""
    x = np.asarray(x, np.float64)
    h, l = 0.7071067811865476, -4.833646656726457e-17  # sqrt(1/2) = h + l
    y = -x * h
    split = 134217729.0
    with np.errstate(all="ignore"):
        xa = -x * split
        xh = xa - (xa - (-x))
        xl = -x - xh
        ha = h * split
        hh = ha - (ha - h)
        hl = h - hh
        err = ((xh * hh - y) + xh * hl + xl * hh) + xl * hl
        yl = np.where(np.isfinite(x) & (np.abs(x) < 1e300), err + (-x) * l, 0.0)
        e = np.vectorize(math.erfc, otypes=[np.float64])(y)
        return (e - yl * 1.1283791670955126 * np.exp(-y * y)) / 2


UNARY = {
    "expm1": np.expm1, "log1p": np.log1p, "log10": np.log10, "exp10": lambda x: np.power(10.0, x),
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "cbrt": np.cbrt, "trunc": np.trunc,
    "rint": np.rint, "nearbyint": np.rint, "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
    "normcdf": lambda x: _normcdf(x),
    "round": lambda x: np.where(np.abs(x - np.trunc(x)) >= 0.5, np.trunc(x) + np.sign(x), np.trunc(x)),
}
BINARY = {"atan2": np.arctan2, "hypot": np.hypot, "pow": np.power, "fmod": np.fmod, "copysign": np.copysign,
          "fdim": lambda x, y: np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0))}
PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit}


def _unary_kernel(name):
    fn = getattr(libdevice, name)

    @kiln.jit
    def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, fn(tl.load(x_ptr + offs, mask=m)), mask=m)
    return k


def _binary_kernel(name):
    fn = getattr(libdevice, name)

    @kiln.jit
    def k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, fn(tl.load(x_ptr + offs, mask=m), tl.load(y_ptr + offs, mask=m)), mask=m)
    return k


def _inputs(dtype, rng, n=1000):
    x = np.concatenate([np.array(AWKWARD), rng.uniform(-1, 1, n // 4), rng.uniform(-20, 20, n // 4),
                        np.ldexp(rng.uniform(-1, 1, n // 2), rng.integers(-40, 40, n // 2))])
    with np.errstate(over="ignore", under="ignore"):
        return x.astype(dtype)


def _expect_close(got, want, dtype, ulps):
    """Within `ulps` units in the last place of dtype (relative), NaN exactly where want is NaN, infinities
    and zeros exact (a result below the smallest normal may differ by that much)."""
    want = want.astype(np.float64)
    got = got.astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got[np.isnan(got) != np.isnan(want)],)
    ok = ~np.isnan(want)
    eps = np.finfo(dtype).eps
    tiny = np.finfo(dtype).tiny
    err = np.abs(got[ok] - want[ok])
    lim = ulps * eps * np.abs(want[ok]) + tiny
    same_inf = np.isinf(want[ok]) & (got[ok] == want[ok])
    bad = ~((err <= lim) | same_inf)
    assert not bad.any(), list(zip(got[ok][bad][:5], want[ok][bad][:5]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math(backend, rng, name, dtype):
    x = _inputs(dtype, rng)
    if name in ("tan",):  # kiln's f64 sin/cos reduce exactly for |x| < 2^33 (docs/ptx.md)
        x = x[~(np.abs(x) > 1e9)]
    out = backend.empty(x.shape, dtype)
    k = backend.launcher(_unary_kernel(name))
    k[(4,)](backend.asarray(x), out, x.size, BLOCK=512)
    backend.sync()
    with np.errstate(all="ignore"):
        want = UNARY[name](x.astype(np.float64)).astype(dtype)
    _expect_close(backend.numpy(out), want, dtype, 2 if dtype == np.float32 else 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_math(backend, rng, name, dtype):
    a = np.array(AWKWARD)
    x = np.concatenate([np.repeat(a, a.size), _inputs(np.float64, rng, 2000)]).astype(dtype)
    y = np.concatenate([np.tile(a, a.size), _inputs(np.float64, rng, 2000)[::-1]]).astype(dtype)
    out = backend.empty(x.shape, dtype)
    k = backend.launcher(_binary_kernel(name))
    k[(triton_cdiv(x.size, 512),)](backend.asarray(x), backend.asarray(y), out, x.size, BLOCK=512)
    backend.sync()
    with np.errstate(all="ignore"):
        want = BINARY[name](x.astype(np.float64), y.astype(np.float64)).astype(dtype)
    _expect_close(backend.numpy(out), want, dtype, 2 if dtype == np.float32 else 4)


def _bisect(f, v, lo, hi, decreasing):
    """The double where the monotonic f crosses v, by bisection to adjacent doubles."""
    for _ in range(2200):
        mid = lo + (hi - lo) / 2
        if mid <= lo or mid >= hi:
            break
        if (f(mid) > v) != decreasing:
            hi = mid
        else:
            lo = mid
    return mid


def _erfcinv_scalar(q):
    """erfcinv from math.erf / math.erfc (well conditioned: erfc's ~1 ulp moves y by far less)."""
    if math.isnan(q) or q < 0 or q > 2:
        return math.nan
    if q in (0.0, 2.0):
        return math.inf if q == 0 else -math.inf
    if q > 1:
        return -_erfcinv_scalar(2 - q)
    if q >= 0.5:
        a = 1 - q  # exact
        return a * 0.8862269254527580 if a < 2.0**-30 else _bisect(math.erf, a, 0.0, 0.48, False)
    return _bisect(math.erfc, q, 0.47, 30.0, True)


def _erfinv_scalar(x):
    if math.isnan(x) or abs(x) > 1:
        return math.nan
    a = abs(x)
    y = _erfcinv_scalar(1 - a) if a > 0.5 else (a * 0.8862269254527580 if a < 2.0**-30 else
                                                  _bisect(math.erf, a, 0.0, 0.48, False))
    return math.copysign(y, x)


INVERSES = {
    "erfinv": (np.vectorize(_erfinv_scalar, otypes=[np.float64]), -1.0, 1.0),
    "erfcinv": (np.vectorize(_erfcinv_scalar, otypes=[np.float64]), 0.0, 2.0),
    "normcdfinv": (np.vectorize(lambda p: -math.sqrt(2) * _erfcinv_scalar(2 * p) + 0.0, otypes=[np.float64]),
                   0.0, 1.0),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(INVERSES))
def test_inverse_error_functions(backend, rng, name, dtype):
    """The domain's ends and middle, both tails, and just outside."""
    ref, lo, hi = INVERSES[name]
    tiny = np.finfo(dtype).tiny
    # (normal values: math.erfc has few bits left below them, too few for a reference)
    tails = np.ldexp(rng.uniform(0.5, 1, 150), -rng.integers(1, 126 if dtype == np.float32 else 1000, 150))
    ends = [lo, hi, (lo + hi) / 2, lo + tiny, hi - tiny, lo - 1e-3, hi + 1e-3, np.nan, np.inf, -np.inf]
    x = np.concatenate([ends, rng.uniform(lo, hi, 300), lo + tails, hi - tails]).astype(dtype)
    out = backend.empty(x.shape, dtype)
    k = backend.launcher(_unary_kernel(name))
    k[(triton_cdiv(x.size, 512),)](backend.asarray(x), out, x.size, BLOCK=512)
    backend.sync()
    _expect_close(backend.numpy(out), ref(x.astype(np.float64)).astype(dtype), dtype, 2 if dtype == np.float32 else 4)


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates(backend, rng, name, dtype):
    x = _inputs(dtype, rng, 200)
    out = backend.empty(x.shape, np.int32)
    k = backend.launcher(_unary_kernel(name))
    k[(1,)](backend.asarray(x), out, x.size, BLOCK=512)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), PREDICATES[name](x).astype(np.int32))


@kiln.jit
def fast_functions(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, libdevice.fast_expf(x))
    tl.store(out_ptr + BLOCK + offs, libdevice.fast_logf(y))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.fast_powf(y, x))
    tl.store(out_ptr + 3 * BLOCK + offs, libdevice.fast_dividef(x, y))
    tl.store(out_ptr + 4 * BLOCK + offs, libdevice.fast_sinf(x) + libdevice.fast_cosf(x))
    tl.store(out_ptr + 5 * BLOCK + offs, libdevice.fast_log10f(y) + libdevice.fast_log2f(y))
    tl.store(out_ptr + 6 * BLOCK + offs, libdevice.fast_exp10f(x * 0.25))
    tl.store(out_ptr + 7 * BLOCK + offs, libdevice.saturatef(x))
    tl.store(out_ptr + 8 * BLOCK + offs, libdevice.fast_tanhf(x))


def test_fast_functions(backend, rng):
    x = rng.uniform(-4, 4, 64).astype(np.float32)
    y = rng.uniform(0.1, 8, 64).astype(np.float32)
    out = backend.empty((9 * 64,), np.float32)
    backend.launcher(fast_functions)[(1,)](backend.asarray(x), backend.asarray(y), out, BLOCK=64)
    backend.sync()
    r = backend.numpy(out).reshape(9, 64).astype(np.float64)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    want = [np.exp(xd), np.log(yd), yd ** xd, xd / yd, np.sin(xd) + np.cos(xd), np.log10(yd) + np.log2(yd),
            10 ** (xd * 0.25), np.clip(xd, 0, 1), np.tanh(xd)]
    for got, w in zip(r, want):
        np.testing.assert_allclose(got, w, rtol=2e-6, atol=2e-6)  # approximations: a few ulp


@kiln.jit
def cuda_constants(out_ptr):
    tl.store(out_ptr, cuda.num_warps())
    tl.store(out_ptr + 1, cuda.num_threads())


def test_num_warps_and_threads(backend):
    out = backend.empty((2,), np.int32)
    backend.launcher(cuda_constants)[(1,)](out, num_warps=2)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(out), [2, 64])


@kiln.jit
def special_registers(out_ptr):
    t0 = cuda.globaltimer()
    sm = cuda.smid()
    t1 = cuda.globaltimer()
    tl.store(out_ptr, (t1 - t0 >= 0).to(tl.int64))
    tl.store(out_ptr + 1, sm.to(tl.int64))


def test_globaltimer_and_smid(backend):
    out = backend.empty((2,), np.int64)
    if not backend.is_cuda:
        with pytest.raises(kiln.KernelError, match="cannot run on the interpreter"):
            backend.launcher(special_registers)[(1,)](out)
        return
    special_registers[(1,)](out)
    backend.sync()
    r = backend.numpy(out)
    assert r[0] == 1 and 0 <= r[1] < 1024


@kiln.jit
def wrong_dtype(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, libdevice.expm1(tl.load(x_ptr + offs)))


def test_wrong_dtype_is_a_located_error():
    with pytest.raises(kiln.CompilationError, match=r"libdevice.expm1\(\) takes \(fp32\) or \(fp64\) arguments, got \(fp16\)"):
        wrong_dtype[(1,)](np.zeros(8, np.float16), BLOCK=8)


@kiln.jit
def exponent_functions(x_ptr, n_ptr, ld_ptr, sc_ptr, il_ptr, lb_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    n = tl.load(n_ptr + offs)
    tl.store(ld_ptr + offs, libdevice.ldexp(x, n))
    tl.store(sc_ptr + offs, libdevice.scalbn(x, 3))
    tl.store(il_ptr + offs, libdevice.ilogb(x))
    tl.store(lb_ptr + offs, libdevice.logb(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldexp_ilogb_logb(backend, rng, dtype):
    x = _inputs(dtype, rng, 400)[:256]
    n = rng.integers(-400, 400, 256).astype(np.int32)
    if dtype == np.float64:  # kiln's f64 ldexp rounds twice for n < -1022 (docs/language.md)
        n = np.maximum(n, -1000)
    outs = [backend.empty(256, t) for t in (dtype, dtype, np.int32, dtype)]
    backend.launcher(exponent_functions)[(1,)](backend.asarray(x), backend.asarray(n), *outs, BLOCK=256)
    backend.sync()
    ld, sc, il, lb = (backend.numpy(o) for o in outs)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ld, np.ldexp(x, n))
        np.testing.assert_array_equal(sc, np.ldexp(x, 3))
        finite = np.isfinite(x) & (x != 0)
        e = np.frexp(x)[1] - 1
        want_il = np.where(finite, e, np.where(np.isinf(x), 2**31 - 1, -2**31)).astype(np.int32)
        np.testing.assert_array_equal(il, want_il)
        want_lb = np.where(finite, e.astype(dtype), np.where(np.isnan(x), np.nan, np.where(x == 0, -np.inf, np.inf)))
        np.testing.assert_array_equal(lb, want_lb.astype(dtype))


# ---- the Bessel functions: as Triton's test_bessel (randn inputs, assert_close's default tolerances), and on
# awkward inputs within an absolute bound near their zeros (docs/ptx.md)

BESSEL = {"j0": "j0", "j1": "j1", "y0": "y0", "y1": "y1", "cyl_bessel_i0": "i0", "cyl_bessel_i1": "i1"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BESSEL))
def test_bessel(backend, rng, name, dtype):
    special = pytest.importorskip("scipy.special")
    ref = getattr(special, BESSEL[name])
    x = np.concatenate([rng.standard_normal(512), np.array(AWKWARD), rng.uniform(-40, 40, 400),
                        rng.uniform(-800, 800, 88)])
    x = x[~(np.abs(x) > 1e9)].astype(dtype)  # j and y reduce their sin/cos argument exactly below 2^33
    out = backend.empty(x.shape, dtype)
    backend.launcher(_unary_kernel(name))[(triton_cdiv(x.size, 512),)](backend.asarray(x), out, x.size, BLOCK=512)
    backend.sync()
    got = backend.numpy(out).astype(np.float64)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64)).astype(dtype).astype(np.float64)
    if name in ("j1", "cyl_bessel_i1"):  # odd: -0 for -0 (scipy gives +0)
        want = np.where(x == 0, x.astype(np.float64), want)
    rtol, atol = (1.3e-6, 1e-5) if dtype == np.float32 else (1e-7, 1e-7)
    head = slice(0, 512)  # the randn inputs: Triton's test, with torch.testing.assert_close's defaults
    np.testing.assert_allclose(got[head], want[head], rtol=rtol, atol=atol)
    assert np.array_equal(np.isnan(got), np.isnan(want)), x[np.isnan(got) != np.isnan(want)]
    ok = ~np.isnan(want)
    with np.errstate(invalid="ignore"):  # inf - inf where both overflow (they compare equal)
        same = (got[ok] == want[ok]) | (np.abs(got[ok] - want[ok]) <= 2e-12 + 4 * np.finfo(dtype).eps * np.abs(want[ok]))
    assert same.all(), list(zip(x[ok][~same][:5], got[ok][~same][:5], want[ok][~same][:5]))


@kiln.jit
def bessel_of_int(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, libdevice.j0(tl.load(x_ptr + offs)))


def test_bessel_of_an_int_is_a_located_error():
    with pytest.raises(kiln.CompilationError, match=r"libdevice.j0\(\) takes \(fp32\) or \(fp64\) arguments, got \(int32\)"):
        bessel_of_int[(1,)](np.zeros(8, np.int32), BLOCK=8)
