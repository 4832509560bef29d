"""Runs the row-wise benchmark kernels once each through kiln and then through Triton (when installed),
for a profiler: layernorm fp16 4096x4096 and softmax fp32 4096x4096, the suite's sources and launch
configurations, two launches per kernel and side. Arguments ROWSxCOLS add softmax shapes.
    ncu -k regex:"layer_norm|softmax" python3 bench/profile_rowwise.py [32768x4096 ...]
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
rows = cols = 4096
x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
w, b = (torch.randn(cols, device="cuda", dtype=torch.float16) for _ in range(2))
y, mean, rstd = torch.empty_like(x), torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")
softmax_shapes = [(rows, cols)] + [tuple(int(n) for n in a.split("x")) for a in sys.argv[1:]]
softmax_inputs = [(torch.randn(r, c, device="cuda"), torch.empty(r, c, device="cuda")) for r, c in softmax_shapes]
for layernorm, softmax in sides:
    for _ in range(2):
        layernorm.layer_norm(x, w, b, 1e-5, y, mean, rstd)
        for xs, ys in softmax_inputs:
            softmax.softmax(xs, ys)
torch.cuda.synchronize()
print("max layernorm error", (y.float() - torch.nn.functional.layer_norm(x.float(), (cols,), w.float(), b.float())).abs().max().item())
