# Compiles every kernel of bench/kernels/ with kiln's CLI for the signatures and configs bench/suite.py
# launches (no GPU, no torch, no triton needed), assembles each PTX with ptxas and prints registers and
# spills, and the CLI's wall time from source to PTX (the whole process: start-up and file reading
# included; median of --repeat runs). Usage:
#   python3 bench/compile_check.py [--kiln build/kiln] [--arch sm_90a] [--ptxas PATH] [--repeat 3]
import argparse
import os
import re
import shutil
import subprocess
import sys
import statistics
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")


def load_config_lists():
    """get_configs() of the tuned kernel files, read through a minimal stand-in for kiln's triton (the
    lists as kiln's side of the suite sees them, its own schedule options included: Config.flags)."""
    class Config:
        def __init__(self, kwargs, num_warps=4, num_stages=3, warp_specialize=None, persistent=None, **_):
            self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages
            self.flags = ["--warp-specialize"] * bool(warp_specialize) + ["--persistent"] * bool(persistent)

    triton = types.ModuleType("triton")
    triton.__kiln__ = True
    tl = types.ModuleType("triton.language")
    triton.language = tl
    triton.Config = Config
    triton.jit = lambda fn=None, **_: fn if fn is not None else (lambda f: f)
    triton.autotune = lambda **_: (lambda f: f)
    tl.constexpr = object
    saved = {k: sys.modules.get(k) for k in ("triton", "triton.language")}
    sys.modules.update({"triton": triton, "triton.language": tl})
    try:
        out = {}
        for name in ("softmax", "layernorm", "matmul", "attention", "matmul_persistent"):
            ns = {"__name__": "bench_check_" + name}
            path = os.path.join(KERNELS, name + ".py")
            with open(path) as f:
                exec(compile(f.read(), path, "exec"), ns)
            out[name] = ns["get_configs"]()
            if name == "attention":  # per head dim
                out["attention_for"] = ns["get_configs"]
            if "get_fp8_configs" in ns:
                out[name + "_fp8"] = ns["get_fp8_configs"]()
        return out
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def i32(v):
    """A runtime integer as the launcher specializes it (Triton's rules: == 1, divisible by 16; and kiln's
    divisible by 8)."""
    return "1" if v == 1 else "i32:16" if v % 16 == 0 else "i32:8" if v % 8 == 0 else "i32"


def cases():
    """(label, file, kernel, signature, num_warps, num_stages[, CLI flags]) for every launch of the full suite."""
    configs = load_config_lists()
    yield ("vector add", "vector_add.py", "add_kernel", f"*fp32:16, *fp32:16, *fp32:16, {i32(1 << 28)}, 1024", 4, 3)
    for rows, cols in ((4096, 1024), (4096, 4096), (4096, 16384), (32768, 4096)):
        block = 1 << (cols - 1).bit_length()
        for c in configs["softmax"]:
            stages = c.kwargs["NUM_STAGES"]
            sig = f"*fp32:16, *fp32:16, {i32(cols)}, {i32(cols)}, {i32(rows)}, {i32(cols)}, {block}, {stages}"
            yield (f"softmax {rows}x{cols} w{c.num_warps} s{stages}", "softmax.py", "softmax_kernel", sig,
                   c.num_warps, c.num_stages)
    for rows, cols in ((4096, 4096), (16384, 8192)):
        block = min(65536 // 2, 1 << (cols - 1).bit_length())
        sig = (f"*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, {i32(cols)}, {i32(cols)}, fp32, {block}, "
               f"{block >= cols}")
        for c in configs["layernorm"]:
            yield (f"layernorm {rows}x{cols} w{c.num_warps}", "layernorm.py", "layer_norm_fwd_kernel", sig,
                   c.num_warps, c.num_stages)
    # Specializations that differ: all sizes divisible by 16, an odd M (127), odd M, N and K (3000).
    for dt in ("fp16", "bf16"):
        for m, n, k in ((4096, 4096, 4096), (127, 8192, 8192), (3000, 3000, 3000)):
            for c in configs["matmul"]:
                kw = c.kwargs
                sig = (f"*{dt}:16, *{dt}:16, *{dt}:16, {i32(m)}, {i32(n)}, {i32(k)}, {i32(k)}, 1, {i32(n)}, 1, "
                       f"{i32(n)}, 1, {kw['BLOCK_SIZE_M']}, {kw['BLOCK_SIZE_N']}, {kw['BLOCK_SIZE_K']}, "
                       f"{kw['GROUP_SIZE_M']}")
                label = (f"matmul {dt} {m}x{n}x{k} {kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} "
                         f"w{c.num_warps} s{c.num_stages}" + "".join(" " + f.strip("-") for f in c.flags))
                yield (label, "matmul.py", "matmul_kernel", sig, c.num_warps, c.num_stages, c.flags)
    # fp8 e4m3 with B K-major (stride_bk = 1) and an fp16 C, as workloads.matmul passes it.
    for s in (4096, 8192):
        for c in configs["matmul_fp8"]:
            kw = c.kwargs
            sig = (f"*fp8e4nv:16, *fp8e4nv:16, *fp16:16, {i32(s)}, {i32(s)}, {i32(s)}, {i32(s)}, 1, 1, {i32(s)}, "
                   f"{i32(s)}, 1, {kw['BLOCK_SIZE_M']}, {kw['BLOCK_SIZE_N']}, {kw['BLOCK_SIZE_K']}, {kw['GROUP_SIZE_M']}")
            label = (f"matmul fp8e4m3 {s}^3 {kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} "
                     f"w{c.num_warps} s{c.num_stages}")
            yield (label, "matmul.py", "matmul_kernel", sig, c.num_warps, c.num_stages)
    # B4 H32 N4096: the batch count does not enter the signature, nor does N among 1024, 4096 and 16384
    # (every size and stride divisible by 16), so the N1024 and N16384 rows compile as these do.
    h, n = 32, 4096
    for d, causal in ((64, False), (128, False), (128, True)):
        for c in configs["attention_for"](d):
            strides = ", ".join(f"{i32(h * n * d)}, {i32(n * d)}, {i32(d)}, 1" for _ in range(4))
            sig = (f"*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, {strides}, {i32(h)}, {i32(n)}, "
                   f"{d}, {c.kwargs['BLOCK_M']}, {c.kwargs['BLOCK_N']}, {causal}")
            label = (f"attention D{d}{' causal' if causal else ''} {c.kwargs['BLOCK_M']}x{c.kwargs['BLOCK_N']} "
                     f"w{c.num_warps} s{c.num_stages}")
            yield (label, "attention.py", "attn_fwd", sig, c.num_warps, c.num_stages)
    # The persistent matmul at 8192^3 on an H200 (132 multiprocessors: NUM_SMS is a constexpr).
    s, num_sms = 8192, 132
    for c in configs["matmul_persistent"]:
        kw = c.kwargs
        sig = (f"*fp16:16, *fp16:16, *fp16:16, {i32(s)}, {i32(s)}, {i32(s)}, {kw['BLOCK_SIZE_M']}, "
               f"{kw['BLOCK_SIZE_N']}, {kw['BLOCK_SIZE_K']}, {kw['GROUP_SIZE_M']}, {num_sms}")
        label = (f"matmul persistent fp16 {s}^3 {kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} "
                 f"w{c.num_warps} s{c.num_stages}")
        yield (label, "matmul_persistent.py", "matmul_persistent_kernel", sig, c.num_warps, c.num_stages)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kiln", default=os.path.join(HERE, "..", "build", "kiln"), help="the kiln CLI")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--repeat", type=int, default=3, help="CLI runs per case for the compile time (median)")
    args = ap.parse_args()
    have_ptxas = os.path.exists(args.ptxas)
    failures, slowest = 0, (0.0, "")
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "k.ptx")
        for label, file, kernel, sig, warps, stages, *flags in cases():
            cmd = [args.kiln, "compile", os.path.join(KERNELS, file), "--kernel", kernel, "--signature", sig,
                   "--emit", "ptx", "--arch", args.arch, "--num-warps", str(warps), "--num-stages", str(stages),
                   "-o", ptx] + (flags[0] if flags else [])
            times = []
            for _ in range(max(1, args.repeat)):
                t0 = time.perf_counter()
                r = subprocess.run(cmd, capture_output=True, text=True)
                times.append(1e3 * (time.perf_counter() - t0))
            ms = statistics.median(times)
            slowest = max(slowest, (ms, label))
            if r.returncode != 0:
                failures += 1
                print(f"FAIL  {label}\n      {' '.join(repr(c) if ' ' in c else c for c in cmd)}\n"
                      + "\n".join("      " + line for line in (r.stderr or r.stdout).strip().splitlines()[:6]))
                continue
            info = ""
            if have_ptxas:
                p = subprocess.run([args.ptxas, "-v", f"-arch={args.arch}", ptx, "-o", os.path.join(tmp, "k.cubin")],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    failures += 1
                    print(f"FAIL  {label}: ptxas: {p.stderr.strip().splitlines()[:3]}")
                    continue
                regs = re.search(r"Used (\d+) registers", p.stderr)
                spill = re.search(r"(\d+) bytes spill stores", p.stderr)
                # (kiln's shared memory is dynamic: ptxas does not see it)
                info = f"regs {regs.group(1) if regs else '?'}, spill {spill.group(1) if spill else '?'}"
            print(f"ok    {label}  ({ms:.1f} ms to PTX{', ' + info if info else ''})")
    print(f"{failures} failure(s); slowest to PTX: {slowest[1]} at {slowest[0]:.1f} ms")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
