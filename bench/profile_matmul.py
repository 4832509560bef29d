"""Runs kiln's matmul (bench/kernels/matmul.py) once at 4096^3 fp16 with one config, for a profiler:
    ncu --section WarpStateStats --section SpeedOfLight -k regex:matmul python3 bench/profile_matmul.py
Arguments: BLOCK_M BLOCK_N BLOCK_K num_warps num_stages [MxNxK] (default 128 256 64 8 4 4096x4096x4096)."""
import os
import sys

import torch

import kiln

here = os.path.dirname(os.path.abspath(__file__))
mm = kiln.compat.import_as_triton(os.path.join(here, "kernels", "matmul.py"))
args = sys.argv[1:] or ["128", "256", "64", "8", "4"]
bm, bn, bk, w, s = (int(x) for x in args[:5])
m, n, k = (int(x) for x in (args[5] if len(args) > 5 else "4096x4096x4096").split("x"))
a = torch.randn(m, k, device="cuda", dtype=torch.float16)
b = torch.randn(k, n, device="cuda", dtype=torch.float16)
c = torch.empty(m, n, device="cuda", dtype=torch.float16)
config = kiln.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                     num_warps=w, num_stages=s)
for _ in range(2):
    mm.matmul_with_config(a, b, c, config)
torch.cuda.synchronize()
print("max error", (c.float() - a.float() @ b.float()).abs().max().item())
