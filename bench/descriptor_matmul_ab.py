# The descriptor matmul (bench/kernels/matmul_descriptor.py: A and B read through tensor descriptors,
# which kiln copies with TMA on Hopper) under kiln and under Triton, each side in its own process on the
# same seeded fp16 inputs, beside cuBLAS and beside kiln on the pointer matmul (bench/kernels/matmul.py)
# at the same configs. Awkward shapes are checked against a float64 product first. kiln also runs the
# kernel with its k loop warp-specialized ("descriptor ws"), and the persistent matmul of the suite
# (bench/kernels/matmul_persistent.py, B K-major) with and without its tile loop warp-specialized
# ("persistent ws"); Triton 3.6 cannot warp-specialize on Hopper (its pass needs Meta's fork), so its
# side runs the plain loops only.
#
#   python3 bench/descriptor_matmul_ab.py [--sides kiln,triton] [--sizes 4096,8192x8192x512] [--checks-only]
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [(128, 256, 64, 8, 3), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4), (64, 128, 64, 4, 4)]
WS_CONFIGS = CONFIGS + [(128, 256, 64, 8, 4)]
CHECKS = [(1000, 1008, 1000), (1, 1008, 512), (333, 264, 200)]  # rows of 16-byte multiples (TMA needs them)


def load(side, name):
    sys.path.insert(0, HERE)
    if side == "triton":
        import importlib
        return importlib.import_module("kernels." + name)
    import kiln.compat
    return kiln.compat.import_as_triton(os.path.join(HERE, "kernels", name + ".py"), module_name="ab_" + name)


def config_name(cfg):
    kw = cfg.kwargs
    return f"{kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} w{cfg.num_warps} s{cfg.num_stages}"


def descriptor_kernels(side):
    """(name, warp_specialize, configs) of the descriptor kernel variants `side` runs."""
    variants = [("descriptor", False, CONFIGS)]
    if side == "kiln":
        variants.append(("descriptor ws", True, WS_CONFIGS))
    return variants


def child(side, sizes, out):
    import torch
    import triton.testing
    desc, ptr = load(side, "matmul_descriptor"), load(side, "matmul")
    pers = load(side, "matmul_persistent")
    pers_variants = [("persistent", False)] + ([("persistent ws", True)] if side == "kiln" else [])
    g = torch.Generator(device="cuda").manual_seed(1)
    rows = []

    def emit(row):
        rows.append(row)
        print(json.dumps(row), flush=True)

    for m, n, k in CHECKS:
        a = torch.randn(m, k, device="cuda", generator=g).half()
        b = torch.randn(k, n, device="cuda", generator=g).half()
        ref = a.double() @ b.double()
        for kernel, ws, configs in descriptor_kernels(side):
            for bm, bn, bk, w, s in configs:
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
                row = {"side": side, "kernel": kernel, "case": f"check {m}x{n}x{k}", "config": f"{bm}x{bn}x{bk} w{w} s{s}"}
                try:
                    desc.launch(a, b, c, warp_specialize=ws, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                                num_warps=w, num_stages=s)
                    torch.cuda.synchronize()
                    row["err"] = float(((c.double() - ref).abs().max() / ref.abs().max()).item())
                except Exception as e:
                    row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:160]
                emit(row)
        b_kmajor = b.T.contiguous().T  # the persistent kernel reads B K-major: same values
        for kernel, ws in pers_variants:
            for cfg in pers.get_configs():
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
                row = {"side": side, "kernel": kernel, "case": f"check {m}x{n}x{k}", "config": config_name(cfg)}
                try:
                    pers.matmul_persistent_with_config(a, b_kmajor, c, cfg, warp_specialize=ws)
                    torch.cuda.synchronize()
                    row["err"] = float(((c.double() - ref).abs().max() / ref.abs().max()).item())
                except Exception as e:
                    row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:160]
                emit(row)
    for m, n, k in sizes:
        case = f"{m}^3" if m == n == k else f"{m}x{n}x{k}"
        a = torch.randn(m, k, device="cuda", generator=g).half()
        b = torch.randn(k, n, device="cuda", generator=g).half()
        ref = a.float() @ b.float()
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        for kernel, ws, configs in descriptor_kernels(side) + [("pointer", False, CONFIGS)]:
            for bm, bn, bk, w, s in configs:
                meta = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, num_warps=w, num_stages=s)
                if kernel != "pointer":
                    run = lambda: desc.launch(a, b, c, warp_specialize=ws, **meta)
                else:
                    run = lambda: ptr._launch(ptr.matmul_kernel, a, b, c, GROUP_SIZE_M=8, **meta)
                row = {"side": side, "kernel": kernel, "case": case, "config": f"{bm}x{bn}x{bk} w{w} s{s}"}
                try:
                    c.fill_(float("nan"))
                    run()
                    row["err"] = float(((c.float() - ref).abs().max() / ref.abs().max()).item())
                    row["ms"] = triton.testing.do_bench(run, return_mode="median")
                    row["tflops"] = 2 * m * n * k / row["ms"] * 1e-9
                except Exception as e:
                    row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:160]
                emit(row)
        b_kmajor = b.T.contiguous().T
        for kernel, ws in pers_variants:
            for cfg in pers.get_configs():
                run = lambda: pers.matmul_persistent_with_config(a, b_kmajor, c, cfg, warp_specialize=ws)
                row = {"side": side, "kernel": kernel, "case": case, "config": config_name(cfg)}
                try:
                    c.fill_(float("nan"))
                    run()
                    row["err"] = float(((c.float() - ref).abs().max() / ref.abs().max()).item())
                    row["ms"] = triton.testing.do_bench(run, return_mode="median")
                    row["tflops"] = 2 * m * n * k / row["ms"] * 1e-9
                except Exception as e:
                    row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:160]
                emit(row)
        if side == "triton":
            ms = triton.testing.do_bench(lambda: torch.matmul(a, b), return_mode="median")
            emit({"side": "cuBLAS", "kernel": "torch.matmul", "case": case, "config": "", "ms": ms,
                  "tflops": 2 * m * n * k / ms * 1e-9})
    json.dump(rows, open(out, "w"))


def shape(text):
    """(M, N, K) of "4096" (a cube) or "8192x8192x512"."""
    dims = [int(d) for d in text.split("x")]
    return tuple(dims * 3) if len(dims) == 1 else tuple(dims)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sides", default="kiln,triton")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--checks-only", action="store_true", help="only the awkward shapes, checked (for sanitizers)")
    ap.add_argument("--child", nargs=2)
    args = ap.parse_args()
    sizes = [] if args.checks_only else [shape(s) for s in args.sizes.split(",")]
    if args.child:
        return child(args.child[0], sizes, args.child[1])
    rows = []
    for side in args.sides.split(","):
        out = f"/tmp/descriptor_ab_{side}.json"
        r = subprocess.run([sys.executable, __file__, "--sizes", args.sizes, "--child", side, out]
                           + (["--checks-only"] if args.checks_only else []))
        if r.returncode == 0:
            rows += json.load(open(out))
        else:
            print(f"{side}: child exited {r.returncode}")
    print("\n| side | kernel | case | config | ms | TFLOP/s | err |\n|---|---|---|---|---:|---:|---|")
    for r in rows:
        ms = f"{r['ms']:.4f}" if "ms" in r else ""
        tf = f"{r['tflops']:.0f}" if "tflops" in r else ""
        err = r.get("error") or (f"{r['err']:.1e}" if "err" in r else "")
        print(f"| {r['side']} | {r['kernel']} | {r['case']} | {r['config']} | {ms} | {tf} | {err} |")


if __name__ == "__main__":
    main()
