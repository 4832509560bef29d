"""tl.dot_scaled (Triton 3.6): microscaled operands (e2m1 packed two per byte, e4m3, e5m2, bf16, fp16)
with e8m0 scales, one per 32 elements along K, against a float64 NumPy reference that decodes every bit
pattern itself; the kernels' PTX assembled by ptxas for sm_80 and sm_90a; misuse as located errors."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import kiln
import kiln.language as tl

from conftest import kernel_of_lines

FORMATS = ["e2m1", "e4m3", "e5m2", "bf16", "fp16"]


@kiln.jit
def scaled_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, acc_ptr, c_ptr,
                  AM: tl.constexpr, AK: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr,
                  M: tl.constexpr, N: tl.constexpr, G: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr,
                  HAS_SA: tl.constexpr, HAS_SB: tl.constexpr, HAS_ACC: tl.constexpr, A_FP8: tl.constexpr,
                  LHS_K_PACK: tl.constexpr, RHS_K_PACK: tl.constexpr, FAST_MATH: tl.constexpr):
    # a is stored [AM, AK] and b [BK, BN] row-major; the scales [M, G] and [N, G]; c and acc [M, N].
    a = tl.load(a_ptr + tl.arange(0, AM)[:, None] * AK + tl.arange(0, AK)[None, :])
    b = tl.load(b_ptr + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :])
    if A_FP8:  # fp8 operands may also come as their own dtype rather than as bytes
        a = a.to(tl.float8e4nv if FA == "e4m3" else tl.float8e5, bitcast=True)
    sa = None
    sb = None
    if HAS_SA:
        sa = tl.load(sa_ptr + tl.arange(0, M)[:, None] * G + tl.arange(0, G)[None, :])
    if HAS_SB:
        sb = tl.load(sb_ptr + tl.arange(0, N)[:, None] * G + tl.arange(0, G)[None, :])
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    if HAS_ACC:
        acc = tl.load(acc_ptr + rm[:, None] * N + rn[None, :])
        c = tl.dot_scaled(a, sa, FA, b, sb, FB, acc=acc, fast_math=FAST_MATH, lhs_k_pack=LHS_K_PACK,
                          rhs_k_pack=RHS_K_PACK)
    else:
        c = tl.dot_scaled(a, sa, FA, b, sb, FB, fast_math=FAST_MATH, lhs_k_pack=LHS_K_PACK, rhs_k_pack=RHS_K_PACK)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@kiln.jit
def batched_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                   K: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr):
    # a [B, M, K/2] packed e2m1, b [B, K, N] one byte each; scales [B, M, K/32] and [B, N, K/32].
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + rb * (M * K // 2) + tl.arange(0, M)[None, :, None] * (K // 2) +
                tl.arange(0, K // 2)[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    g = tl.arange(0, K // 32)[None, None, :]
    sa = tl.load(sa_ptr + rb * (M * K // 32) + tl.arange(0, M)[None, :, None] * (K // 32) + g)
    sb = tl.load(sb_ptr + rb * (N * K // 32) + tl.arange(0, N)[None, :, None] * (K // 32) + g)
    c = tl.dot_scaled(a, sa, FA, b, sb, FB)
    tl.store(c_ptr + rb * (M * N) + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


# ---- the reference: every format decoded from its bits in float64

def decode_e2m1(nibbles):
    n = nibbles.astype(np.int64)
    sign = np.where(n & 8, -1.0, 1.0)
    e, m = (n >> 1) & 3, n & 1
    mag = np.where(e == 0, m * 0.5, np.ldexp(1.0 + m / 2.0, e - 1))
    return sign * mag


def decode_fp8(bits, fmt):
    b = bits.astype(np.int64)
    ebits, mbits, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
    sign = np.where(b & 0x80, -1.0, 1.0)
    e, m = (b >> mbits) & ((1 << ebits) - 1), b & ((1 << mbits) - 1)
    frac = m / float(1 << mbits)
    mag = np.where(e == 0, np.ldexp(frac, 1 - bias), np.ldexp(1.0 + frac, e - bias))
    if fmt == "e4m3":  # e4m3fn: no infinities, S.1111.111 is NaN
        mag = np.where((e == 15) & (m == 7), np.nan, mag)
    else:  # e5m2: IEEE-like
        mag = np.where(e == 31, np.where(m == 0, np.inf, np.nan), mag)
    return sign * mag


def decode_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def round_to(x, ct):
    """float64 values rounded to bf16 or f16 (nearest even), as float64."""
    if ct == "fp16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float64)
    f = x.astype(np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    r = np.where(np.isnan(f), 0x7FC0, r).astype(np.uint32)
    return decode_bf16(r.astype(np.uint16))


def decode_operand(stored, fmt, k_pack, side):
    """The [M, K] (lhs) or [K, N] (rhs) values of a stored operand, before scaling."""
    if fmt == "e2m1":
        lo, hi = decode_e2m1(stored & 0xF), decode_e2m1(stored >> 4)
        # The packed axis: K unless k_pack is off (then M for lhs, N for rhs).
        axis = (1 if k_pack else 0) if side == "lhs" else (0 if k_pack else 1)
        shape = list(stored.shape)
        shape[axis] *= 2
        out = np.empty(shape)
        index = [slice(None)] * 2
        index[axis] = slice(0, None, 2)
        out[tuple(index)] = lo
        index[axis] = slice(1, None, 2)
        out[tuple(index)] = hi
        return out
    if fmt in ("e4m3", "e5m2"):
        return decode_fp8(stored, fmt)
    if fmt == "bf16":
        return decode_bf16(stored)
    return stored.view(np.float16).astype(np.float64) if stored.dtype == np.uint16 else stored.astype(np.float64)


def decode_scales(s, ct, fast_math):
    """e8m0 bytes as the multiplier kiln (and Triton) applies: 2^(s-127) in the compute type, 0 for s=0,
    NaN for 0xFF (inf with fast_math)."""
    v = np.where(s == 0, 0.0, np.ldexp(1.0, s.astype(np.int64) - 127))
    v = round_to(v, ct)
    return np.where(s == 255, np.inf if fast_math else np.nan, v)


def reference(a, sa, fa, b, sb, fb, acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True):
    ct = "fp16" if "fp16" in (fa, fb) else "bf16"
    x = round_to(decode_operand(a, fa, lhs_k_pack, "lhs"), ct)
    y = round_to(decode_operand(b, fb, rhs_k_pack, "rhs"), ct)
    with np.errstate(invalid="ignore", over="ignore"):
        if sa is not None:
            x = round_to(x * np.repeat(decode_scales(sa, ct, fast_math), 32, axis=1), ct)
        if sb is not None:
            y = round_to(y * np.repeat(decode_scales(sb, ct, fast_math), 32, axis=1).T, ct)
        prods = x[:, :, None] * y[None, :, :]
        out = prods.sum(axis=1)
        if acc is not None:
            out = out + acc
    return out, np.abs(prods).sum(axis=1)


# ---- random operands that stay finite and exact in the compute type

def random_operand(rng, shape, fmt, ct, as_dtype=False):
    if fmt == "e2m1":
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if fmt in ("e4m3", "e5m2"):
        bits = rng.integers(0, 256, shape, dtype=np.uint8)
        top = 0x7F if fmt == "e4m3" else 0x7C  # the NaN (and inf) patterns and above
        if fmt == "e5m2" and ct == "fp16":
            top = 0x6C  # |x| < 2^11, so 16x stays an f16
        return np.where((bits & 0x7F) >= top, bits & 0x8F, bits).astype(np.uint8)
    v = np.clip(rng.standard_normal(shape) * 4, -60, 60).astype(np.float32)
    if fmt == "bf16":
        return (v.view(np.uint32) >> 16).astype(np.uint16)
    h = v.astype(np.float16)
    return h if as_dtype else h.view(np.uint16)


def random_scales(rng, shape, ct):
    lo, hi = (100, 142) if ct == "bf16" else (124, 131)
    s = rng.integers(lo, hi + 1, shape, dtype=np.uint8)
    s.flat[::7] = 0  # scale byte 0 multiplies by zero
    return s


def run(backend, a, sa, fa, b, sb, fb, m, n, acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True,
        a_fp8=False):
    g = max(sa.shape[1] if sa is not None else 1, sb.shape[1] if sb is not None else 1)
    dummy = np.zeros(1, dtype=np.uint8)
    c = backend.empty((m, n), np.float32)
    scaled_kernel[(1,)](backend.asarray(a), backend.asarray(sa if sa is not None else dummy), backend.asarray(b),
                        backend.asarray(sb if sb is not None else dummy),
                        backend.asarray(acc if acc is not None else np.zeros(1, np.float32)), c,
                        a.shape[0], a.shape[1], b.shape[0], b.shape[1], m, n, g, fa, fb, sa is not None,
                        sb is not None, acc is not None, a_fp8, lhs_k_pack, rhs_k_pack, fast_math)
    return backend.numpy(c).astype(np.float64)


def check(got, want, scale, what):
    with np.errstate(invalid="ignore"):
        close = np.isfinite(want) & (np.abs(got - want) <= 2e-5 * scale + 1e-30)
        bad = ~((got == want) | close | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), f"{what}: {int(bad.sum())} of {bad.size} differ, e.g. got {got[bad][:4]}, want {want[bad][:4]}"


def stored_shapes(fa, fb, m, n, k, lhs_k_pack=True, rhs_k_pack=True):
    a = (m, k // 2) if fa == "e2m1" and lhs_k_pack else (m // 2, k) if fa == "e2m1" else (m, k)
    b = (k // 2, n) if fb == "e2m1" and rhs_k_pack else (k, n // 2) if fb == "e2m1" else (k, n)
    return a, b


SHAPES = [(16, 8, 64), (4, 32, 32), (32, 16, 128), (8, 2, 64), (2, 64, 32)]
PAIRS = [(fa, fb) for fa in FORMATS for fb in FORMATS]


@pytest.mark.parametrize("fa, fb", PAIRS)
def test_every_format_pair_with_scales(backend, rng, fa, fb):
    m, n, k = SHAPES[PAIRS.index((fa, fb)) % len(SHAPES)]
    ct = "fp16" if "fp16" in (fa, fb) else "bf16"
    (am, ak), (bk, bn) = stored_shapes(fa, fb, m, n, k)
    a, b = random_operand(rng, (am, ak), fa, ct), random_operand(rng, (bk, bn), fb, ct)
    sa, sb = random_scales(rng, (m, k // 32), ct), random_scales(rng, (n, k // 32), ct)
    got = run(backend, a, sa, fa, b, sb, fb, m, n)
    want, scale = reference(a, sa, fa, b, sb, fb)
    check(got, want, scale, f"{fa} x {fb} at {m}x{n}x{k}")


@pytest.mark.parametrize("fa, fb, lhs_scale, rhs_scale, with_acc", [
    ("e2m1", "bf16", True, False, True),    # Triton's mixed case: one microscaled side
    ("bf16", "e4m3", False, True, False),
    ("e5m2", "fp16", False, False, True),   # no scales at all: a plain upcast dot
    ("fp16", "e2m1", False, True, True),
    ("e4m3", "e4m3", True, False, False),
])
def test_optional_scales_and_accumulator(backend, rng, fa, fb, lhs_scale, rhs_scale, with_acc):
    m, n, k = 16, 4, 64
    ct = "fp16" if "fp16" in (fa, fb) else "bf16"
    (am, ak), (bk, bn) = stored_shapes(fa, fb, m, n, k)
    a, b = random_operand(rng, (am, ak), fa, ct, as_dtype=True), random_operand(rng, (bk, bn), fb, ct)
    sa = random_scales(rng, (m, k // 32), ct) if lhs_scale else None
    sb = random_scales(rng, (n, k // 32), ct) if rhs_scale else None
    acc = rng.standard_normal((m, n)).astype(np.float32) if with_acc else None
    got = run(backend, a, sa, fa, b, sb, fb, m, n, acc=acc)
    want, scale = reference(a, sa, fa, b, sb, fb, acc=acc)
    check(got, want, scale + (np.abs(acc) if with_acc else 0), f"{fa} x {fb}")


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_fp8_operands_as_their_own_dtype(backend, rng, fmt):
    m, n, k = 8, 16, 64
    a, b = random_operand(rng, (m, k), fmt, "bf16"), random_operand(rng, (k, n), "bf16", "bf16")
    sa = random_scales(rng, (m, k // 32), "bf16")
    got = run(backend, a, sa, fmt, b, None, "bf16", m, n, a_fp8=True)
    want, scale = reference(a, sa, fmt, b, None, "bf16")
    check(got, want, scale, fmt)


@pytest.mark.parametrize("lhs_k_pack, rhs_k_pack", [(False, True), (True, False), (False, False)])
def test_e2m1_packed_along_m_or_n(backend, rng, lhs_k_pack, rhs_k_pack):
    m, n, k = 16, 8, 64
    (am, ak), (bk, bn) = stored_shapes("e2m1", "e2m1", m, n, k, lhs_k_pack, rhs_k_pack)
    a, b = random_operand(rng, (am, ak), "e2m1", "bf16"), random_operand(rng, (bk, bn), "e2m1", "bf16")
    sa, sb = random_scales(rng, (m, k // 32), "bf16"), random_scales(rng, (n, k // 32), "bf16")
    got = run(backend, a, sa, "e2m1", b, sb, "e2m1", m, n, lhs_k_pack=lhs_k_pack, rhs_k_pack=rhs_k_pack)
    want, scale = reference(a, sa, "e2m1", b, sb, "e2m1", lhs_k_pack=lhs_k_pack, rhs_k_pack=rhs_k_pack)
    check(got, want, scale, f"k_pack {lhs_k_pack}, {rhs_k_pack}")


@pytest.mark.parametrize("fast_math", [False, True])
def test_scale_0xff_and_special_values(backend, rng, fast_math):
    # 0xFF scales make their 32 elements NaN (infinite with fast_math, so x * inf and 0 * inf = NaN);
    # e5m2 infinities and NaNs and e4m3 NaNs pass through the upcast.
    m, n, k = 8, 8, 64
    a = random_operand(rng, (m, k), "e5m2", "bf16")
    b = random_operand(rng, (k, n), "e4m3", "bf16")
    a[1, 3], a[2, 40], b[5, 6] = 0x7C, 0xFE, 0x7F  # +inf, NaN; NaN
    sa, sb = random_scales(rng, (m, k // 32), "bf16"), random_scales(rng, (n, k // 32), "bf16")
    sa[4, 1], sb[3, 0] = 0xFF, 0xFF
    a[4, 32:], b[32:, 0] = 0x3C, 0x38  # ones: row 4 times column 0 is +inf with fast_math, else NaN
    got = run(backend, a, sa, "e5m2", b, sb, "e4m3", m, n, fast_math=fast_math)
    want, scale = reference(a, sa, "e5m2", b, sb, "e4m3", fast_math=fast_math)
    assert got[4, 0] == np.inf if fast_math else np.isnan(got[4, 0])
    assert np.isnan(got[:, 3]).all() and np.isnan(got[:, 6]).all()
    check(got, want, scale, "specials")


def test_batched_operands(backend, rng):
    bsz, m, n, k = 2, 8, 16, 64
    a = random_operand(rng, (bsz, m, k // 2), "e2m1", "bf16")
    b = random_operand(rng, (bsz, k, n), "e4m3", "bf16")
    sa, sb = random_scales(rng, (bsz, m, k // 32), "bf16"), random_scales(rng, (bsz, n, k // 32), "bf16")
    c = backend.empty((bsz, m, n), np.float32)
    batched_kernel[(1,)](backend.asarray(a), backend.asarray(sa), backend.asarray(b), backend.asarray(sb), c,
                         bsz, m, n, k, "e2m1", "e4m3")
    got = backend.numpy(c).astype(np.float64)
    for i in range(bsz):
        want, scale = reference(a[i], sa[i], "e2m1", b[i], sb[i], "e4m3")
        check(got[i], want, scale, f"batch {i}")


# ---- the GPU path: PTX for sm_80 (mma.sync) and sm_90a (wgmma), assembled by ptxas

PTXAS = os.environ.get("KILN_PTXAS") or shutil.which("ptxas")


@pytest.mark.skipif(not PTXAS, reason="needs ptxas")
@pytest.mark.parametrize("fa, fb, m, n, k, scales", [
    ("e2m1", "e4m3", 64, 64, 64, (True, True)),
    ("e5m2", "bf16", 64, 128, 64, (True, False)),
    ("fp16", "e2m1", 128, 64, 128, (False, True)),
    ("e4m3", "e5m2", 16, 8, 32, (True, True)),     # below the tensor-core tiles: FMA
    ("bf16", "fp16", 64, 64, 32, (False, False)),
])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptx_assembles(tmp_path, arch, fa, fb, m, n, k, scales):
    (am, ak), (bk, bn) = stored_shapes(fa, fb, m, n, k)
    sig = ["*u8" if f in ("e2m1", "e4m3", "e5m2") else "*u16" for f in (fa, fb)]
    compiled = scaled_kernel.warmup(sig[0], "*u8", sig[1], "*u8", "*fp32", "*fp32", am, ak, bk, bn, m, n, k // 32,
                                    fa, fb, scales[0], scales[1], True, False, True, True, False, grid=(1,))
    ptx = compiled.stage("ptx", arch)
    if min(m, n) >= 64:
        assert ("wgmma.mma_async" if arch == "sm_90a" else "mma.sync.aligned") in ptx
        assert (".bf16.bf16" if "fp16" not in (fa, fb) else ".f16.f16") in ptx
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# ---- misuse: located errors, in Triton's words where Triton has them

def compile_call(call, a="tl.uint8", b="tl.uint8", am=16, ak=32, bk=32, bn=16, sa=(16, 2), sb=(16, 2),
                 sa_dtype="tl.uint8", sb_dtype="tl.uint8"):
    def load(ptr, dtype, shape):
        if len(shape) == 2:
            r, c = shape
            return f"tl.load({ptr}.to(tl.pointer_type({dtype}), bitcast=True) + tl.arange(0, {r})[:, None] * {c} " \
                   f"+ tl.arange(0, {c})[None, :])"
        return f"tl.load({ptr}.to(tl.pointer_type({dtype}), bitcast=True) + tl.arange(0, {shape[0]}))"
    k = kernel_of_lines("p",
                        f"a = {load('p', a, (am, ak))}",
                        f"b = {load('p', b, (bk, bn))}",
                        f"sa = {load('p', sa_dtype, sa)}",
                        f"sb = {load('p', sb_dtype, sb)}",
                        f"c = {call}",
                        "tl.store(p.to(tl.pointer_type(tl.float32), bitcast=True), tl.sum(c))")
    k.warmup("*u8", grid=(1,))


@pytest.mark.parametrize("kwargs, call, message", [
    ({}, 'tl.dot_scaled(a, sa, "e3m4", b, sb, "e2m1")', "Invalid float format: e3m4."),
    ({}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m3")', "NYI: rhs_format e2m3"),
    ({}, 'tl.dot_scaled(a, sa, 1, b, sb, "e2m1")', "lhs_format must be a constexpr string"),
    ({"a": "tl.int8"}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")', "e2m1 format must be packed as uint8. Got int8"),
    ({"b": "tl.float16", "bk": 64}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "bf16")', "Unexpected dtype for bf16. Got fp16"),
    ({"sa": (16, 1)}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")',
     r"lhs_scale must be a tensor of shape \[..., 16, 2\]. Got \[16, 1\]"),
    ({"sb": (8, 2)}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")',
     r"rhs_scale must be a tensor of shape \[..., 16, 2\]. Got \[8, 2\]"),
    ({"sa_dtype": "tl.int32"}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")', "lhs_scale must hold uint8 e8m0 scales"),
    ({"sb_dtype": "tl.float8e4nv"}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1")', "e4m3 scales"),
    ({"ak": 16, "bk": 16, "sa": (16, 1), "sb": (16, 1)}, 'tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3")',
     r"K \(16\) must be a multiple of 32"),
    ({"ak": 64}, 'tl.dot_scaled(a, None, "e4m3", b, None, "e2m1", lhs_k_pack=False)',
     "only mxfp4 inputs can be packed along a dimension different than K"),
    ({"ak": 16, "bk": 32}, 'tl.dot_scaled(a, None, "e4m3", b, None, "e4m3")',
     "Reduction dimension should pack the same number of elements"),
    ({}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", out_dtype=tl.float16)',
     "Only float32 is supported for out_dtype"),
    ({}, 'tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", acc=sa)', r"acc must be a tensor<16x16xf32>"),
    ({}, 'tl.dot_scaled(a, sa, "e2m1", tl.sum(b), sb, "e2m1")', "rhs must be a tensor"),
    ({"sa": (32,)}, 'tl.dot_scaled(sa, None, "e4m3", b, None, "e4m3")', r"Both inputs must be either 2D or 3D"),
])
def test_misuse_is_a_located_error(kwargs, call, message):
    with pytest.raises(kiln.CompilationError, match=message) as e:
        compile_call(call, **kwargs)
    assert "<string>:7:" in str(e.value), str(e.value)
