# Attention through pointer loads (bench/kernels/attention.py) against the same kernel through rank-2
# tensor descriptors (bench/attention_forms_kernel.py: K and V copied by TMA on Hopper), at fixed configs,
# on one side per process (kiln or Triton, the same sources). Prints one line per (case, form, config):
# median ms (bench/timing.py), TFLOP/s and the error against SDPA. On the device machine:
#   PYTHONPATH=/tmp/kb/python python3 bench/attention_forms.py kiln
#   python3 bench/attention_forms.py triton
import importlib
import importlib.util
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import timing  # noqa: E402

CONFIGS = [(128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 3), (128, 64, 4, 3)]  # BLOCK_M, BLOCK_N, warps, stages
CASES = [(4, 32, 4096, 64, False), (4, 32, 4096, 128, False), (4, 32, 4096, 128, True)]  # Z, H, N_CTX, D, causal


def load(side):
    paths = {"ptr": os.path.join(HERE, "kernels", "attention.py"), "desc": os.path.join(HERE, "attention_forms_kernel.py")}
    if side == "kiln":
        compat = importlib.import_module("kiln.compat")
        mods = {k: compat.import_as_triton(p, module_name="forms_" + k) for k, p in paths.items()}
        return mods, compat.triton
    import triton
    mods = {}
    for k, p in paths.items():
        spec = importlib.util.spec_from_file_location("forms_" + k, p)
        mods[k] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[k])
    return mods, triton


def main(side):
    mods, triton = load(side)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    for z, h, n, d, causal in CASES:
        g = torch.Generator(device="cuda").manual_seed(1)
        q, k, v = (torch.randn(z, h, n, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
        scale, flops = 1 / math.sqrt(d), 4.0 * z * h * n * n * d * (0.5 if causal else 1.0)
        for bm, bn, w, s in CONFIGS:
            for form in ("ptr", "desc"):
                o, m = torch.empty_like(q), torch.empty((z, h, n), device="cuda", dtype=torch.float32)
                grid = (triton.cdiv(n, bm), z * h, 1)
                meta = dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, num_warps=w, num_stages=s)
                if form == "ptr":
                    fn = lambda: mods["ptr"].attn_fwd[grid](q, k, v, scale, m, o, *q.stride(), *k.stride(), *v.stride(),
                                                            *o.stride(), h, n, **meta)
                else:
                    fn = lambda: mods["desc"].attn_fwd_desc[grid](q, k, v, scale, m, o, *q.stride()[:3], *k.stride()[:3],
                                                                  *v.stride()[:3], *o.stride()[:3], z, h, n, z * h * n, **meta)
                name = f"{side:6} {form:4} D{d}{'c' if causal else ' '} {bm}x{bn} w{w} s{s}"
                try:
                    fn()
                    torch.cuda.synchronize()
                    err = ((o.float() - ref).abs().max() / ref.abs().max()).item()
                    ms = timing.do_bench(fn, rep_ms=60.0).median
                    print(f"{name}: {ms:.4f} ms {flops / ms / 1e9:.1f} TFLOP/s err {err:.1e}", flush=True)
                except Exception as ex:  # one failing config does not hide the others
                    print(f"{name}: FAILED {type(ex).__name__}: {str(ex)[:300]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "kiln")
