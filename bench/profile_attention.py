"""Runs kiln's flash attention (bench/kernels/attention.py) at B4 H32 N4096 (or N_CTX) fp16 with one config, twice,
for a profiler:
    ncu --section WarpStateStats -k regex:attn -c 1 -s 1 python3 bench/profile_attention.py 64 64 64 4 3
Arguments: HEAD_DIM BLOCK_M BLOCK_N num_warps num_stages [N_CTX] (default 64 128 64 4 3 4096)."""
import math
import os
import sys

import torch

import kiln

here = os.path.dirname(os.path.abspath(__file__))
att = kiln.compat.import_as_triton(os.path.join(here, "kernels", "attention.py"))
args = sys.argv[1:] or ["64", "128", "64", "4", "3"]
d, bm, bn, w, s = (int(x) for x in args[:5])
n = int(args[5]) if len(args) > 5 else 4096
q, k, v = (torch.randn(4, 32, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
m = torch.empty((4, 32, n), device="cuda", dtype=torch.float32)
config = kiln.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=w, num_stages=s)
for _ in range(2):
    att.attention_with_config(q, k, v, 1.0 / math.sqrt(d), m, o, config)
torch.cuda.synchronize()
print("mean |out|", o.float().abs().mean().item())
