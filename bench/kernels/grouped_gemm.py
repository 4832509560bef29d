# A group of independent fp16 matmuls C_g = A_g @ B_g of different sizes in one launch (the problem
# of Triton's tutorial 08, written the way that tutorial writes it). The host passes device arrays:
# the base pointers of every A, B and C (int64 addresses), each problem's M, N, K and each one's
# leading dimensions. A fixed number of programs walk the tiles of all problems in order, each taking
# every NUM_SM-th tile. Tiles are full (every M, N, K a multiple of the block sizes), as in the
# tutorial. The alignment promises are statements whose result is not used, as in the tutorial:
# Triton attaches such a hint to the value itself, so kiln must too.
import torch
import triton
import triton.language as tl


def get_configs():
    c = lambda bm, bn, bk, sms, w, s: triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "NUM_SM": sms}, num_warps=w, num_stages=s)
    return [
        c(128, 128, 32, 84, 4, 3),
        c(128, 128, 32, 128, 4, 3),
        c(64, 64, 32, 84, 4, 3),
        c(64, 64, 32, 128, 4, 3),
        c(128, 128, 64, 132, 4, 3),
        c(64, 128, 64, 132, 4, 3),
    ]


@triton.jit
def grouped_gemm_kernel(
        a_ptrs, b_ptrs, c_ptrs,  # int64 device arrays: each problem's base addresses
        sizes,  # int32 [G, 3]: M, N, K of each problem
        lds,  # int32 [G, 3]: leading dimensions of A, B and C
        group_size,
        NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    tile = tl.program_id(0)
    first_tile = 0  # the first tile of problem g in the global tile order
    for g in range(group_size):
        m = tl.load(sizes + g * 3)
        n = tl.load(sizes + g * 3 + 1)
        k = tl.load(sizes + g * 3 + 2)
        tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
        tiles = tl.cdiv(m, BLOCK_SIZE_M) * tiles_n
        while tile >= first_tile and tile < first_tile + tiles:
            lda = tl.load(lds + g * 3)
            ldb = tl.load(lds + g * 3 + 1)
            ldc = tl.load(lds + g * 3 + 2)
            a_base = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_base = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_base = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_m = (tile - first_tile) // tiles_n
            tile_n = (tile - first_tile) % tiles_n
            rows = tile_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            cols = tile_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            ks = tl.arange(0, BLOCK_SIZE_K)
            a_tile = a_base + rows[:, None] * lda + ks[None, :]
            b_tile = b_base + ks[:, None] * ldb + cols[None, :]
            acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for _ in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                tl.multiple_of(a_tile, [16, 16])
                tl.multiple_of(b_tile, [16, 16])
                acc += tl.dot(tl.load(a_tile), tl.load(b_tile))
                a_tile += BLOCK_SIZE_K
                b_tile += BLOCK_SIZE_K * ldb
            c_tile = c_base + rows[:, None] * ldc + cols[None, :]
            tl.store(c_tile, acc.to(tl.float16))
            tile += NUM_SM
        first_tile += tiles


grouped_gemm_kernel_autotuned = triton.autotune(configs=get_configs(), key=["group_size"])(grouped_gemm_kernel)


def problem_arrays(group_a, group_b, group_c):
    """The device arrays the kernel reads: base addresses, sizes and leading dimensions."""
    dev = group_a[0].device
    addrs = lambda ts: torch.tensor([t.data_ptr() for t in ts], device=dev, dtype=torch.int64)
    sizes = [d for a, b in zip(group_a, group_b) for d in (a.shape[0], b.shape[1], a.shape[1])]
    lds = [d for a, b, c in zip(group_a, group_b, group_c) for d in (a.stride(0), b.stride(0), c.stride(0))]
    return (addrs(group_a), addrs(group_b), addrs(group_c), torch.tensor(sizes, device=dev, dtype=torch.int32),
            torch.tensor(lds, device=dev, dtype=torch.int32), len(group_a))


def _launch(kernel, arrays, **meta):
    grid = lambda META: (META["NUM_SM"], )
    return kernel[grid](*arrays, **meta)


def grouped_gemm(arrays):
    """Every C_g = A_g @ B_g of problem_arrays(...) with the autotuned kernel."""
    return _launch(grouped_gemm_kernel_autotuned, arrays)


def grouped_gemm_with_config(arrays, config):
    return _launch(grouped_gemm_kernel, arrays, **config.kwargs, num_warps=config.num_warps,
                   num_stages=config.num_stages)
