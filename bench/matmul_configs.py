"""Times kiln's matmul (bench/kernels/matmul.py) with every config of its list, at a few shapes, beside
cuBLAS (torch.matmul), for tuning the code generator rather than for the record (bench/suite.py is the
record). Each result is checked against cuBLAS. --kernel persistent times tutorial 09's persistent
kernel (bench/kernels/matmul_persistent.py: B K-major, one program per SM) instead, persistent-ws the
same with its tile loop warp-specialized; descriptor times the one-tile-per-program descriptor kernel
(bench/kernels/matmul_descriptor.py). --schedule adds kiln's compile options to every launch of the
kernels written one tile per program: ws (warp_specialize), persistent, or persistent-ws (both).

    PYTHONPATH=BUILD/python python3 bench/matmul_configs.py [--shapes 4096,4096,4096 3000,3000,3000] [--dtype fp16]
        [--kernel matmul|descriptor|persistent|persistent-ws] [--schedule plain|ws|persistent|persistent-ws]
        [--configs BM,BN,BK,warps,stages ...]
"""
import argparse
import os
import sys

import torch

import kiln

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from timing import do_bench  # noqa: E402

mm = kiln.compat.import_as_triton(os.path.join(here, "kernels", "matmul.py"))
persistent = kiln.compat.import_as_triton(os.path.join(here, "kernels", "matmul_persistent.py"))
descriptor = kiln.compat.import_as_triton(os.path.join(here, "kernels", "matmul_descriptor.py"))
SCHEDULES = {"plain": {}, "ws": {"warp_specialize": True}, "persistent": {"persistent": True},
             "persistent-ws": {"warp_specialize": True, "persistent": True}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", default=["4096,4096,4096", "8192,8192,8192", "3000,3000,3000"])
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    ap.add_argument("--label", default="kiln")
    ap.add_argument("--kernel", default="matmul", choices=["matmul", "descriptor", "persistent", "persistent-ws"])
    ap.add_argument("--schedule", default="plain", choices=list(SCHEDULES))
    ap.add_argument("--configs", nargs="*", help="BM,BN,BK,warps,stages instead of the kernel's list")
    args = ap.parse_args()
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    torch.manual_seed(0)
    for shape in args.shapes:
        m, n, k = (int(x) for x in shape.split(","))
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        if args.kernel.startswith("persistent"):  # the persistent kernel reads B through a descriptor of its transpose
            b = b.t().contiguous().t()
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        ref = torch.matmul(a, b)
        flop = 2.0 * m * n * k
        t = do_bench(lambda: torch.matmul(a, b)).median
        print(f"{args.label} {args.dtype} {m}x{n}x{k} cuBLAS {flop / t / 1e9:7.1f} TFLOP/s", flush=True)
        configs = persistent.get_configs() if args.kernel.startswith("persistent") else mm.get_configs()
        options = SCHEDULES[args.schedule]
        if args.kernel == "matmul":
            launch = lambda a, b, c, cfg: mm._launch(mm.matmul_kernel, a, b, c, **cfg.kwargs, num_warps=cfg.num_warps,
                                                     num_stages=cfg.num_stages, **options)
        elif args.kernel == "descriptor":
            # (its launch sets GROUP_SIZE_M, and warp_specialize there is the k loop's own request)
            launch = lambda a, b, c, cfg: descriptor.launch(
                a, b, c, **{k: v for k, v in cfg.kwargs.items() if k != "GROUP_SIZE_M"}, num_warps=cfg.num_warps,
                num_stages=cfg.num_stages, **options)
        else:
            ws = args.kernel == "persistent-ws"
            launch = lambda a, b, c, cfg: persistent.matmul_persistent_with_config(a, b, c, cfg, warp_specialize=ws)
        if args.configs:
            configs = []
            for spec in args.configs:
                bm, bn, bk, w, st = (int(x) for x in spec.split(","))
                configs.append(kiln.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                                            "GROUP_SIZE_M": 8}, num_warps=w, num_stages=st))
        for cfg in configs:
            kw = cfg.kwargs
            name = (f"{kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} w{cfg.num_warps} "
                    f"s{cfg.num_stages}")
            try:
                launch(a, b, c, cfg)
                err = ((c.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
                t = do_bench(lambda: launch(a, b, c, cfg)).median
                print(f"{args.label} {args.kernel} {args.schedule} {args.dtype} {m}x{n}x{k} {name:22s} {flop / t / 1e9:7.1f} TFLOP/s"
                      f"  err {err:.1e}", flush=True)
            except Exception as ex:  # noqa: BLE001  (a config that does not compile or fit: report it)
                print(f"{args.label} {args.kernel} {args.schedule} {args.dtype} {m}x{n}x{k} {name:22s} failed: {str(ex).splitlines()[0]}",
                      flush=True)


if __name__ == "__main__":
    main()
