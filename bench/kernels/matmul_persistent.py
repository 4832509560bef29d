# Persistent matrix multiplication C = A @ B through tensor descriptors (the kernel shape of Triton
# tutorial 09): a fixed grid of at most NUM_SMS programs (one per streaming multiprocessor) walks
# the output tiles, program p taking tiles p, p + NUM_SMS, p + 2 * NUM_SMS, ... in grouped order
# (GROUP_SIZE_M block-rows at a time, so tiles that run together share blocks of A and B in L2).
# A [M, K], B^T [N, K] (B K-major) and C [M, N] are read and written through descriptors made on the
# device, which pad what lies past an edge with zeros and skip it on stores: any M, N and K work as
# long as the row strides K and N are multiples of 8 elements (a descriptor's 16-byte alignment).
# fp16 in, fp16 out, fp32 accumulation.
import triton
import triton.language as tl


def get_configs():
    # Hopper tiles: 128x256x64 at 8 warps for large squares, 128x128x64 at 8 and 4 warps where
    # fewer tiles (or fewer registers per thread) do better.
    c = lambda bm, bn, bk, w, s: triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8}, num_warps=w, num_stages=s)
    return [c(128, 256, 64, 8, 3), c(128, 128, 64, 8, 4), c(128, 128, 64, 4, 4)]


@triton.jit
def tile_coordinates(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    """(block row, block column) of output tile `tile_id` in grouped order."""
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_persistent_kernel(
        a_ptr, bt_ptr, c_ptr,
        M, N, K,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
        GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr = False,
):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    bt_desc = tl.make_tensor_descriptor(bt_ptr, shape=[N, K], strides=[K, 1],
                                        block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])

    # The epilogue finds its tile from a counter of its own rather than from tile_id, so a compiler that
    # flattens the two loops (flatten=True) need not keep the main loop's tile id alive until the store.
    tile_id_c = start_pid - NUM_SMS
    # WARP_SPECIALIZE (tutorial 09's flag): a producer warpgroup copies the tiles, running ahead into the
    # next tile while the consumers store this one (kiln on sm_90a; Triton 3.6 cannot on Hopper).
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = tile_coordinates(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            bt = bt_desc.load([offs_bn, offs_k])  # zero past K on both operands: the tail adds nothing
            accumulator = tl.dot(a, bt.T, accumulator)

        tile_id_c += NUM_SMS
        pid_m, pid_n = tile_coordinates(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], accumulator.to(c_ptr.dtype.element_ty))


matmul_persistent_kernel_autotuned = triton.autotune(configs=get_configs(), key=["M", "N", "K"])(
    matmul_persistent_kernel)


def _scratch(size, alignment, stream):
    """Global memory for the descriptors Triton builds on the device (kiln builds none and never calls it)."""
    import torch
    return torch.empty(size, device="cuda", dtype=torch.int8)


def device_sm_count(t):
    """The number of streaming multiprocessors of the CUDA device holding t."""
    import torch
    return torch.cuda.get_device_properties(t.device).multi_processor_count


def _launch(kernel, a, b, c, num_sms, warp_specialize=False, **meta):
    M, K = a.shape
    K2, N = b.shape
    if K2 != K or tuple(c.shape) != (M, N):
        raise ValueError(f"matmul_persistent: shapes {tuple(a.shape)} @ {tuple(b.shape)} -> {tuple(c.shape)}")
    bt = b.T  # [N, K]
    if a.stride(1) != 1 or a.stride(0) != K or bt.stride(1) != 1 or bt.stride(0) != K or c.stride() != (N, 1):
        raise ValueError("matmul_persistent: a and c must be contiguous and b the transpose of a contiguous [N, K] "
                         f"tensor; strides a {a.stride()}, b {b.stride()}, c {c.stride()}")
    if num_sms is None:
        num_sms = device_sm_count(a)
    triton.set_allocator(_scratch)
    grid = lambda META: (min(num_sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])), )
    if warp_specialize:
        meta["WARP_SPECIALIZE"] = True
    return kernel[grid](a, bt, c, M, N, K, NUM_SMS=num_sms, **meta)


def matmul_persistent(a, b, c, num_sms=None):
    """c = a @ b with the autotuned kernel: a [M, K] contiguous, b [K, N] K-major (the transpose of a
    contiguous [N, K] tensor), c [M, N] contiguous, fp16. num_sms: the number of programs at most
    (default: the device's multiprocessor count). Returns what the launch returns."""
    return _launch(matmul_persistent_kernel_autotuned, a, b, c, num_sms)


def matmul_persistent_with_config(a, b, c, config, num_sms=None, warp_specialize=False):
    """The same with one config of get_configs() (for tuning outside the autotuner)."""
    return _launch(matmul_persistent_kernel, a, b, c, num_sms, warp_specialize, **config.kwargs,
                   num_warps=config.num_warps, num_stages=config.num_stages)
