"""kiln's persistent launch option (kiln.Config(persistent=True), docs/schedule.md "persistent"): a kernel
written one tile per program runs on at most one wave of programs, each walking the grid's programs in
launch order, program_id and num_programs reading the grid the launch was given. On the interpreter the
option changes nothing; on the GPU the results are those of the kernel without it."""
import numpy as np
import pytest

import kiln
import kiln.language as tl
from conftest import HAS_CUDA, torch

gpu = pytest.mark.skipif(not HAS_CUDA, reason="needs torch with a CUDA device")


@kiln.jit
def grid_ids(out, BLOCK: tl.constexpr):
    """Each program writes its linear id (x fastest) and the grid's size into its own block of out."""
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    linear = (z * ny + y) * nx + x
    offs = linear * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offs, linear * 1000 + nx * ny * tl.num_programs(2) + tl.arange(0, BLOCK) * 0)


@kiln.jit
def tile_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                WS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK), warp_specialize=WS):
        acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


def _want_ids(grid, block):
    nx, ny, nz = grid
    out = np.empty(nx * ny * nz * block, np.int32)
    for linear in range(nx * ny * nz):
        out[linear * block:(linear + 1) * block] = linear * 1000 + nx * ny * nz
    return out


def test_the_option_is_part_of_the_specialization_and_adds_the_grid_parameters():
    plain = grid_ids.warmup(np.zeros(64, np.int32), BLOCK=8, grid=(2, 2, 2))
    pers = grid_ids.warmup(np.zeros(64, np.int32), BLOCK=8, persistent=True, grid=(2, 2, 2))
    assert plain.key != pers.key
    assert "grid_ids_grid_x" in pers.asm["ptx"] and "grid_ids_grid_x" not in plain.asm["ptx"]


def test_config_persistent_is_a_launch_option():
    c = kiln.Config({"BLOCK": 64}, num_warps=8, warp_specialize=True, persistent=True)
    assert c.all_kwargs()["persistent"] is True
    assert str(c).endswith("persistent: True")
    assert "persistent" not in kiln.Config({"BLOCK": 64}).all_kwargs()


def test_on_the_interpreter_the_option_changes_nothing():
    grid = (3, 2, 2)
    out = np.zeros(12 * 8, np.int32)
    grid_ids[grid](out, BLOCK=8, persistent=True)
    np.testing.assert_array_equal(out, _want_ids(grid, 8))


@gpu
@pytest.mark.parametrize("grid", [(5, 1, 1), (3, 4, 5), (40000, 1, 1), (7, 300, 3)])
def test_every_program_of_the_grid_runs_once(grid):
    """Grids within one wave and far beyond it, in one to three dimensions: each program writes its block."""
    block = 8
    out = torch.full((grid[0] * grid[1] * grid[2] * block, ), -1, device="cuda", dtype=torch.int32)
    grid_ids[grid](out, BLOCK=block, persistent=True)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), _want_ids(grid, block))


@gpu
@pytest.mark.parametrize("ws", [False, True])
@pytest.mark.parametrize("m, n, k", [(1, 136, 200), (150, 136, 200), (1000, 520, 72), (2048, 2048, 512)])
def test_descriptor_matmul_persistent(m, n, k, ws):
    """The tile loop around a TMA k loop, warp-specialized or not, at sizes no tile divides (M = 1, K not a
    multiple of BK) and at more tiles than one wave holds."""
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    kiln.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    want = (a.double() @ b.double()).float()
    for bm, bn, w in [(128, 128, 8), (64, 64, 4)]:
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        grid = (triton_cdiv(m, bm) * triton_cdiv(n, bn), )
        tile_matmul[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=64, WS=ws, num_warps=w, num_stages=3, persistent=True)
        torch.cuda.synchronize()
        torch.testing.assert_close(c.float(), want, rtol=2e-2, atol=5e-2)


@gpu
@pytest.mark.parametrize("bn, stages", [(128, 3), (256, 3)])
@pytest.mark.parametrize("m, n, k, pad", [(1000, 520, 200, 0), (1000, 520, 200, 4), (2048, 2048, 512, 0)])
def test_tutorial_matmul_persistent_warp_specialized(m, n, k, pad, bn, stages):
    """The tutorial matmul (bench/kernels/matmul.py: pointer-built tiles behind a run-time check) persistent
    and warp-specialized: with A's rows padded by 4 elements (8-byte aligned) the check fails and every
    tile runs the consumers' cp.async version (at 128x256 unpipelined: the TMA slots leave room for no
    more), otherwise the producer's TMA copies."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    mm = kiln.compat.import_as_triton(os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", "matmul.py"))
    torch.manual_seed(1)
    a = torch.randn(m, k + pad, device="cuda", dtype=torch.float16)[:, :k]
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    mm._launch(mm.matmul_kernel, a, b, c, BLOCK_SIZE_M=128, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
               num_warps=8, num_stages=stages, persistent=True, warp_specialize=True)
    torch.cuda.synchronize()
    torch.testing.assert_close(c.float(), (a.double() @ b.double()).float(), rtol=2e-2, atol=5e-2)


def triton_cdiv(x, y):
    return (x + y - 1) // y


@kiln.jit
def prints(out):
    pid = tl.program_id(0)
    tl.device_print("pid ", pid)
    tl.store(out + pid, pid)


@gpu
def test_a_kernel_that_prints_runs_one_program_per_tile(capfd):
    import re
    out = torch.zeros(4, device="cuda", dtype=torch.int32)
    prints[(4, )](out, persistent=True)
    torch.cuda.synchronize()
    assert out.tolist() == [0, 1, 2, 3]
    # (every thread prints the scalar; the message names the program by the CTA's index, each its own)
    lines = [line for line in capfd.readouterr().out.splitlines() if "pid " in line]
    assert lines and all(re.fullmatch(r"pid \((\d), 0, 0\) idx \(\) pid: \1", line) for line in lines), lines[:4]
    assert {line[5] for line in lines} == {"0", "1", "2", "3"}
