"""TMA stores: on sm_90a a tensor-descriptor store (desc.store) of a 2-D tile whose tensor TMA can copy
leaves through a shared buffer and one thread's cp.async.bulk.tensor to global memory (tma_store in the
GPU IR), and ptxas accepts it; on sm_80 it stays a pointer store. The interpreter runs the same kernels
as before: in-bounds elements written, the rest of the output untouched, at awkward sizes."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import kiln
import kiln.language as tl
from kiln.tools.tensor_descriptor import TensorDescriptor

PTXAS = os.environ.get("KILN_PTXAS") or shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)


@kiln.jit
def scale_into_descriptor(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    rows, cols = pm + tl.arange(0, BM), pn + tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=inside, other=0.0)
    y = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y.store([pm, pn], (x * 2.0).to(y_ptr.dtype.element_ty))


@kiln.jit
def negate_host_descriptors(x_desc, y_desc, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    y_desc.store([pm, pn], -x_desc.load([pm, pn]))


def _assembles(ptx, arch, tmp_path):
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(PTXAS is None, reason="no ptxas")
@pytest.mark.parametrize("dtype, BM, BN, boxes", [("fp16", 64, 128, 2), ("fp32", 32, 32, 1), ("fp16", 16, 16, 1)])
def test_descriptor_store_is_a_tma_store_on_sm_90a(dtype, BM, BN, boxes, tmp_path):
    k = scale_into_descriptor.warmup(f"*{dtype}:16", f"*{dtype}:16", "i32", "i32:16", BM=BM, BN=BN, grid=(1, 1))
    gpu_ir = k.stage("gpu-ir", "sm_90a")
    assert gpu_ir.count("tma_store ") == 1 and "tma_store_wait {pending = 0}" in gpu_ir
    assert "tensor_map " in gpu_ir
    ptx = k.stage("ptx", "sm_90a")
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == boxes
    assert "cp.async.bulk.wait_group.read 0;" in ptx and "fence.proxy.async.shared::cta;" in ptx
    assert "st.global" not in ptx, "the tile leaves through TMA only"
    _assembles(ptx, "sm_90a", tmp_path)
    ptx80 = k.stage("ptx", "sm_80")
    assert "cp.async.bulk" not in ptx80 and "st.global" in ptx80
    _assembles(ptx80, "sm_80", tmp_path)


@pytest.mark.skipif(PTXAS is None, reason="no ptxas")
def test_a_row_stride_not_proven_aligned_keeps_the_pointer_store():
    k = scale_into_descriptor.warmup("*fp16:16", "*fp16:16", "i32", "i32", BM=64, BN=64, grid=(1, 1))
    ptx = k.stage("ptx", "sm_90a")
    assert "cp.async.bulk.tensor" not in ptx and "st.global" in ptx


@pytest.mark.skipif(PTXAS is None, reason="no ptxas")
def test_host_descriptors_load_and_store_through_tma_maps(tmp_path):
    x, y = np.zeros((128, 64), np.float16), np.zeros((128, 64), np.float16)
    k = negate_host_descriptors.warmup(TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(y, [64, 64]),
                                       BM=64, BN=64, grid=(1, 1))
    ptx = k.stage("ptx", "sm_90a")
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 1
    _assembles(ptx, "sm_90a", tmp_path)


@pytest.mark.parametrize("M, N", [(37, 53), (64, 128), (1, 16)])
def test_in_bounds_elements_written_the_rest_untouched(backend, rng, M, N):
    BM, BN = 32, 64
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = backend.asarray(np.full((M + 3, N), 7.0, np.float32))  # rows past M: outside the descriptor
    scale_into_descriptor[(kiln.cdiv(M, BM), kiln.cdiv(N, BN))](backend.asarray(x), y, M, N, BM=BM, BN=BN)
    backend.sync()
    got = backend.numpy(y)
    assert np.array_equal(got[:M], x * 2.0) and np.all(got[M:] == 7.0)


def test_host_descriptors(backend, rng):
    M, N, BM, BN = 40, 48, 16, 32
    x = backend.asarray(rng.standard_normal((M, N)).astype(np.float32))
    y = backend.asarray(np.full((M, N), 3.0, np.float32))
    negate_host_descriptors[(kiln.cdiv(M, BM), kiln.cdiv(N, BN))](
        TensorDescriptor.from_tensor(x, [BM, BN]), TensorDescriptor.from_tensor(y, [BM, BN]), BM=BM, BN=BN)
    backend.sync()
    assert np.array_equal(backend.numpy(y), -backend.numpy(x))
