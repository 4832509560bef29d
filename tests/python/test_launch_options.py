"""Triton's launch options as keywords of kernel[grid](...): maxnreg (PTX .maxnreg, part of the
specialization), launch_pdl and launch_cooperative_grid (launch attributes on the GPU), and the options
kiln refuses with a reason (sanitize_overflow=True; stream, device and device_type, as Triton refuses
them). On the interpreter here; the GPU cases run where there is one."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from conftest import HAS_CUDA, torch


@kiln.jit
def scale(x_ptr, out_ptr, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor)


def _data():
    x = np.arange(256, dtype=np.float32)
    return x, np.zeros_like(x)


def test_maxnreg_is_a_compile_option_and_part_of_the_specialization():
    x, out = _data()
    plain = scale.warmup(x, out, 2.0, BLOCK=64, grid=(4, ))
    capped = scale.warmup(x, out, 2.0, BLOCK=64, maxnreg=32, grid=(4, ))
    assert ".maxnreg" not in plain.asm["ptx"]
    assert ".maxnreg 32\n" in capped.asm["ptx"]
    assert capped.key != plain.key
    scale[(4, )](x, out, 2.0, BLOCK=64, maxnreg=40)
    np.testing.assert_array_equal(out, 2 * x)
    scale[(4, )](x, out, 3.0, BLOCK=64, maxnreg=None)  # Triton's default: no limit
    np.testing.assert_array_equal(out, 3 * x)


def test_maxnreg_outside_ptxas_range_is_refused():
    x, out = _data()
    for bad in (8, 23, 256, -1):
        with pytest.raises(kiln.ArgumentError, match=f"maxnreg must be 0 .no limit. or from 24 to 255 registers "
                                                     f"per thread, got {bad}"):
            scale[(4, )](x, out, 2.0, BLOCK=64, maxnreg=bad)
    with pytest.raises(kiln.ArgumentError, match="maxnreg must be an int"):
        scale[(4, )](x, out, 2.0, BLOCK=64, maxnreg=32.0)


@kiln.jit
def scale_tuned(x_ptr, out_ptr, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor)


def test_an_autotune_config_with_maxnreg_compiles_with_it():
    x, out = _data()
    tuned = kiln.autotune(configs=[kiln.Config({"BLOCK": 64}, maxnreg=48)], key=[])(scale_tuned)
    tuned[lambda meta: (256 // meta["BLOCK"], )](x, out, 5.0)
    np.testing.assert_array_equal(out, 5 * x)
    assert scale_tuned.cache_size == 1
    k = scale_tuned.warmup(x, out, 5.0, BLOCK=64, maxnreg=48, grid=(4, ))
    assert scale_tuned.cache_size == 1  # the variant the autotuner compiled: with maxnreg 48
    assert ".maxnreg 48\n" in k.asm["ptx"]


def test_launch_attributes_do_not_change_results():
    x, out = _data()
    scale[(4, )](x, out, 2.0, BLOCK=64, launch_pdl=True)
    np.testing.assert_array_equal(out, 2 * x)
    scale[(4, )](x, out, 4.0, BLOCK=64, launch_cooperative_grid=True)
    np.testing.assert_array_equal(out, 4 * x)


def test_refused_options_say_why():
    x, out = _data()
    for name in ("stream", "device", "device_type"):
        with pytest.raises(kiln.ArgumentError, match=f"the {name} option is deprecated .as in Triton.: kiln launches "
                                                     "on the current torch device and stream"):
            scale[(4, )](x, out, 2.0, BLOCK=64, **{name: 0})
    with pytest.raises(kiln.ArgumentError, match="sanitize_overflow=True is not supported"):
        scale[(4, )](x, out, 2.0, BLOCK=64, sanitize_overflow=True)
    scale[(4, )](x, out, 2.0, BLOCK=64, sanitize_overflow=False, debug=True)
    np.testing.assert_array_equal(out, 2 * x)
    # Triton 3.2's warp-specialization knobs are not options of Triton 3.6 either.
    with pytest.raises(kiln.ArgumentError, match="unexpected keyword argument 'num_consumer_groups'"):
        scale[(4, )](x, out, 2.0, BLOCK=64, num_consumer_groups=2)


# ---- on the GPU

gpu = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device and torch")


@kiln.jit
def produce(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = offs.to(tl.float32)
    for _ in range(64):  # long enough that a dependent launch could start before it ends
        v = v * 1.0001 + 1.0
    tl.store(x_ptr + offs, v, mask=offs < n)


@kiln.jit
def consume(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.extra.cuda.gdc_wait()  # returns once `produce` (the previous kernel on the stream) has finished
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


@gpu
def test_a_programmatic_dependent_launch_waits_where_the_kernel_says():
    n = 1 << 22
    x = torch.empty(n, device="cuda")
    y = torch.empty(n, device="cuda")
    grid = (n // 1024, )
    for _ in range(3):
        x.fill_(-1.0)
        produce[grid](x, n, BLOCK=1024)
        consume[grid](x, y, n, BLOCK=1024, launch_pdl=True)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x + 1.0, rtol=0, atol=0)


@gpu
def test_a_cooperative_launch_runs_and_one_too_large_is_refused():
    x = torch.arange(256, device="cuda", dtype=torch.float32)
    out = torch.zeros_like(x)
    scale[(4, )](x, out, 2.0, BLOCK=64, launch_cooperative_grid=True)
    torch.cuda.synchronize()
    assert torch.equal(out, 2 * x)
    big = torch.zeros(1 << 24, device="cuda")
    with pytest.raises(kiln.ArgumentError, match="cooperative launch .launch_cooperative_grid=True. needs all "
                                                 "262144 programs resident at once"):
        scale[(1 << 18, )](big, big, 2.0, BLOCK=64, launch_cooperative_grid=True)


@gpu
def test_maxnreg_caps_the_registers_ptxas_gives_the_kernel():
    x = torch.arange(256, device="cuda", dtype=torch.float32)
    out = torch.zeros_like(x)
    k = scale[(4, )](x, out, 2.0, BLOCK=64, maxnreg=24)
    torch.cuda.synchronize()
    assert torch.equal(out, 2 * x)
    assert 0 < k.n_regs <= 24


@kiln.jit
def descriptor_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([0, k * BK]), b_desc.load([k * BK, 0]), acc)
    c_desc.store([0, 0], acc.to(tl.float16))


def test_warp_specialize_option_splits_the_tma_loop_and_keeps_the_results():
    """kiln's warp_specialize launch option (kiln.Config(warp_specialize=True)): the sm_90a code of the
    TMA loop gets a producer warpgroup (setmaxnreg), the option is part of the specialization, and the
    results (here on the interpreter) are those of the kernel without it."""
    from kiln.tools.tensor_descriptor import TensorDescriptor
    rng = np.random.default_rng(3)
    a = rng.standard_normal((128, 96)).astype(np.float16)
    b = rng.standard_normal((96, 64)).astype(np.float16)
    outs = []
    for ws in (False, True):
        c = np.zeros((128, 64), np.float16)
        descs = (TensorDescriptor.from_tensor(a, [128, 32]), TensorDescriptor.from_tensor(b, [32, 64]),
                 TensorDescriptor.from_tensor(c, [128, 64]))
        k = descriptor_matmul.warmup(*descs, 96, BM=128, BN=64, BK=32, num_warps=8, warp_specialize=ws, grid=(1, ))
        assert ("setmaxnreg" in k.asm["ptx"]) == ws
        outs.append(k.key)
        descriptor_matmul[(1, )](*descs, 96, BM=128, BN=64, BK=32, num_warps=8, warp_specialize=ws)
        np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=2e-2)
    assert outs[0] != outs[1]


def test_config_warp_specialize_is_a_launch_option():
    c = kiln.Config({"BLOCK": 64}, num_warps=8, warp_specialize=True)
    assert c.all_kwargs()["warp_specialize"] is True
    assert str(c).endswith("warp_specialize: True")
    assert "warp_specialize" not in kiln.Config({"BLOCK": 64}).all_kwargs()
