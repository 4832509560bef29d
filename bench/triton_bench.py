# The kiln benchmark cases (bench/kiln_bench.cpp) run with Triton and PyTorch on the same example kernels,
# shapes and configurations; prints a markdown table (Triton vs PyTorch) and the device copy bandwidth.
import math
import os
import sys
import traceback

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

from vector_add import add_kernel  # noqa: E402
from softmax import softmax_kernel  # noqa: E402
from layernorm import layer_norm_fwd_kernel  # noqa: E402
from matmul import matmul_kernel  # noqa: E402
from flash_attention import attn_fwd  # noqa: E402

ATTN_BLOCK_M, ATTN_BLOCK_N, ATTN_WARPS = 64, 32, 4  # as kiln_bench.cpp


def bench(fn):
    return triton.testing.do_bench(fn, return_mode="median")


def rel_err(got, ref):
    return ((got.float() - ref.float()).abs().max() / max(1.0, ref.float().abs().max().item())).item()


def case_vector_add():
    n = 1 << 28
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    tri = lambda: add_kernel[(n // 1024, )](x, y, out, n, BLOCK_SIZE=1024)
    return tri, lambda: x + y, out, 3 * n * 4, 0, 1e-6


def make_softmax(rows, cols):
    def case():
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        programs = min(rows, torch.cuda.get_device_properties(0).multi_processor_count * 4)
        tri = lambda: softmax_kernel[(programs, )](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK_SIZE=block,
                                                   num_stages=4, num_warps=8 if block >= 2048 else 4)
        return tri, lambda: torch.softmax(x, dim=1), y, 2 * rows * cols * 4, 0, 1e-5
    return case


def case_layernorm():
    rows, cols, eps = 4096, 4096, 1e-5
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    w = torch.randn(cols, device="cuda", dtype=torch.float16)
    b = torch.randn(cols, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    mean = torch.empty(rows, device="cuda", dtype=torch.float32)
    rstd = torch.empty(rows, device="cuda", dtype=torch.float32)
    tri = lambda: layer_norm_fwd_kernel[(rows, )](x, y, w, b, mean, rstd, x.stride(0), cols, eps, BLOCK_SIZE=1024,
                                                  num_warps=8)
    ref = lambda: torch.nn.functional.layer_norm(x, (cols, ), w, b, eps)
    return tri, ref, y, 2 * rows * cols * 2 + 2 * cols * 2 + 2 * rows * 4, 0, 2e-2


def make_matmul(n):
    def case():
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16)
        c = torch.empty(n, n, device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(n, 128) * triton.cdiv(n, 128), )
        tri = lambda: matmul_kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                          c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
                                          BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_warps=8, num_stages=3)
        return tri, lambda: torch.matmul(a, b), c, 0, 2.0 * n * n * n, 1e-2
    return case


def case_attention():
    Z, H, N, D = 4, 32, 4096, 64
    q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    m = torch.empty(Z, H, N, device="cuda", dtype=torch.float32)
    scale = 1.0 / math.sqrt(D)
    grid = (triton.cdiv(N, ATTN_BLOCK_M), Z * H, 1)
    tri = lambda: attn_fwd[grid](q, k, v, scale, m, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), H, N,
                                 HEAD_DIM=D, BLOCK_M=ATTN_BLOCK_M, BLOCK_N=ATTN_BLOCK_N, CAUSAL=False,
                                 num_warps=ATTN_WARPS, num_stages=3)
    ref = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=False)
    return tri, ref, o, 0, 4.0 * Z * H * N * N * D, 1e-2


CASES = [
    ("vector add fp32 2^28", case_vector_add),
    ("softmax fp32 4096x1024", make_softmax(4096, 1024)),
    ("softmax fp32 4096x4096", make_softmax(4096, 4096)),
    ("layernorm fp16 4096x4096", case_layernorm),
    ("matmul fp16 4096^3", make_matmul(4096)),
    ("matmul fp16 3000^3", make_matmul(3000)),
    ("attention fp16 B4 H32 N4096 D64", case_attention),
]


def rate(ms, nbytes, flops):
    return f"{nbytes / (ms * 1e-3) / 1e9:.0f} GB/s" if nbytes else f"{flops / (ms * 1e-3) / 1e12:.1f} TFLOP/s"


def cell(text):
    return str(text).replace("|", "/").replace("\n", " ")[:300]


def run_case(name, make):
    row = {"name": name, "tms": "-", "trate": "-", "pms": "-", "prate": "-", "check": "-"}
    try:
        tri, ref, out, nbytes, flops, tol = make()
        expected = ref()
        tri()
        torch.cuda.synchronize()
        err = rel_err(out, expected)
        row["check"] = f"{'ok' if err <= tol else 'MISMATCH'} (err {err:.1e})"
        ms = bench(tri)
        row["tms"], row["trate"] = f"{ms:.4f}", rate(ms, nbytes, flops)
        ms = bench(ref)
        row["pms"], row["prate"] = f"{ms:.4f}", rate(ms, nbytes, flops)
    except Exception as e:  # a failing case goes in the table, the others still run
        traceback.print_exc(file=sys.stderr)
        row["check"] = "ERROR: " + cell(f"{type(e).__name__}: {e}")
    finally:
        torch.cuda.empty_cache()
    print(f"{name}: {row}", file=sys.stderr, flush=True)
    return row


def copy_bandwidth():
    try:
        x = torch.empty(1 << 30, device="cuda", dtype=torch.float32).normal_()  # 4 GiB
        ms = bench(lambda: x.clone())
        del x
        torch.cuda.empty_cache()
        return f"{2 * (1 << 30) * 4 / (ms * 1e-3) / 1e9:.0f} GB/s (4 GiB fp32 clone, {ms:.3f} ms)"
    except Exception as e:
        return "ERROR: " + cell(f"{type(e).__name__}: {e}")


def main():
    props = torch.cuda.get_device_properties(0)
    print(f"# Triton {triton.__version__} and PyTorch {torch.__version__} on {props.name} "
          f"({props.multi_processor_count} SMs)\n")
    rows = [run_case(name, make) for name, make in CASES]
    print("| case | Triton ms | Triton GB/s or TFLOP/s | PyTorch ms | PyTorch GB/s or TFLOP/s | Triton vs PyTorch |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name']} | {r['tms']} | {r['trate']} | {r['pms']} | {r['prate']} | {r['check']} |")
    print(f"\nDevice copy bandwidth: {copy_bandwidth()}")


if __name__ == "__main__":
    main()
