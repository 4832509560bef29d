# Blocked matrix multiplication C = A @ B (Triton tutorial 03) with an fp32 accumulator; C takes the
# element type of its pointer (fp16 or bf16). Program ids are grouped GROUP_SIZE_M block-rows at a
# time so programs that run together share A and B blocks in L2. Any M, N, K work: rows of A and
# columns of B past the edge wrap around (% M, % N) and are never stored, the K tail is masked to
# zero, and the store is masked on both edges. Each side autotunes over the same small config list.
import triton
import triton.language as tl


def _config(bm, bn, bk, w, s):
    return triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                         num_warps=w, num_stages=s)


def get_configs():
    # 128x256x64 / 128x128x64 at 8 warps are the usual Hopper winners for large squares; the 64-row
    # and 64-column tiles cover skinny M (127 rows) and short K (512) where big tiles leave SMs idle;
    # at 6 stages they keep enough of B in flight for a skinny M's long K loop, which streams B from
    # memory on as few as 128 programs; 128x128x64 at 3 stages fits two programs on a multiprocessor.
    c = _config
    return _kiln_schedules() + [
        c(128, 256, 64, 8, 3),
        c(128, 256, 64, 8, 4),
        c(256, 128, 64, 8, 3),
        c(128, 256, 32, 8, 5),
        c(128, 128, 64, 8, 4),
        c(128, 128, 64, 8, 3),
        c(128, 128, 64, 4, 4),
        c(64, 128, 64, 4, 4),
        c(64, 128, 64, 4, 6),
        c(128, 64, 64, 4, 4),
        c(128, 64, 64, 4, 6),
        c(64, 256, 64, 4, 3),
    ]


def _kiln_schedules():
    """Under kiln: the same kernel also run persistent and warp-specialized (kiln.Config options Triton's
    Config lacks), so that at short K the next tile's copies overlap this tile's epilogue."""
    if getattr(triton, "__kiln__", None) is None:
        return []
    return [triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
                          num_warps=8, num_stages=3, warp_specialize=True, persistent=True)]


def get_fp8_configs():
    # Tutorial 03's "good config for fp8 inputs" (BLOCK_SIZE_K 128: a 64-wide K step of 1-byte elements
    # is half the tensor-core work per pipeline stage that it is for fp16), and the two 128x256x64
    # configs that win fp8 in the list above.
    c = _config
    return [
        c(128, 256, 128, 8, 3),
        c(256, 128, 128, 8, 3),
        c(256, 64, 128, 4, 4),
        c(64, 256, 128, 4, 4),
        c(128, 128, 128, 4, 4),
        c(128, 256, 64, 8, 3),
        c(128, 256, 64, 8, 4),
    ]


@triton.jit
def matmul_kernel(
        a_ptr, b_ptr, c_ptr,
        M, N, K,
        stride_am, stride_ak,
        stride_bk, stride_bn,
        stride_cm, stride_cn,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
        GROUP_SIZE_M: tl.constexpr,
):
    # Map the program id to the block of C it computes, in grouped order.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        # Zero the tail of K so it adds nothing to the dot product.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# The same kernel under the autotuner; both sides tune for themselves (the key is the problem size;
# Triton also keys on the dtypes).
matmul_kernel_autotuned = triton.autotune(configs=get_configs(), key=["M", "N", "K"])(matmul_kernel)
matmul_fp8_kernel_autotuned = triton.autotune(configs=get_fp8_configs(), key=["M", "N", "K"])(matmul_kernel)


def _launch(kernel, a, b, c, **meta):
    M, K = a.shape
    _, N = b.shape
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
    return kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), **meta)


def matmul(a, b, c):
    """c = a @ b with the autotuned kernel (a [M, K], b [K, N], c [M, N]; one dtype); returns what the
    launch returns (Triton: the compiled kernel)."""
    return _launch(matmul_kernel_autotuned, a, b, c)


def matmul_fp8(a, b, c):
    """c = a @ b for fp8 a and b, tuned over get_fp8_configs()."""
    return _launch(matmul_fp8_kernel_autotuned, a, b, c)


def matmul_with_config(a, b, c, config):
    """c = a @ b with one config (of get_configs() or get_fp8_configs(): for tuning outside the autotuner)."""
    schedule = {k: True for k in ("warp_specialize", "persistent") if getattr(config, k, None)}
    return _launch(matmul_kernel, a, b, c, **config.kwargs, num_warps=config.num_warps,
                   num_stages=config.num_stages, **schedule)
