# The kernels of the benchmark suite at small shapes, every configuration each, run once and checked:
# the workload compute-sanitizer watches in tools/device-sanitize (racecheck and synccheck are too slow
# for the suite's shapes). Prints one line per (case, config) and exits non-zero on a wrong result.
#   python3 bench/sanitize_cases.py [--only matmul,attention,...]
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import workloads  # noqa: E402

SMALL = {
    "vector_add": [("vector_add", (3000, ))],
    "softmax": [("softmax", (64, 1000))],
    "layernorm": [("layernorm", (64, 1000))],
    "matmul": [("matmul", (256, 256, 256, "float16")), ("matmul", (200, 136, 264, "bfloat16"))],
    "attention": [("attention", (1, 2, 256, 64)), ("attention", (1, 2, 200, 64)), ("attention", (1, 2, 256, 128)),
                  ("attention", (1, 2, 200, 128, True))],
    "grouped_gemm": [("grouped_gemm", ((256, 128, 128, 128), ))],
    "matmul_persistent": [("matmul_persistent", (333, 264, 200))],
    "matmul_split": [("matmul_split", (200, 136, 264, p)) for p in ("tf32x3", "bf16x3", "bf16x6", "ieee")],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=",".join(SMALL))
    args = ap.parse_args()
    import kiln.compat
    # The attention references run SDPA's math path: its fused CUDA backends are not what is being checked,
    # and racecheck reports hazards inside PyTorch's memory-efficient kernel.
    for backend in ("flash", "mem_efficient", "cudnn"):
        getattr(torch.backends.cuda, f"enable_{backend}_sdp")(False)
    failed = 0
    for family in args.only.split(","):
        path = os.path.join(HERE, "kernels", workloads.KERNEL_FILES[family] + ".py")
        mod = kiln.compat.import_as_triton(path, module_name=f"sanitize_{family}")
        for ctor, ctor_args in SMALL[family]:
            # dtype names ("float16") become torch dtypes; other strings (a precision) stay
            ctor_args = tuple(getattr(torch, a) if isinstance(getattr(torch, str(a), None), torch.dtype) else a
                              for a in ctor_args)
            case = getattr(workloads, ctor)(*ctor_args)
            g = torch.Generator(device="cuda").manual_seed(case.seed)
            inputs = case.setup(g)
            ref = case.reference(inputs)
            launch = case.kernel(mod, inputs)
            runs = [(f"{c.kwargs} w{c.num_warps} s{c.num_stages}", launch.with_config(c)) for c in launch.configs]
            for name, run in runs or [("default", launch)]:
                run.reset()
                run()
                torch.cuda.synchronize()
                ok, text = workloads.check(run.out, ref)
                failed += not ok
                print(f"{case.name} | {name} | {'ok' if ok else 'WRONG'} {text}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
