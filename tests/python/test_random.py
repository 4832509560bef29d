"""tl.randint / randint4x / rand / rand4x / randn / randn4x / philox / philox_impl and the conversions
uint_to_uniform_float and pair_uniform_to_normal, against a Philox reference written here from the
published algorithm (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) and checked on
its known-answer vectors: runtime and constexpr seeds (negative, 32- and 64-bit), int32 / uint32 / int64
offsets (large ones too), scalar offsets, n_rounds, the 64-bit Philox of tl.philox, and the located
errors of misuse. On CUDA the GPU is compared with the same reference (randn with the interpreter)."""
import numpy as np
import pytest

import kiln
import kiln.language as tl

# ---- the reference: Philox-4xW-R on Python integers


PHILOX = {
    # width: (round multipliers M0, M1; Weyl key increments W0, W1)
    32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
    64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B),
}


def philox_ref(counter, key, rounds=10, width=32):
    """One Philox-4x`width` block: four counter words and two key words in, four words out."""
    m0, m1, w0, w1 = PHILOX[width]
    mask = (1 << width) - 1
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        p0, p1 = m0 * c0, m1 * c2
        c0, c1, c2, c3 = (p1 >> width) ^ c1 ^ k0, p1 & mask, (p0 >> width) ^ c3 ^ k1, p0 & mask
        k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
    return c0, c1, c2, c3


def test_reference_matches_the_published_known_answers():
    # Random123's kat_vectors for philox4x32 with 10 rounds.
    assert philox_ref((0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    ones = 0xFFFFFFFF
    assert philox_ref((ones,) * 4, (ones, ones)) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert philox_ref((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0)) == (
        0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)
    # Philox-4x64-10 against numpy's implementation (which advances its counter before each block).
    gen = np.random.Philox(key=np.array([5, 7], np.uint64), counter=np.zeros(4, np.uint64))
    assert tuple(int(w) for w in gen.random_raw(4)) == philox_ref((1, 0, 0, 0), (5, 7), width=64)


def random_words(seed, offsets, rounds=10, offset_bits=32):
    """tl.randint4x's words: counter (offset low, offset high or 0 for offsets of 32 bits or less, 0, 0),
    key (seed low, seed high)."""
    seed &= (1 << 64) - 1  # a negative seed is sign-extended to 64 bits
    key = (seed & 0xFFFFFFFF, seed >> 32)
    high = (lambda o: (o >> 32) & 0xFFFFFFFF) if offset_bits > 32 else (lambda o: 0)
    out = np.array([philox_ref((int(o) & 0xFFFFFFFF, high(int(o)), 0, 0), key, rounds)
                    for o in np.asarray(offsets).ravel()], dtype=np.uint32)
    return out.T.reshape((4,) + np.shape(offsets))


def uniform_ref(words):
    """uint_to_uniform_float: the bits as int32, negatives folded (-x - 1), times 4.6566127342e-10 in f32."""
    x = np.asarray(words).astype(np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def normal_ref(u1, u2):
    """Box-Muller, in float64 (the kernels compute in f32 with their own log/sin/cos)."""
    u1 = np.maximum(np.float32(1.0e-7), u1).astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    th = np.float32(6.283185307179586) * u2.astype(np.float64)
    return r * np.cos(th), r * np.sin(th)


# ---- kernels


@kiln.jit
def store_rows(out_ptr, n, i, m, a, b, c, d):
    """Four results as the rows of an (4, n) array."""
    tl.store(out_ptr + i, a, mask=m)
    tl.store(out_ptr + n + i, b, mask=m)
    tl.store(out_ptr + 2 * n + i, c, mask=m)
    tl.store(out_ptr + 3 * n + i, d, mask=m)


@kiln.jit
def randint4x_kernel(out_ptr, seed, base, n, DTYPE: tl.constexpr, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offset = base.to(DTYPE) + i.to(DTYPE)
    a, b, c, d = tl.randint4x(seed, offset, ROUNDS)
    store_rows(out_ptr, n, i, i < n, a, b, c, d)


@kiln.jit
def randint_const_seed_kernel(out_ptr, n, SEED: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.randint(SEED, i), mask=i < n)


@kiln.jit
def scalar_offset_kernel(out_ptr, seed, offset):
    w = tl.random.randint4x(seed, offset)
    tl.store(out_ptr, tl.randint(seed, offset))
    tl.store(out_ptr + 1, w[1])
    tl.store(out_ptr + 2, w[3])


@kiln.jit
def float_kernel(out_ptr, seed, n, NORMAL: tl.constexpr, BLOCK: tl.constexpr):
    """Row 0: tl.rand (tl.randn), rows 1-4: tl.rand4x (tl.randn4x)."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    if NORMAL:
        tl.store(out_ptr + i, tl.randn(seed, i), mask=m)
        a, b, c, d = tl.randn4x(seed, i)
    else:
        tl.store(out_ptr + i, tl.rand(seed, i), mask=m)
        a, b, c, d = tl.rand4x(seed, i)
    store_rows(out_ptr + n, n, i, m, a, b, c, d)


@kiln.jit
def philox_kernel(out_ptr, c_ptr, seed, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    c0 = tl.load(c_ptr + i, mask=m)
    c1 = tl.load(c_ptr + n + i, mask=m)
    a, b, c, d = tl.philox(seed, c0, c1, c0 - c0 + 7, c0 ^ c1)
    store_rows(out_ptr, n, i, m, a, b, c, d)


@kiln.jit
def philox_impl_kernel(out_ptr, c_ptr, k0, k1, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    c = tl.load(c_ptr + i, mask=m)
    a, b, x, d = tl.philox_impl(c, c + 1, c + 2, c + 3, k0.to(tl.uint32), k1, n_rounds=4)
    store_rows(out_ptr, n, i, m, a, b, x, d)


@kiln.jit
def to_uniform_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.random.uint_to_uniform_float(tl.load(x_ptr + i)))


@kiln.jit
def pair_kernel(u_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    a, b = tl.pair_uniform_to_normal(tl.load(u_ptr + i), tl.load(u_ptr + BLOCK + i))
    tl.store(out_ptr + i, a)
    tl.store(out_ptr + BLOCK + i, b)


@kiln.jit
def bad_seed_kernel(out_ptr, seed):
    i = tl.arange(0, 4)
    tl.store(out_ptr + i, tl.rand(seed, i))


@kiln.jit
def bad_offset_kernel(out_ptr, seed):
    i = tl.arange(0, 4)
    tl.store(out_ptr + i, tl.randint(seed, i.to(tl.float32)))


# ---- tests

SEEDS = [0, 42, -1, 0xFFFFFFFF, 0x0000000FCAFEB0BA, -0x123456789AB, 0x7FFFFFFFFFFFFFFF]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("base", [np.int32(0), np.int32(-(2**31)), np.uint32(0xFFFFFF00), np.int64(0),
                                  np.int64(0x123456789), np.int64(-5000), np.uint64(0xFFFFFFFF_FFFFF000)],
                         ids=lambda b: f"{type(b).__name__}{int(b)}")
def test_randint4x_matches_reference(backend, seed, base):
    n = 300  # not a multiple of the block
    out = backend.empty(4 * n, np.uint32)
    dtype = {np.int32: tl.int32, np.uint32: tl.uint32, np.int64: tl.int64, np.uint64: tl.uint64}[type(base)]
    randint4x_kernel[(3,)](out, seed, int(base), n, DTYPE=dtype, ROUNDS=10, BLOCK=128)
    bits = 8 * base.itemsize
    offsets = (int(base) + np.arange(n, dtype=object)) % (1 << bits)  # the kernel's offsets wrap too
    if base.dtype.kind == "i":
        offsets = np.where(offsets >= 1 << (bits - 1), offsets - (1 << bits), offsets)
    np.testing.assert_array_equal(backend.numpy(out).reshape(4, n), random_words(seed, offsets, offset_bits=bits))


@pytest.mark.parametrize("rounds", [0, 1, 7])
def test_n_rounds(backend, rounds):
    n = 64
    out = backend.empty(4 * n, np.uint32)
    randint4x_kernel[(1,)](out, 1234, 2**40, n, DTYPE=tl.int64, ROUNDS=rounds, BLOCK=64)
    np.testing.assert_array_equal(backend.numpy(out).reshape(4, n), random_words(1234, 2**40 + np.arange(n), rounds, 64))


@pytest.mark.parametrize("seed", [0, -7, 0xFFFFFFFF, 0x0000000FCAFEB0BA])
def test_constexpr_seed(backend, seed):
    n = 100
    out = backend.empty(n, np.int32)
    randint_const_seed_kernel[(1,)](out, n, SEED=seed, BLOCK=128)
    np.testing.assert_array_equal(backend.numpy(out).view(np.uint32), random_words(seed, np.arange(n))[0])


def test_scalar_offset(backend):
    out = backend.empty(3, np.uint32)
    scalar_offset_kernel[(1,)](out, 99, np.int64(0x5_0000_0003))
    want = random_words(99, np.array([0x5_0000_0003]), offset_bits=64)[:, 0]
    np.testing.assert_array_equal(backend.numpy(out), [want[0], want[1], want[3]])


@pytest.mark.parametrize("seed", [0, 2**33 + 17])
def test_rand_and_rand4x_are_exact(backend, seed):
    n = 1000
    out = backend.empty(5 * n, np.float32)
    float_kernel[(8,)](out, seed, n, NORMAL=False, BLOCK=128)
    got = backend.numpy(out).reshape(5, n)
    words = random_words(seed, np.arange(n))
    np.testing.assert_array_equal(got[0], uniform_ref(words[0]))
    np.testing.assert_array_equal(got[1:], uniform_ref(words))
    assert ((got >= 0) & (got < 1)).all()


def test_randn_and_randn4x(backend):
    n, seed = 1000, 5
    out = backend.empty(5 * n, np.float32)
    float_kernel[(8,)](out, seed, n, NORMAL=True, BLOCK=128)
    got = backend.numpy(out).reshape(5, n)
    u = uniform_ref(random_words(seed, np.arange(n)))
    n1, n2 = normal_ref(u[0], u[1])
    n3, n4 = normal_ref(u[2], u[3])
    for g, want in zip(got, [n1, n1, n2, n3, n4]):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=2e-5)
    if backend.is_cuda:  # the GPU's log/sin/cos against the interpreter's
        host = np.empty(5 * n, np.float32)
        float_kernel[(8,)](host, seed, n, NORMAL=True, BLOCK=128)
        np.testing.assert_allclose(got, host.reshape(5, n), rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("seed", [3, -3, 0x1_2345_6789])
def test_philox_32_bit_counters(backend, seed):
    n = 50
    c = np.random.default_rng(seed & 0xFFFF).integers(0, 2**32, 2 * n, dtype=np.uint32)
    out = backend.empty(4 * n, np.uint32)
    philox_kernel[(1,)](out, backend.asarray(c), seed, n, BLOCK=64)
    s = seed & (2**64 - 1)
    want = [philox_ref((int(a), int(b), 7, int(a ^ b)), (s & 0xFFFFFFFF, s >> 32)) for a, b in zip(c[:n], c[n:])]
    np.testing.assert_array_equal(backend.numpy(out).reshape(4, n), np.array(want, dtype=np.uint32).T)


def test_philox_64_bit_counters(backend):
    # 64-bit counters run Philox-4x64 keyed by (seed, 0)
    n, seed = 20, -9
    c = np.random.default_rng(1).integers(0, 2**63, 2 * n, dtype=np.int64)
    out = backend.empty(4 * n, np.uint64)
    philox_kernel[(1,)](out, backend.asarray(c), seed, n, BLOCK=32)
    m = 2**64 - 1
    want = [philox_ref((int(a) & m, int(b) & m, 7, int(a ^ b) & m), (seed & m, 0), width=64)
            for a, b in zip(c[:n], c[n:])]
    np.testing.assert_array_equal(backend.numpy(out).reshape(4, n), np.array(want, dtype=np.uint64).T)


def test_philox_impl(backend):
    n = 40
    c = np.arange(n, dtype=np.uint32) * np.uint32(0x01000193)
    out = backend.empty(4 * n, np.uint32)
    philox_impl_kernel[(1,)](out, backend.asarray(c), 0xDEADBEEF, 5, n, BLOCK=64)
    want = [philox_ref((int(x), int(x) + 1, int(x) + 2, int(x) + 3), (0xDEADBEEF, 5), rounds=4) for x in c]
    np.testing.assert_array_equal(backend.numpy(out).reshape(4, n), np.array(want, dtype=np.uint32).T)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_uint_to_uniform_float_stays_below_one(backend, dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 1, info.max // 2, info.max - 1, info.min + 1, info.max // 3], dtype=dtype)
    out = backend.empty(8, np.float32)
    to_uniform_kernel[(1,)](backend.asarray(x), out, BLOCK=8)
    got = backend.numpy(out)
    signed = x.view(np.int32 if x.itemsize == 4 else np.int64).astype(object)
    folded = np.array([-v - 1 if v < 0 else v for v in signed], dtype=np.float64)
    scale = np.float32(4.6566127342e-10 if x.itemsize == 4 else 1.0842020432385337e-19)
    np.testing.assert_array_equal(got, folded.astype(np.float32) * scale)
    assert 1 - np.finfo(np.float32).eps <= got.max() < 1
    if info.min < 0:  # the most negative value folds onto the largest
        assert got[0] == got[1]


def test_pair_uniform_to_normal(backend):
    u = np.array([0.0, 1e-9, 0.25, 0.5, 0.75, 0.999, 0.1, 0.9], dtype=np.float32)
    out = backend.empty(16, np.float32)
    pair_kernel[(1,)](backend.asarray(np.concatenate([u, u[::-1]])), out, BLOCK=8)
    a, b = normal_ref(u, u[::-1].copy())
    np.testing.assert_allclose(backend.numpy(out), np.concatenate([a, b]), rtol=1e-5, atol=2e-5)


def test_seed_must_be_an_integer():
    out = np.zeros(4, np.float32)
    with pytest.raises(kiln.CompilationError, match=r"tl.rand\(\): the seed must be an integer"):
        bad_seed_kernel[(1,)](out, 2.5)
    with pytest.raises(kiln.CompilationError, match=r"the seed must be an integer"):
        bad_seed_kernel[(1,)](out, np.zeros(1, np.int32))  # a pointer


def test_offsets_must_be_integers():
    with pytest.raises(kiln.CompilationError, match=r"tl.randint\(\): offsets must be integers") as e:
        bad_offset_kernel[(1,)](np.zeros(4, np.int32), 1)
    assert "test_random.py" in str(e.value)
