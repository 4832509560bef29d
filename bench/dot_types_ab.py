# The matmul kernel (bench/kernels/matmul.py) on the dot input types beyond f16/bf16, at fixed configs,
# for one or more kiln builds and for Triton, each side in its own process on the same seeded inputs:
# tf32 (fp32 inputs) and fp8 e4m3, with B N-major ([K, N] contiguous, as most callers pass it) and K-major
# (the transpose of a contiguous [N, K]); and f32 inputs at the split precisions (tf32x3, bf16x3, bf16x6)
# and ieee. Shows what a change to how these dots are lowered costs or gains.
#
#   python3 bench/dot_types_ab.py --builds A_PYTHONPATH[,B_PYTHONPATH...] [--triton] [--size 4096]
import argparse
import importlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE = os.environ.get("DOT_TYPES_DEVICE", "cuda")  # "cpu" with KILN_INTERPRET=1: a dry run, untimed
CONFIGS = {  # (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages)
    "tf32": [(128, 128, 32, 8, 3), (128, 256, 32, 8, 3), (128, 64, 32, 4, 4)],
    "fp8": [(128, 256, 64, 8, 4), (128, 128, 64, 8, 4), (128, 128, 128, 8, 3)],
}  # f32 inputs at the split precisions and ieee run at workloads.SPLIT_CONFIGS
SPLIT_PRECISIONS = ("tf32x3", "bf16x3", "bf16x6", "ieee")


def child(side, size, out):
    sys.path.insert(0, HERE)
    import torch
    import triton.testing
    if side == "triton":
        mod = importlib.import_module("kernels.matmul")
    else:
        mod = importlib_kiln(os.path.join(HERE, "kernels", "matmul.py"))
    g = torch.Generator(device=DEVICE).manual_seed(1)
    rows = []
    for kind in ("tf32", "fp8"):
        for b_major in ("N", "K"):
            a = torch.randn(size, size, device=DEVICE, generator=g)
            b = torch.randn(size, size, device=DEVICE, generator=g)
            if kind == "fp8":
                a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
            if b_major == "K":
                b = b.t().contiguous().t()
            c = torch.empty(size, size, device=DEVICE, dtype=torch.float32 if kind == "tf32" else torch.float16)
            ref = a.double() @ b.double()
            for bm, bn, bk, w, s in CONFIGS[kind]:
                row = {"side": side, "case": f"{kind} B {b_major}-major {size}^3", "config": f"{bm}x{bn}x{bk} w{w} s{s}"}
                meta = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, num_warps=w, num_stages=s)
                try:
                    run = lambda: mod._launch(mod.matmul_kernel, a, b, c, **meta)
                    c.fill_(float("nan"))
                    run()
                    row["err"] = float(((c.double() - ref).abs().max() / ref.abs().max()).item())
                    row["ms"] = triton.testing.do_bench(run, return_mode="median") if DEVICE == "cuda" else 0.0
                except Exception as e:  # a config that does not compile or run is reported, not fatal
                    row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:120]
                rows.append(row)
                print(json.dumps(row), flush=True)
    f32 = importlib.import_module("kernels.matmul_f32") if side == "triton" else \
        importlib_kiln(os.path.join(HERE, "kernels", "matmul_f32.py"), "dot_types_matmul_f32")
    a = torch.randn(size, size, device=DEVICE, generator=g)
    b = torch.randn(size, size, device=DEVICE, generator=g)
    c = torch.empty(size, size, device=DEVICE)
    ref = a.double() @ b.double()
    from workloads import SPLIT_CONFIGS
    for precision in SPLIT_PRECISIONS:
        for bm, bn, bk, w, s in SPLIT_CONFIGS:
            row = {"side": side, "case": f"f32 {precision} B N-major {size}^3", "config": f"{bm}x{bn}x{bk} w{w} s{s}"}
            try:
                run = lambda: f32.matmul_f32(a, b, c, precision, block=(bm, bn, bk), num_warps=w, num_stages=s)
                c.fill_(float("nan"))
                run()
                row["err"] = float(((c.double() - ref).abs().max() / ref.abs().max()).item())
                row["ms"] = triton.testing.do_bench(run, return_mode="median") if DEVICE == "cuda" else 0.0
            except Exception as e:
                row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:120]
            rows.append(row)
            print(json.dumps(row), flush=True)
    json.dump(rows, open(out, "w"))


def importlib_kiln(path, module_name="dot_types_matmul"):
    import kiln.compat
    return kiln.compat.import_as_triton(path, module_name=module_name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", default="")
    ap.add_argument("--triton", action="store_true")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child[0], args.size, args.child[1])
    sides = [(chr(ord("A") + i), pp) for i, pp in enumerate(b for b in args.builds.split(",") if b)]
    if args.triton:
        sides.append(("triton", os.environ.get("PYTHONPATH", "")))
    table = {}
    for name, pp in sides:
        out = os.path.join(args.out, f"dot_types_{name}.json")
        env = dict(os.environ, PYTHONPATH=pp)
        with open(os.path.join(args.out, f"dot_types_{name}.log"), "w") as log:
            subprocess.run([sys.executable, __file__, "--child", "triton" if name == "triton" else "kiln", out,
                            "--size", str(args.size)], env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
        if not os.path.exists(out):
            print(f"{name}: no results (see dot_types_{name}.log)")
            continue
        for row in json.load(open(out)):
            table.setdefault((row["case"], row["config"]), {})[name] = row
    names = [n for n, _ in sides]
    print("| case | config | " + " | ".join(f"{n} ms (err)" for n in names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for (case, config), by in table.items():
        cell = lambda r: f"{r['ms']:.4f} ({r['err']:.1e})" if r and "ms" in r else (r or {}).get("error", "n/a")
        print(f"| {case} | {config} | " + " | ".join(cell(by.get(n)) for n in names) + " |")


if __name__ == "__main__":
    main()
