"""libdevice's integer and bit functions, its directed roundings and its conversions with a rounding
direction, on every backend, against references computed here independently: Python integers for the
bit functions, exact rational arithmetic (fractions.Fraction) rounded in the asked direction for the
roundings; edge inputs (ties, subnormals, inf, NaN, overflow) and random ones."""
import math
from fractions import Fraction

import numpy as np
import pytest

import kiln
import kiln.language as tl
from kiln.language.extra import libdevice


def _kernel(name, nargs):
    fn = getattr(libdevice, name)
    if nargs == 1:
        @kiln.jit
        def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(out_ptr + offs, fn(tl.load(a_ptr + offs, mask=m)), mask=m)
    elif nargs == 2:
        @kiln.jit
        def k(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(out_ptr + offs, fn(tl.load(a_ptr + offs, mask=m), tl.load(b_ptr + offs, mask=m)), mask=m)
    else:
        @kiln.jit
        def k(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = fn(tl.load(a_ptr + offs, mask=m), tl.load(b_ptr + offs, mask=m), tl.load(c_ptr + offs, mask=m))
            tl.store(out_ptr + offs, x, mask=m)
    return k


def _run(backend, name, args, out_dtype):
    out = backend.empty(args[0].shape, out_dtype)
    k = backend.launcher(_kernel(name, len(args)))
    k[((args[0].size + 255) // 256,)](*[backend.asarray(a) for a in args], out, args[0].size, BLOCK=256)
    backend.sync()
    return backend.numpy(out)


# ---- integers: references on Python ints

EDGE32 = [0, 1, 2, 3, -1, -2, 0x7FFFFFFF, -0x80000000, 0x12345678, -0x12345678, 0xFFFFFF, 0x800000, -0x800000, 255, 256]


def _ints(rng, dtype, n=600):
    info = np.iinfo(dtype)
    edge = [v for v in EDGE32 + [info.min, info.max, info.min + 1] if info.min <= v <= info.max]
    return np.concatenate([np.array(edge, dtype), rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _bits(v, bits):
    return int(v) & ((1 << bits) - 1)


INT_UNARY = {  # name: (operand dtype, result dtype, reference on the operand's bits)
    "clz": [(np.int32, np.int32, lambda v: 32 - v.bit_length()), (np.int64, np.int32, lambda v: 64 - v.bit_length())],
    "popc": [(np.int32, np.int32, lambda v: bin(v).count("1")), (np.int64, np.int32, lambda v: bin(v).count("1"))],
    "brev": [(np.int32, np.int32, lambda v: int(f"{v:032b}"[::-1], 2)), (np.int64, np.int64, lambda v: int(f"{v:064b}"[::-1], 2))],
    "ffs": [(np.int32, np.int32, lambda v: (v & -v).bit_length()), (np.int64, np.int32, lambda v: (v & -v).bit_length())],
}


@pytest.mark.parametrize("name", sorted(INT_UNARY))
def test_integer_unary(backend, rng, name):
    for src, dst, ref in INT_UNARY[name]:
        x = _ints(rng, src)
        got = _run(backend, name, [x], dst)
        w = np.dtype(src).itemsize * 8
        want = np.array([_wrap(ref(_bits(v, w)), np.dtype(dst).itemsize * 8, True) for v in x], dst)
        np.testing.assert_array_equal(got, want, err_msg=f"{name}({np.dtype(src).name})")


def _mulhi(a, b, bits, signed):
    return (int(a) * int(b)) >> bits if signed else (_bits(a, bits) * _bits(b, bits)) >> bits


def _mul24(a, b, signed):
    lo = lambda v: _wrap(_bits(v, 24), 24, True) if signed else _bits(v, 24)
    return lo(a) * lo(b)


def _byte_perm(x, y, s):
    both = (_bits(y, 32) << 32) | _bits(x, 32)
    return sum(((both >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


INT_BINARY = {  # name: [(dtype, reference(a, b, bits, signed))]
    "mulhi": [(t, lambda a, b, w, s: _mulhi(a, b, w, s)) for t in (np.int32, np.uint32, np.int64, np.uint64)],
    "mul24": [(t, lambda a, b, w, s: _mul24(a, b, s)) for t in (np.int32, np.uint32)],
    "hadd": [(t, lambda a, b, w, s: (int(a) + int(b)) >> 1) for t in (np.int32, np.uint32)],
    "rhadd": [(t, lambda a, b, w, s: (int(a) + int(b) + 1) >> 1) for t in (np.int32, np.uint32)],
}


@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_integer_binary(backend, rng, name):
    for dtype, ref in INT_BINARY[name]:
        a, b = _ints(rng, dtype), _ints(rng, dtype)[::-1].copy()
        got = _run(backend, name, [a, b], dtype)
        w, signed = np.dtype(dtype).itemsize * 8, np.issubdtype(dtype, np.signedinteger)
        want = np.array([_wrap(ref(x, y, w, signed), w, signed) for x, y in zip(a, b)], dtype)
        np.testing.assert_array_equal(got, want, err_msg=f"{name}({np.dtype(dtype).name})")


def test_sad_and_byte_perm(backend, rng):
    for dtype in (np.int32, np.uint32):
        x, y = _ints(rng, dtype), _ints(rng, dtype)[::-1].copy()
        z = rng.integers(0, 2**32, x.size, dtype=np.uint32)
        z[:3] = [0, 2**32 - 1, 1]
        got = _run(backend, "sad", [x, y, z], dtype)
        want = [_wrap(abs(int(a) - int(b)) + int(c), 32, dtype == np.int32) for a, b, c in zip(x, y, z)]
        np.testing.assert_array_equal(got, np.array(want, dtype))
    x, y = _ints(rng, np.int32), _ints(rng, np.int32)[::-1].copy()
    s = rng.integers(0, 2**31 - 1, x.size).astype(np.int32)
    s[:4] = [0x3210, 0x7654, 0xFFFF, 0x8888]  # the selectors' bit 3 is not read
    got = _run(backend, "byte_perm", [x, y, s], np.int32)
    np.testing.assert_array_equal(got, np.array([_wrap(_byte_perm(a, b, int(c)), 32, True) for a, b, c in zip(x, y, s)], np.int32))


def test_moves_of_bits(backend, rng):
    f = np.array([0.0, -0.0, 1.5, -np.inf, np.nan, 1e-45], np.float32)
    np.testing.assert_array_equal(_run(backend, "float_as_int", [f], np.int32), f.view(np.int32))
    np.testing.assert_array_equal(_run(backend, "float_as_uint", [f], np.int32), f.view(np.int32))
    i = _ints(rng, np.int32)
    np.testing.assert_array_equal(_run(backend, "int_as_float", [i], np.float32).view(np.int32), i)
    np.testing.assert_array_equal(_run(backend, "uint_as_float", [i.view(np.uint32)], np.float32).view(np.int32), i)
    d = np.array([0.0, -0.0, 1.5, -np.inf, 5e-324, -1e300], np.float64)
    np.testing.assert_array_equal(_run(backend, "double_as_longlong", [d], np.int64), d.view(np.int64))
    ll = _ints(rng, np.int64)
    np.testing.assert_array_equal(_run(backend, "longlong_as_double", [ll], np.float64).view(np.int64), ll)
    np.testing.assert_array_equal(_run(backend, "double2hiint", [d], np.int32), (d.view(np.int64) >> 32).astype(np.int32))
    np.testing.assert_array_equal(_run(backend, "double2loint", [d], np.int32), d.view(np.int64).astype(np.int32))
    hi, lo = _ints(rng, np.int32), _ints(rng, np.int32)[::-1].copy()
    got = _run(backend, "hiloint2double", [hi, lo], np.float64).view(np.uint64)
    want = (hi.astype(np.int64).astype(np.uint64) << np.uint64(32)) | lo.view(np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(got, want)


# ---- directed rounding: Fraction references

def _round(q, dtype, mode):
    """The exact rational q (or inf/nan as a float) rounded to dtype in mode rn/rz/rd/ru."""
    if isinstance(q, float):
        return q
    fi = np.finfo(dtype)
    mant, emin = fi.nmant, fi.minexp  # f32: 23, -126
    if q == 0:
        return 0.0
    neg, a = q < 0, abs(q)
    e = max(math.floor(math.log2(a.numerator) - math.log2(a.denominator)), emin)
    while Fraction(2) ** e > a and e > emin:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - mant)
    k, rem = divmod(a, quantum)
    k = int(k)
    if rem:
        up = {"rn": rem > quantum / 2 or (rem == quantum / 2 and k % 2 == 1), "rz": False,
              "rd": neg, "ru": not neg}[mode]
        k += up
    mag = k * quantum
    if mag > Fraction(float(fi.max)):
        away = mode == "rn" or (mode == "rd" and neg) or (mode == "ru" and not neg)
        mag = math.inf if away else float(fi.max)
    return -float(mag) if neg else float(mag)


def _exact(name, args):
    if any(math.isnan(v) or math.isinf(v) for v in args):
        return None  # specials: compared with numpy's IEEE result below
    a = [Fraction(v) for v in args]
    if name == "add": return a[0] + a[1]
    if name == "sub": return a[0] - a[1]
    if name == "mul": return a[0] * a[1]
    if name == "fma": return a[0] * a[1] + a[2]
    if name in ("div", "rcp"):
        num, den = (a[0], a[1]) if name == "div" else (Fraction(1), a[0])
        if den == 0:
            return None
        return num / den
    return None


def _fma_special(a, b, c):
    """fma with an infinite or NaN operand: the product is exact, so a finite a * b never
    overflows and an infinite or NaN addend decides alone."""
    if math.isfinite(a) and math.isfinite(b):
        return c
    return a * b + c


def _zero_sum(fn, xs, mode):
    """IEEE 754's sign of an exact zero sum: two zeros of one sign keep it; any other zero sum
    (a cancellation, or zeros of opposite signs) is -0 when rounding toward -inf and +0 otherwise."""
    a, b = xs[0], (-xs[1] if fn == "sub" else xs[1])
    if fn != "fma" and a == 0 and b == 0 and math.copysign(1, a) == math.copysign(1, b):
        return a
    return -0.0 if mode == "rd" else 0.0


def _floats(dtype, rng, n=300):
    fi = np.finfo(dtype)
    edge = [0.0, -0.0, 1.0, -1.0, 3.0, 0.1, -0.7, float(fi.tiny), float(fi.smallest_subnormal), float(fi.max), -float(fi.max),
            1 + float(fi.eps), 1 - float(fi.epsneg), 2.5, np.inf, -np.inf, np.nan, 1e-30 if dtype == np.float32 else 1e-300]
    r = np.ldexp(rng.uniform(-1, 1, n), rng.integers(-30, 30, n))
    return np.concatenate([np.array(edge), r]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["add", "sub", "mul", "div", "fma", "rcp"])
def test_directed_rounding(backend, rng, fn, dtype):
    arity = {"fma": 3, "rcp": 1}.get(fn, 2)
    base = _floats(dtype, rng)
    args = [base] + [rng.permutation(base) for _ in range(arity - 1)]
    if fn == "add":  # ties and exact cancellations: x + (-x), 1 + eps/2
        args[1][:4] = -args[0][:4]
        args[0][4:6], args[1][4:6] = 1.0, np.finfo(dtype).eps / 2
    for mode in ("rn", "rz", "rd", "ru"):
        got = _run(backend, f"{fn}_{mode}", args, dtype).astype(np.float64)
        for i in range(base.size):
            xs = [float(a[i]) for a in args]
            q = _exact(fn, xs)
            if q is None:  # special operands: IEEE's result (no rounding happens)
                with np.errstate(all="ignore"):
                    ieee = {"add": lambda: args[0][i] + args[1][i], "sub": lambda: args[0][i] - args[1][i],
                            "mul": lambda: args[0][i] * args[1][i], "div": lambda: args[0][i] / args[1][i],
                            "rcp": lambda: dtype(1) / args[0][i],
                            "fma": lambda: _fma_special(*xs)}[fn]()
                want = float(ieee)
                if math.isnan(want):
                    assert math.isnan(got[i]), (fn, mode, xs, got[i])
                    continue
                if not math.isinf(want) and want != 0:
                    continue  # finite results of special operands (x / inf is 0) are checked by the cases above
            else:
                want = _round(q, dtype, mode)
                if q == 0:
                    if fn in ("mul", "div", "rcp") or (fn == "fma" and xs[0] * xs[1] == 0):
                        continue  # the sign of a zero product follows the operands' signs
                    want = _zero_sum(fn, xs, mode)
            assert got[i] == want and math.copysign(1, got[i]) == math.copysign(1, want), (fn, mode, xs, got[i], want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sqrt_directed(backend, rng, dtype):
    x = np.abs(_floats(dtype, rng))
    x[:3] = [4.0, 2.0, np.finfo(dtype).smallest_subnormal]
    for mode in ("rz", "rd", "ru"):
        got = _run(backend, f"sqrt_{mode}", [x], dtype).astype(np.float64)
        for v, g in zip(x.astype(np.float64), got):
            if not math.isfinite(v):
                assert g == v or (math.isnan(v) and math.isnan(g))
                continue
            # the rounding of sqrt(v): the largest (rd/rz) or smallest (ru) float whose square is <= / >= v
            r = Fraction(float(np.sqrt(np.float64(v)).astype(dtype)))
            step = lambda y, up: Fraction(float(np.nextafter(dtype(float(y)), dtype(np.inf if up else 0))))
            lo = r
            while lo * lo > Fraction(v):
                lo = step(lo, False)
            while step(lo, True) ** 2 <= Fraction(v):
                lo = step(lo, True)
            want = float(lo) if mode in ("rz", "rd") or lo * lo == Fraction(v) else float(step(lo, True))
            assert g == want, (mode, v, g, want)


def test_rsqrt_rn_is_correctly_rounded(backend, rng):
    x = np.concatenate([np.array([1.0, 4.0, 2.0, 0.0, -0.0, np.inf, -1.0, 1e-45, 3.4e38]),
                        np.ldexp(rng.uniform(1, 4, 500), rng.integers(-140, 120, 500))]).astype(np.float32)
    got = _run(backend, "rsqrt_rn", [x], np.float32)
    for v, g in zip(x.astype(np.float64), got.astype(np.float64)):
        if not v > 0 or math.isinf(v):
            want = {0.0: math.copysign(math.inf, v), math.inf: 0.0}.get(v, math.nan)
            assert g == want or (math.isnan(want) and math.isnan(g)), (v, g)
            continue
        # g is correct when the midpoints next to it bracket 1/sqrt(v): m^2 v compared with 1, exactly
        below = Fraction(float(np.nextafter(np.float32(g), np.float32(0))))
        above = Fraction(float(np.nextafter(np.float32(g), np.float32(np.inf))))
        lo, hi = (below + Fraction(g)) / 2, (above + Fraction(g)) / 2
        assert lo * lo * Fraction(v) < 1 < hi * hi * Fraction(v), (v, g)


CONVERSIONS = {  # name stem: (source dtype, result dtype as Triton's table has it, result's own type)
    "float2int": (np.float32, np.int32, np.int32), "float2uint": (np.float32, np.int32, np.uint32),
    "double2int": (np.float64, np.int32, np.int32), "double2uint": (np.float64, np.int32, np.uint32),
    "float2ll": (np.float32, np.int64, np.int64), "float2ull": (np.float32, np.int64, np.uint64),
    "double2ll": (np.float64, np.int64, np.int64), "double2ull": (np.float64, np.int64, np.uint64),
    "int2float": (np.int32, np.float32, None), "uint2float": (np.uint32, np.float32, None),
    "ll2float": (np.int64, np.float32, None), "ull2float": (np.uint64, np.float32, None),
    "ll2double": (np.int64, np.float64, None), "ull2double": (np.uint64, np.float64, None),
    "double2float": (np.float64, np.float32, None),
}


@pytest.mark.parametrize("stem", sorted(CONVERSIONS))
def test_conversions(backend, rng, stem):
    src, dst, own = CONVERSIONS[stem]
    if np.issubdtype(src, np.integer):
        x = _ints(rng, src)
        x[-4:] = [np.iinfo(src).max - k for k in range(4)]
    else:
        x = _floats(src, rng)
        x[-6:] = [2.5, -2.5, 3.5, -0.5, 4e9, -4e9]
        if src == np.float64:
            x[-12:-6] = [1e300, -1e300, 1e-310, -1e-310, 3.4028235677973366e38, 1.0000000596046448]
    for mode in ("rn", "rz", "rd", "ru"):
        got = _run(backend, f"{stem}_{mode}", [x], dst)
        for v, g in zip(x, got):
            if own is None:  # to a float: the exact value rounded
                q = Fraction(int(v)) if np.issubdtype(src, np.integer) else (Fraction(float(v)) if np.isfinite(v) else float(v))
                want = _round(q, dst, mode)
                assert float(g) == want or (math.isnan(want) and math.isnan(g)), (stem, mode, v, g, want)
            else:  # to an integer: rounded to an integral value, saturated, NaN -> 0
                f = float(v)
                r = 0 if math.isnan(f) else {"rn": round, "rz": math.trunc, "rd": math.floor, "ru": math.ceil}[mode](f) \
                    if math.isfinite(f) else (1 << 70 if f > 0 else -(1 << 70))
                info = np.iinfo(own)
                want = np.array(min(max(r, info.min), info.max), own).view(dst)
                assert g == want, (stem, mode, v, g, want)


@kiln.jit
def _wrong_sad(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, libdevice.sad(x, x, x))


def test_a_signature_triton_lacks_is_a_located_error():
    with pytest.raises(kiln.CompilationError, match=r"libdevice.sad\(\) takes \(int32, int32, uint32\) or "
                                                    r"\(uint32, uint32, uint32\) arguments, got \(int32, int32, int32\)"):
        _wrong_sad[(1,)](np.zeros(8, np.int32), BLOCK=8)
