"""tl.atomic_* on every backend against NumPy references computed in float64 (or exactly, for integers),
with awkward sizes: each kind and dtype on distinct addresses (memory and old values), contention within
a tile and across programs, masks, float max/min as Triton orders them (-0.0 below +0.0), compare-and-swap
by bits, scalar pointers, tensor methods, sem/scope, and the located errors of misuse."""
import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def rmw_kernel(p_ptr, idx_ptr, val_ptr, old_ptr, n, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr,
               BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    val = tl.load(val_ptr + offs, mask=m)
    m = m & (idx >= 0)
    p = p_ptr + idx
    if OP == "add":
        old = tl.atomic_add(p, val, mask=m, sem=SEM, scope=SCOPE)
    elif OP == "max":
        old = tl.atomic_max(p, val, m, SEM, SCOPE)
    elif OP == "min":
        old = p.atomic_min(val, mask=m, sem=SEM, scope=SCOPE)
    elif OP == "and":
        old = tl.atomic_and(p, val, mask=m, sem=SEM, scope=SCOPE)
    elif OP == "or":
        old = p.atomic_or(val, mask=m, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        old = tl.atomic_xor(p, val, mask=m, sem=SEM, scope=SCOPE)
    else:
        old = tl.atomic_xchg(p, val, mask=m, sem=SEM, scope=SCOPE)
    tl.store(old_ptr + offs, old, mask=offs < n)


def float_order_key(x):
    """Triton's float max/min order: the sign-magnitude bits, so -NaN < -inf < -0.0 < +0.0 < +inf < +NaN."""
    bits = x.view(np.int32 if x.dtype == np.float32 else np.int64).astype(np.int64)
    return np.where(bits < 0, -(bits & np.int64(np.iinfo(bits.dtype).max if x.dtype == np.float64 else 0x7FFFFFFF)) - 1,
                    bits)


def reference(op, mem, idx, val):
    """The sequential meaning: elements in order, each seeing the earlier ones (float64 for float adds)."""
    mem = mem.copy()
    old = np.zeros_like(val)
    with np.errstate(over="ignore"):  # integer adds wrap
        _apply(op, mem, old, idx, val)
    return mem, old


def _apply(op, mem, old, idx, val):
    for i, (j, v) in enumerate(zip(idx, val)):
        if j < 0:
            continue  # masked off: old value 0, memory untouched
        old[i] = mem[j]
        if op == "add":
            mem[j] = (np.float64(mem[j]) + np.float64(v)).astype(mem.dtype) if mem.dtype.kind == "f" else mem[j] + v
        elif op in ("max", "min"):
            if mem.dtype.kind == "f":
                a, b = float_order_key(mem[j:j + 1])[0], float_order_key(val[i:i + 1])[0]
                mem[j] = v if (b > a if op == "max" else b < a) else mem[j]
            else:
                mem[j] = max(mem[j], v) if op == "max" else min(mem[j], v)
        elif op == "and":
            mem[j] &= v
        elif op == "or":
            mem[j] |= v
        elif op == "xor":
            mem[j] ^= v
        else:
            mem[j] = v


def random_values(rng, dtype, n):
    if np.dtype(dtype).kind == "f":
        return (rng.integers(-64, 64, n) / 4).astype(dtype)  # sums of a few stay exact in every float type
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


CASES = [("add", np.int32), ("add", np.uint32), ("add", np.int64), ("add", np.uint64), ("add", np.float16),
         ("add", np.float32), ("add", np.float64), ("max", np.int32), ("max", np.uint64), ("max", np.float32),
         ("max", np.float64), ("min", np.uint32), ("min", np.int64), ("min", np.float32), ("min", np.float64),
         ("and", np.uint32), ("and", np.int64), ("or", np.int32), ("or", np.uint64), ("xor", np.uint32),
         ("xor", np.int64), ("xchg", np.int32), ("xchg", np.float32), ("xchg", np.float64), ("xchg", np.uint64)]


@pytest.mark.parametrize("op, dtype", CASES, ids=[f"{o}-{np.dtype(d).name}" for o, d in CASES])
@pytest.mark.parametrize("n", [1, 37, 1000])
def test_every_kind_on_distinct_addresses(backend, rng, op, dtype, n):
    slots = 2 * n + 3
    idx = rng.permutation(slots)[:n].astype(np.int32)
    idx[rng.random(n) < 0.2] = -1  # masked off
    mem, val = random_values(rng, dtype, slots), random_values(rng, dtype, n)
    if np.dtype(dtype).kind == "f" and op in ("max", "min") and n >= 4:
        # The signed zeros meet each other at addresses 0..3, which no other element touches.
        idx = np.concatenate([np.arange(4), 4 + rng.permutation(slots - 4)[:n - 4]]).astype(np.int32)
        mem[:4], val[:4] = np.array([0.0, -0.0, -0.0, 0.0], dtype), np.array([-0.0, 0.0, -0.0, 0.0], dtype)
    want_mem, want_old = reference(op, mem, idx, val)
    p, old = backend.asarray(mem), backend.empty(n, dtype)
    rmw_kernel[(kiln.cdiv(n, 128),)](p, backend.asarray(idx), backend.asarray(val), old, n, OP=op, SEM="acq_rel",
                                     SCOPE="gpu", BLOCK=128)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(p).view(np.uint8), want_mem.view(np.uint8))
    np.testing.assert_array_equal(backend.numpy(old).view(np.uint8), want_old.view(np.uint8))


@pytest.mark.parametrize("sem", [None, "relaxed", "acquire", "release", "acq_rel"])
@pytest.mark.parametrize("scope", [None, "cta", "gpu", "sys"])
def test_every_sem_and_scope(backend, sem, scope):
    mem = np.zeros(4, np.int32)
    idx = np.array([0, 1, 1, 3, -1], np.int32)
    val = np.arange(1, 6, dtype=np.int32)
    p, old = backend.asarray(mem), backend.empty(5, np.int32)
    rmw_kernel[(1,)](p, backend.asarray(idx), backend.asarray(val), old, 5, OP="add", SEM=sem, SCOPE=scope, BLOCK=8)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(p), [1, 5, 0, 4])
    got = backend.numpy(old)
    assert got[0] == 0 and got[3] == 0 and got[4] == 0 and sorted(got[1:3]) == [0, 2]


@kiln.jit
def histogram(keys_ptr, bins_ptr, weights_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    keys = tl.load(keys_ptr + offs, mask=m, other=0)
    tl.atomic_add(bins_ptr + keys, tl.load(weights_ptr + offs, mask=m), mask=m, sem="relaxed")


@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 333, 4099])
def test_histogram_with_collisions(backend, rng, dtype, n):
    keys = rng.integers(0, 7, n).astype(np.int32)
    weights = rng.integers(0, 4, n).astype(dtype)  # small integers: every sum is exact, in any order
    want = np.zeros(7, np.float64)
    np.add.at(want, keys, weights.astype(np.float64))
    bins = backend.asarray(np.zeros(7, dtype))
    histogram[(kiln.cdiv(n, 256),)](backend.asarray(keys), bins, backend.asarray(weights), n, BLOCK=256)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(bins).astype(np.float64), want)


@kiln.jit
def tickets(counter_ptr, out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.atomic_add(counter_ptr, 2))


def test_scalar_atomics_hand_out_tickets(backend):
    counter, out = backend.asarray(np.array([10], np.int64)), backend.empty(513, np.int64)
    tickets[(513,)](counter, out)
    backend.sync()
    got = backend.numpy(out)
    want = 10 + 2 * np.arange(513)
    if backend.is_cuda:
        got = np.sort(got)  # programs race on the GPU; the interpreter runs them in order
    np.testing.assert_array_equal(got, want)
    assert backend.numpy(counter)[0] == 10 + 2 * 513


@kiln.jit
def half_add(p_ptr, val_ptr, old_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(old_ptr + offs, tl.atomic_add(p_ptr + offs // 2, tl.load(val_ptr + offs)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_adds_round_once_per_element(backend, dtype):
    # Pairs of elements meet on one address. 2048 + 1 is 2048 in f16 (a tie, to even) and in bf16 (8
    # significant bits), so the interpreter's index order shows in the old values.
    if dtype == "bfloat16" and backend.name == "numpy":
        pytest.skip("NumPy has no bfloat16")
    vals = np.array([2048, 1, 1, 2048, 0.5, 0.25, -3, 3], np.float32)
    if dtype == "float16":
        p, v, old = backend.asarray(np.zeros(4, np.float16)), backend.asarray(vals.astype(np.float16)), backend.empty(8, np.float16)
        as_f64 = lambda a: backend.numpy(a).astype(np.float64)  # noqa: E731
    else:
        import torch
        dev = "cuda" if backend.is_cuda else "cpu"
        p = torch.zeros(4, dtype=torch.bfloat16, device=dev)
        v = torch.tensor(vals, dtype=torch.bfloat16, device=dev)
        old = torch.full((8,), float("nan"), dtype=torch.bfloat16, device=dev)
        as_f64 = lambda a: a.double().cpu().numpy()  # noqa: E731
    half_add[(1,)](p, v, old, N=8)
    backend.sync()
    np.testing.assert_array_equal(as_f64(p), [2048, 2048, 0.75, 0])
    o = as_f64(old)
    if backend.is_cuda:  # either element of a pair may go first
        pairs = [sorted(o[k:k + 2]) for k in range(0, 8, 2)]
        assert pairs[0] in ([0, 2048], [0, 1]) and pairs[1] in ([0, 1], [0, 2048]), o
        assert pairs[2] in ([0, 0.5], [0, 0.25]) and pairs[3] in ([-3, 0], [0, 3]), o
    else:
        np.testing.assert_array_equal(o, [0, 2048, 0, 1, 0, 0.5, 0, -3])


@kiln.jit
def cas_kernel(p_ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr, SEM: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(p_ptr + offs, tl.load(cmp_ptr + offs), tl.load(val_ptr + offs), sem=SEM)
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.float16, np.int32, np.float32, np.uint64, np.float64])
@pytest.mark.parametrize("block", [2, 128])
def test_compare_and_swap_compares_bits(backend, rng, dtype, block):
    mem, val = random_values(rng, dtype, block), random_values(rng, dtype, block)
    cmp = np.where(rng.random(block) < 0.5, mem, random_values(rng, dtype, block)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        mem[0], cmp[0] = 0.0, -0.0  # different bits: no swap
        mem[-1], cmp[-1] = np.nan, np.nan  # the same bits: a swap
    swap = mem.view(np.uint8).reshape(block, -1).tolist()
    swap = np.array([a == b for a, b in zip(swap, cmp.view(np.uint8).reshape(block, -1).tolist())])
    p, old = backend.asarray(mem), backend.empty(block, dtype)
    cas_kernel[(1,)](p, backend.asarray(cmp), backend.asarray(val), old, BLOCK=block, SEM="relaxed")
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(old).view(np.uint8), mem.view(np.uint8))
    np.testing.assert_array_equal(backend.numpy(p).view(np.uint8), np.where(swap[:, None], val.view(np.uint8).reshape(block, -1),
                                                                             mem.view(np.uint8).reshape(block, -1)).ravel())


def test_spin_lock_with_debug_barrier(backend):
    from conftest import load_example
    ex = load_example("atomics")
    data, lock = backend.asarray(np.full(128, 5, np.int32)), backend.asarray(np.zeros(1, np.int32))
    ex.locked_add_kernel[(300,)](data, lock, BLOCK_SIZE=128)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(data), np.full(128, 5 + 300 * 301 // 2))
    assert backend.numpy(lock)[0] == 0


@kiln.jit
def max_min_scalar(x_ptr, hi_ptr, lo_ptr):
    x = tl.load(x_ptr + tl.program_id(0))
    tl.atomic_max(hi_ptr, x)
    tl.atomic_min(lo_ptr, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_max_min_across_programs(backend, rng, dtype):
    x = np.concatenate([rng.standard_normal(50), [0.0, -0.0, np.inf, -np.inf]]).astype(dtype)
    hi, lo = backend.asarray(np.array([-np.inf], dtype)), backend.asarray(np.array([np.inf], dtype))
    max_min_scalar[(x.size,)](backend.asarray(x), hi, lo)
    backend.sync()
    assert backend.numpy(hi)[0] == np.inf and backend.numpy(lo)[0] == -np.inf
    # -0.0 orders below +0.0 (Triton's test_atomic_min_max_neg_zero)
    z = np.array([-0.0], dtype)
    hi, lo = backend.asarray(np.array([np.finfo(dtype).min], dtype)), backend.asarray(np.array([np.finfo(dtype).max], dtype))
    max_min_scalar[(1,)](backend.asarray(z), hi, lo)
    backend.sync()
    assert np.signbit(backend.numpy(hi)[0]) and backend.numpy(hi)[0] == 0
    assert np.signbit(backend.numpy(lo)[0]) and backend.numpy(lo)[0] == 0


def misuse(body):
    """A kernel whose body is `body` over p (a tensor of 8 pointers to `dt`), s (a scalar pointer) and x."""
    src = f"""@kiln.jit
def k(p_ptr, s_ptr, x_ptr):
    p = p_ptr + tl.arange(0, 8)
    x = tl.load(x_ptr + tl.arange(0, 8))
    {body}
"""
    scope = {"kiln": kiln, "tl": tl}
    exec(src, scope)
    return scope["k"]


@pytest.mark.parametrize("dtype, body, match", [
    (np.float32, "tl.atomic_and(p, x)", r"tl.atomic_and\(\) does not support fp32 elements \(atomic_and takes int32, uint32, int64 or uint64\)"),
    (np.int8, "tl.atomic_add(p, x)", r"tl.atomic_add\(\) does not support int8 elements"),
    (np.int16, "tl.atomic_xchg(p, x)", r"does not support int16 elements \(atomic_xchg takes int32, uint32, int64, uint64, fp32 or fp64\)"),
    (np.float16, "tl.atomic_max(p, x)", r"does not support fp16 elements \(atomic_max takes"),
    (np.int8, "tl.atomic_cas(p, x, x)", r"tl.atomic_cas\(\) only supports elements 16, 32 or 64 bits wide, got int8"),
    (np.int32, "tl.atomic_cas(p, 0, x)", r"cmp must be a tensor<8xi32>, the pointer's element type and shape \(atomic_cas "
                                         r"converts and broadcasts nothing\), got a scalar of type i32"),
    (np.int64, "tl.atomic_cas(s_ptr, 0, 1)", r"cmp must be a scalar of type i64.*got a scalar of type i32"),
    (np.int32, "tl.atomic_add(p, x, sem='seq_cst')", r"sem 'seq_cst' is not supported; use 'relaxed', 'acquire', 'release' or 'acq_rel'"),
    (np.int32, "tl.atomic_add(p, x, scope='cluster')", r"scope 'cluster' is not supported; use 'gpu', 'cta' or 'sys'"),
    (np.int32, "tl.atomic_add(s_ptr, x)", r"val must be a scalar when updating through a single pointer, got a tensor<8xi32>"),
    (np.int32, "tl.atomic_add(p, tl.arange(0, 4))",
     r"val of shape \[4\] does not broadcast to the pointer shape \[8\]"),
    (np.int32, "tl.atomic_or(x, x)", r"tl.atomic_or\(\) expects a pointer or a tensor of pointers, got a tensor<8xi32>"),
    (np.int32, "tl.atomic_add(p, x, mask=x)", r"the mask must be boolean \(i1\)"),
])
def test_misuse_is_a_located_error(dtype, body, match):
    k = misuse(body)
    a = np.zeros(8, dtype)
    with pytest.raises(kiln.CompilationError, match=match) as info:
        k[(1,)](a, a, a)
    assert "<string>:5:" in str(info.value) and body in str(info.value)
