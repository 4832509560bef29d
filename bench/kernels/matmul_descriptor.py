# Matmul through tensor descriptors built in the kernel: one program per C tile (grouped order), A [M, K]
# and B [K, N] both row-major, read block by block with desc.load. On Hopper kiln copies both with TMA
# (bench/descriptor_matmul_ab.py compares it with Triton on this same source and with cuBLAS).
# WARP_SPECIALIZE asks for the k loop on warp partitions (a producer warpgroup issuing the copies).
import triton
import triton.language as tl


@triton.jit
def matmul_descriptor_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                             GROUP_SIZE_M: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    acc = tl.zeros([BLOCK_SIZE_M, BLOCK_SIZE_N], dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
        b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(c_ptr.dtype.element_ty))


def _scratch(size, alignment, stream):
    """Global memory for the descriptors Triton builds on the device (kiln encodes them on the host)."""
    import torch
    return torch.empty(size, device="cuda", dtype=torch.int8)


def launch(a, b, c, warp_specialize=False, **meta):
    M, K = a.shape
    N = b.shape[1]
    if a.stride() != (K, 1) or b.stride() != (N, 1) or c.stride() != (N, 1):
        raise ValueError("matmul_descriptor: a, b and c must be contiguous")
    triton.set_allocator(_scratch)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
    return matmul_descriptor_kernel[grid](a, b, c, M, N, K, GROUP_SIZE_M=8, WARP_SPECIALIZE=warp_specialize, **meta)
