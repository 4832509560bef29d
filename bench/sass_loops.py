# Instruction counts of the loops in a cubin's SASS, for reading what a codegen change does to a loop
# body without a GPU: each backward branch closes a loop (its target to the branch); within it, forward
# branches that stay inside skip spans some warps do not execute (a uniform branch around the copies one
# thread issues). Prints, per loop of at least --min instructions, its size, the skipped spans and the
# most frequent opcodes. Needs cuobjdump (the CUDA toolkit's, or PyPI's nvidia-cuda-cuobjdump wheel).
#   ptxas -arch=sm_90a k.ptx -o k.cubin && python3 bench/sass_loops.py k.cubin [--min 60]
import argparse
import collections
import re
import subprocess
import sys


def instructions(cubin):
    sass = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True).stdout
    out = []
    for line in sass.splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def target(text):
    m = re.search(r"BRA[^0-9]*0x([0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubin")
    ap.add_argument("--min", type=int, default=60, help="smallest loop shown (instructions)")
    args = ap.parse_args()
    ins = instructions(args.cubin)
    index = {a: i for i, (a, _) in enumerate(ins)}
    for i, (addr, text) in enumerate(ins):
        top = target(text)
        if top is None or top >= addr or top not in index or "U.ANY" in text:
            continue
        body = ins[index[top]:i + 1]
        if len(body) < args.min:
            continue
        skips = []
        for a, t in body:
            to = target(t)
            if to is not None and "U.ANY" not in t and a < to <= addr:
                skips.append((a, sum(1 for b, _ in body if a < b < to)))
        ops = collections.Counter((t.split()[1] if t.startswith("@") else t.split()[0]) for _, t in body)
        print(f"loop {top:#x}-{addr:#x}: {len(body)} instructions; skipped spans "
              f"{[(hex(a), n) for a, n in skips]}; {ops.most_common(10)}")


if __name__ == "__main__":
    sys.exit(main())
