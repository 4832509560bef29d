# A/B of two kiln builds on fixed kernel configurations: a compiler change that alters the PTX of
# some configurations is timed against the build before it on exactly those, in one device call.
#
#   python3 bench/ab_configs.py --builds A_PYTHONPATH,B_PYTHONPATH[,C_PYTHONPATH...] [--only matmul,attention] [--rounds 2]
#
# Each build runs in its own process (kiln is imported once per process), on the same seeded inputs;
# the builds alternate for --rounds rounds (odd rounds in reverse order) and each (case, config) keeps
# its best median. The last output is a table: per case and config, the two medians, their ratio (B / A
# time: below 1 is B faster) and whether both results matched the reference.
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (case constructor name, arguments) and the configs each is timed at: the suite's winners on the H200
# (bench/results/2026-11-30-h200-suite-6.md) and the kernels' other configs.
CASES = {
    "matmul": [("matmul", (4096, 4096, 4096, "float16")), ("matmul", (8192, 8192, 512, "float16")),
               ("matmul", (127, 8192, 8192, "float16")), ("matmul", (3000, 3000, 3000, "bfloat16"))],
    "attention": [("attention", (4, 32, 4096, 64)), ("attention", (4, 32, 4096, 128)),
                  ("attention", (4, 32, 4096, 128, True))],
    "softmax": [("softmax", (4096, 1024)), ("softmax", (32768, 4096))],
    "grouped_gemm": [("grouped_gemm", ((1024, 512, 256, 128), )), ("grouped_gemm", ((4096, 2048, 1024, 512), ))],
    "matmul_persistent": [("matmul_persistent", (8192, 8192, 8192))],
}


def child(families, out):
    sys.path.insert(0, HERE)
    import torch
    import timing
    import workloads

    def config_name(cfg):
        kw = ",".join(f"{k}={v}" for k, v in sorted(cfg.kwargs.items()))
        return f"{kw} w{cfg.num_warps} s{cfg.num_stages}"

    import importlib
    results = []
    for family in families:
        path = os.path.join(HERE, "kernels", workloads.KERNEL_FILES[family] + ".py")
        mod = importlib.import_module("kiln.compat").import_as_triton(path, module_name=f"ab_{family}")
        for ctor, args in CASES[family]:
            args = tuple(getattr(torch, a) if isinstance(a, str) else a for a in args)
            case = getattr(workloads, ctor)(*args)
            g = torch.Generator(device="cuda").manual_seed(1)
            inputs = case.setup(g)
            ref = case.reference(inputs)
            launch = case.kernel(mod, inputs)
            for cfg in launch.configs:
                row = {"case": case.name, "config": config_name(cfg)}
                try:
                    run = launch.with_config(cfg)
                    run.reset()
                    run()
                    torch.cuda.synchronize()
                    row["ok"] = workloads.check(run.out, ref)[0]
                    row["ms"] = timing.do_bench(run).median
                except Exception as e:  # a config that does not compile or run is reported, not fatal
                    row["error"] = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
                results.append(row)
                print(json.dumps(row), flush=True)
    with open(out, "w") as f:
        json.dump(results, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", help="A_PYTHONPATH,B_PYTHONPATH")
    ap.add_argument("--only", default="matmul,attention,softmax")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child[0].split(","), args.child[1])
    builds = args.builds.split(",")
    best = {}
    caches = tempfile.mkdtemp(prefix="kiln-ab-")  # per build, outside --out: only results come back
    for r in range(args.rounds):
        # Odd rounds run the builds in reverse: one config (128x256x64 w8 s3 at 4096^3) timed 6% faster in
        # whichever process ran first, three calls running, the same compiler on either side
        # (bench/results/2026-12-05-h200-matmul-skip-copies.md).
        order = list(enumerate(builds))
        for side, pp in (order if r % 2 == 0 else order[::-1]):
            out = os.path.join(args.out, f"ab_{side}_{r}.json")
            env = dict(os.environ, PYTHONPATH=pp, KILN_CACHE_DIR=os.path.join(caches, f"cache_{side}"))
            with open(os.path.join(args.out, f"ab_{side}_{r}.log"), "w") as log:
                subprocess.run([sys.executable, __file__, "--child", args.only, out], env=env, stdout=log,
                               stderr=subprocess.STDOUT, check=False)
            if not os.path.exists(out):
                print(f"build {side} round {r}: no results (see ab_{side}_{r}.log)")
                continue
            for row in json.load(open(out)):
                key = (row["case"], row["config"])
                cur = best.setdefault(key, [None] * len(builds))
                if cur[side] is None or ("ms" in row and ("ms" not in cur[side] or row["ms"] < cur[side]["ms"])):
                    cur[side] = row
    names = [chr(ord("A") + i) for i in range(len(builds))]
    print("| case | config | " + " | ".join(f"{n} ms" for n in names) + " | " +
          " | ".join(f"{n}/A" for n in names[1:]) + " | ok |")
    print("|---|---|" + "---:|" * (2 * len(builds) - 1) + "---|")
    fmt = lambda x: f"{x['ms']:.4f}" if x and "ms" in x else (x or {}).get("error", "n/a")
    for (case, config), rows in best.items():
        a = rows[0]
        ratios = [f"{r['ms'] / a['ms']:.3f}" if a and r and "ms" in a and "ms" in r else "" for r in rows[1:]]
        ok = "yes" if all(r and r.get("ok") for r in rows) else "NO"
        print(f"| {case} | {config} | " + " | ".join(fmt(r) for r in rows) + " | " + " | ".join(ratios) + f" | {ok} |")


if __name__ == "__main__":
    main()
