"""What defining kernels costs before their first launch: decorating one function with @jit, and importing
a module of many @jit kernels, with kiln and (when installed) Triton, in one process. kiln reads and
checks a kernel on its first launch, so neither should compile anything.

    PYTHONPATH=BUILD/python python3 bench/decorate_cost.py [--kernels 64] [--repeat 2000]

Prints microseconds per decoration (median of 7 rounds) and milliseconds per module import (a fresh
module file of --kernels kernels, each import a new file so that no cache of either side helps).
"""
import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time

KERNEL = '''
@jit
def kernel_{i}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * {i} + 1.0, mask=m)
'''


def decorate_us(jit, fn, repeat):
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(repeat):
            jit(fn)
        rounds.append((time.perf_counter() - start) / repeat * 1e6)
    return statistics.median(rounds)


def import_ms(package, kernels, folder, k):
    path = os.path.join(folder, f"{package}_kernels_{k}.py")
    with open(path, "w") as f:
        f.write(f"from {package} import jit\nimport {package}.language as tl\n")
        f.write("".join(KERNEL.format(i=i) for i in range(kernels)))
    start = time.perf_counter()
    spec = importlib.util.spec_from_file_location(f"{package}_kernels_{k}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return (time.perf_counter() - start) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=2000)
    args = ap.parse_args()
    sides = ["kiln"]
    try:
        import triton  # noqa: F401
        sides.append("triton")
    except ImportError:
        pass
    with tempfile.TemporaryDirectory() as folder:
        sys.path.insert(0, folder)
        print(f"| side | decorate one kernel (us) | import a module of {args.kernels} kernels (ms) |")
        print("|---|---:|---:|")
        for side in sides:
            package = __import__(side)
            # A function of a real file, as decorated kernels are: this one's text is never read.
            ns = {}
            exec(compile(KERNEL.format(i=0).replace("@jit\n", ""), __file__, "exec"),
                 {"tl": __import__(side + ".language").language}, ns)
            us = decorate_us(package.jit, ns["kernel_0"], args.repeat)
            ms = statistics.median(import_ms(side, args.kernels, folder, k) for k in range(5))
            print(f"| {side} {getattr(package, '__version__', '')} | {us:.1f} | {ms:.2f} |")


if __name__ == "__main__":
    main()
