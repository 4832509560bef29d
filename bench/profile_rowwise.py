"""Runs the row-wise benchmark kernels once each through kiln and then through Triton (when installed),
for a profiler: layernorm fp16 and softmax fp32 at 4096x4096, the suite's sources and launch
configurations (each side autotuned first), two profiled launches per kernel and side, inside the NVTX
range "profile". Arguments ROWSxCOLS add shapes (to both kernels).
    ncu --nvtx --nvtx-include "profile/" python3 bench/profile_rowwise.py [32768x4096 ...]
"""
import importlib.util
import os
import sys

import torch

import kiln
import kiln.compat

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")


def kernels_of(loader):
    return [loader(name) for name in ("layernorm", "softmax")]


def as_kiln(name):
    return kiln.compat.import_as_triton(os.path.join(here, name + ".py"))


def as_triton(name):
    spec = importlib.util.spec_from_file_location("triton_" + name, os.path.join(here, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sides = [kernels_of(as_kiln)]
if importlib.util.find_spec("triton") is not None:
    sides.append(kernels_of(as_triton))
torch.manual_seed(0)
shapes = [(4096, 4096)] + [tuple(int(n) for n in a.split("x")) for a in sys.argv[1:]]


def layernorm_inputs(rows, cols):
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    w, b = (torch.randn(cols, device="cuda", dtype=torch.float16) for _ in range(2))
    return x, w, b, 1e-5, torch.empty_like(x), torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")


layernorm_args = [layernorm_inputs(r, c) for r, c in shapes]
softmax_args = [(torch.randn(r, c, device="cuda"), torch.empty(r, c, device="cuda")) for r, c in shapes]
for layernorm, softmax in sides:
    for profiled in (False, True, True):  # autotuning on the first pass; ncu --nvtx-include profile/
        if profiled:
            torch.cuda.nvtx.range_push("profile")
        for args in layernorm_args:
            layernorm.layer_norm(*args)
        for args in softmax_args:
            softmax.softmax(*args)
        torch.cuda.synchronize()
        if profiled:
            torch.cuda.nvtx.range_pop()
x, w, b, eps, y = layernorm_args[0][:5]
ref = torch.nn.functional.layer_norm(x.float(), (x.shape[1],), w.float(), b.float(), eps)
print("max layernorm error", (y.float() - ref).abs().max().item())
