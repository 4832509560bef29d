"""kiln.autotune and kiln.heuristics: config choice, the key, pruning, reset_to_zero, restore_value,
hooks and errors. Timings come from an injected do_bench so the choice is deterministic; one test
uses the real do_bench (CUDA events on a GPU, the wall clock on the interpreter)."""
import numpy as np
import pytest

import kiln
import kiln.language as tl

# What the fake benchmark reports for each BLOCK: 64 is the fastest.
FAKE_MS = {16: 3.0, 32: 2.0, 64: 1.0, 128: 4.0}
benchmarked = []


def fake_bench(fn, quantiles=None):
    fn()
    block = benchmarked[-1]
    return [FAKE_MS[block]] * len(quantiles or [0])


def record_block(args):
    benchmarked.append(args["BLOCK"])


CONFIGS = [kiln.Config({"BLOCK": b}, num_warps=4, pre_hook=record_block) for b in (16, 32, 64, 128)]


@kiln.autotune(configs=CONFIGS, key=["n"], do_bench=fake_bench)
@kiln.jit
def tuned_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@kiln.jit
def accumulate(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(acc_ptr + offs, tl.load(acc_ptr + offs, mask=mask) + tl.load(x_ptr + offs, mask=mask), mask=mask)


tuned_accumulate_zero = kiln.autotune(configs=CONFIGS[:3], key=["n"], reset_to_zero=["acc_ptr"],
                                      do_bench=fake_bench)(accumulate)
tuned_accumulate_restore = kiln.autotune(configs=CONFIGS[:3], key=["n"], restore_value=["acc_ptr"],
                                         do_bench=fake_bench)(accumulate)


@kiln.heuristics({"BLOCK": lambda args: kiln.next_power_of_2(args["n"]), "EVEN": lambda args: args["n"] % 2 == 0})
@kiln.jit
def heuristic_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    if EVEN:
        v = v * 2
    tl.store(out_ptr + offs, v, mask=offs < n)


def _arrays(backend, rng, n):
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    return xh, yh, backend.asarray(xh), backend.asarray(yh), backend.empty(n, np.float32)


def test_picks_the_fastest_config_once_per_key(backend, rng):
    tuned_add.cache.clear()
    benchmarked.clear()
    n = 200
    xh, yh, x, y, out = _arrays(backend, rng, n)
    grid = lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)
    tuned_add[grid](x, y, out, n)
    assert tuned_add.best_config.kwargs == {"BLOCK": 64}
    assert sorted(set(benchmarked[:-1])) == [16, 32, 64, 128]  # each config timed, then the best ran
    np.testing.assert_allclose(backend.numpy(out), xh + yh, rtol=1e-6)
    assert set(c.kwargs["BLOCK"] for c in tuned_add.configs_timings) == {16, 32, 64, 128}
    # Same key: no new tuning.
    benchmarked.clear()
    tuned_add[grid](x, y, out, n)
    assert benchmarked == [64]
    # A new value of a key argument tunes again.
    n2 = 100
    xh, yh, x, y, out = _arrays(backend, rng, n2)
    tuned_add[lambda meta: (kiln.cdiv(n2, meta["BLOCK"]),)](x, y, out, n2)
    assert len(tuned_add.cache) == 2
    np.testing.assert_allclose(backend.numpy(out), xh + yh, rtol=1e-6)


def test_key_includes_dtypes():
    tuned_add.cache.clear()
    n = 64
    for dtype in (np.float32, np.float64):
        x = np.ones(n, dtype)
        tuned_add[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](x, x, np.zeros(n, dtype), n)
    assert len(tuned_add.cache) == 2
    assert {k[1] for k in tuned_add.cache} == {"float32", "float64"}


def test_results_are_kept_per_gpu():
    # Arguments on cuda:0 and cuda:1 tune apart (the devices may differ); host arrays key as before.
    class OnGpu:
        is_cuda = True
        dtype = "torch.float16"
        shape = (4,)

        def __init__(self, device):
            self.device = device

        def get_device(self):
            return self.device

    key = tuned_add._key({"n": 64})

    def slot(args):
        return tuned_add._slot(key, tuned_add._device(args))

    assert slot({"x": OnGpu(0), "n": 64}) == key + ("cuda:0",)
    assert slot({"x": OnGpu(1), "n": 64}) == key + ("cuda:1",)
    assert slot({"x": np.ones(4), "n": 64}) == key
    # A tuple's tensors and a wrapper's base say where the launch runs, as they do for the launch itself.
    assert slot({"x": (np.ones(4), OnGpu(1)), "n": 64}) == key + ("cuda:1",)
    assert slot({"x": kiln.TensorWrapper(OnGpu(1), tl.int32), "n": 64}) == key + ("cuda:1",)


def test_prune_configs_by():
    seen = {}

    def early_prune(configs, named_args, **kwargs):
        seen["n"] = named_args["n"]
        return [c for c in configs if c.kwargs["BLOCK"] <= 2 * named_args["n"]]

    def perf_model(**kwargs):
        return -kwargs["BLOCK"]  # predicts the biggest block fastest

    tuner = kiln.autotune(configs=CONFIGS, key=["n"], do_bench=fake_bench,
                          prune_configs_by={"early_config_prune": early_prune, "perf_model": perf_model,
                                            "top_k": 2})(tuned_add.fn)
    pruned = tuner.prune_configs({}, {"n": 40})
    assert [c.kwargs["BLOCK"] for c in pruned] == [64, 32]  # 128 pruned early, 16 by the model
    assert seen["n"] == 40
    x = np.ones(40, np.float32)
    out = np.zeros(40, np.float32)
    tuner[lambda meta: (kiln.cdiv(40, meta["BLOCK"]),)](x, x, out, 40)
    assert tuner.best_config.kwargs["BLOCK"] == 64  # the faster of the two left
    np.testing.assert_array_equal(out, 2)


def test_reset_to_zero(backend, rng):
    n = 64
    xh = rng.random(n, dtype=np.float32)
    acc = backend.asarray(np.full(n, 100, np.float32))
    tuned_accumulate_zero.cache.clear()
    tuned_accumulate_zero[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](acc, backend.asarray(xh), n)
    # Zeroed before each benchmark run; the final launch then adds x once more.
    np.testing.assert_allclose(backend.numpy(acc), 2 * xh, rtol=1e-6)


def test_restore_value(backend, rng):
    n = 64
    xh = rng.random(n, dtype=np.float32)
    acc = backend.asarray(np.full(n, 100, np.float32))
    tuned_accumulate_restore.cache.clear()
    tuned_accumulate_restore[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](acc, backend.asarray(xh), n)
    # Restored after each benchmark run: only the final launch's addition remains.
    np.testing.assert_allclose(backend.numpy(acc), 100 + xh, rtol=1e-6)


def test_failing_configs_are_skipped_and_all_failing_raises():
    bad = [kiln.Config({"BLOCK": 100}), kiln.Config({"BLOCK": 64})]  # 100 is not a power of two
    tuner = kiln.autotune(configs=bad, key=["n"], do_bench=lambda fn, quantiles=None: (fn(), [1.0] * 3)[1])(
        tuned_add.fn)
    x = np.ones(64, np.float32)
    out = np.zeros(64, np.float32)
    tuner[(1,)](x, x, out, 64)
    assert tuner.best_config.kwargs == {"BLOCK": 64}
    only_bad = kiln.autotune(configs=bad[:1] * 2, key=["n"], do_bench=lambda fn, quantiles=None: (fn(), [1.0] * 3)[1])(
        tuned_add.fn)
    with pytest.raises(kiln.CompilationError, match="power of 2"):
        only_bad[(1,)](x, x, out, 64)


def test_errors():
    with pytest.raises(kiln.KilnError, match="'m', which is not a parameter"):
        kiln.autotune(configs=CONFIGS, key=["m"])(tuned_add.fn)
    x = np.ones(64, np.float32)
    tuned_add.cache.clear()
    with pytest.raises(kiln.KilnError, match="conflicting meta-parameters BLOCK"):
        tuned_add[(1,)](x, x, x, 64, BLOCK=64)


def test_real_do_bench_on_this_backend(backend):
    tuner = kiln.autotune(configs=[kiln.Config({"BLOCK": 32}), kiln.Config({"BLOCK": 64}, num_warps=2)], key=["n"],
                          warmup=1, rep=2)(tuned_add.fn)
    n = 256
    x = backend.asarray(np.ones(n, np.float32))
    out = backend.empty(n, np.float32)
    tuner[lambda meta: (kiln.cdiv(n, meta["BLOCK"]),)](x, x, out, n)
    assert tuner.best_config.kwargs["BLOCK"] in (32, 64)
    assert all(t[0] > 0 for t in tuner.configs_timings.values())
    np.testing.assert_array_equal(backend.numpy(out), 2)


def test_heuristics(backend, rng):
    for n in (10, 7):
        xh = rng.random(n, dtype=np.float32)
        out = backend.empty(n, np.float32)
        heuristic_copy[(1,)](backend.asarray(xh), out, n)
        np.testing.assert_array_equal(backend.numpy(out), xh * (2 if n % 2 == 0 else 1))
    k = heuristic_copy.warmup(np.zeros(10, np.float32), np.zeros(10, np.float32), 10, grid=(1,))
    assert k.signature.endswith(", 16, True")


def test_config_text():
    c = kiln.Config({"BLOCK": 64}, num_warps=8, num_stages=2)
    assert str(c) == "BLOCK: 64, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: None"
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 8, "num_stages": 2, "num_ctas": 1}
