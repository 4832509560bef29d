"""Launch-configuration sweep for the row-wise kernels: the suite's softmax and layernorm sources, and a
row copy of the same shape as softmax (load a row, store it: the ceiling of the access pattern), through
kiln and through Triton, timed by bench/timing.py beside a torch copy of the same bytes.

    python3 bench/sweep_rowwise.py [--sides kiln,triton] [--shapes 4096x4096,32768x4096]

Each softmax row is (shape, programs per SM or "rows" for one program per row, num_warps); the
percentages are of the same-size torch copy measured in the same run.
"""
import argparse
import importlib.util
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import do_bench  # noqa: E402

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")

ROW_COPY = '''
import triton
import triton.language as tl


@triton.jit
def row_copy_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                    BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr):
    for row_idx in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=NUM_STAGES):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, row, mask=mask)
'''


def load(side, name, path):
    if side == "kiln":
        return importlib.import_module("kiln.compat").import_as_triton(path, module_name=f"kiln_{name}")
    spec = importlib.util.spec_from_file_location(f"triton_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row_copy_path():
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "kiln_sweep_row_copy.py")
    with open(path, "w") as f:
        f.write(ROW_COPY)
    return path


def copy_ms(nbytes):
    src = torch.empty(nbytes // 8, dtype=torch.float32, device="cuda").normal_()
    dst = torch.empty_like(src)
    return do_bench(lambda: dst.copy_(src)).median


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sides", default="kiln,triton")
    ap.add_argument("--shapes", default="4096x1024,4096x4096,4096x16384,32768x4096")
    ap.add_argument("--programs", default="4,6,8,rows", help="programs per SM, or 'rows' (one per row)")
    ap.add_argument("--warps", default="4,8,16")
    args = ap.parse_args()
    sides = args.sides.split(",")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    mods = {s: (load(s, "softmax", os.path.join(here, "softmax.py")), load(s, "row_copy", row_copy_path()))
            for s in sides}
    print(f"| shape | kernel | programs | warps | same-size copy ms | "
          + " | ".join(f"{s} ms | {s} % of copy" for s in sides) + " |")
    print("|---|---|---|---:|---:|" + "---:|---:|" * len(sides))
    torch.manual_seed(0)
    for shape in args.shapes.split(","):
        rows, cols = (int(n) for n in shape.split("x"))
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        ref = torch.softmax(x.double(), dim=1)
        base = copy_ms(2 * x.numel() * 4)
        block = 1 << (cols - 1).bit_length()
        for kernel in ("softmax", "row_copy"):
            for programs in args.programs.split(","):
                grid = rows if programs == "rows" else min(rows, sms * int(programs))
                for warps in (int(w) for w in args.warps.split(",")):
                    cells = []
                    for s in sides:
                        fn = getattr(mods[s][0 if kernel == "softmax" else 1], kernel + "_kernel")
                        meta = dict(BLOCK_SIZE=block, NUM_STAGES=4 if block <= 4096 else 2, num_warps=warps,
                                    num_stages=4 if block <= 4096 else 2)

                        def launch(fn=fn, meta=meta):
                            fn[(grid, )](y, x, x.stride(0), y.stride(0), rows, cols, **meta)
                        try:
                            y.fill_(float("nan"))
                            launch()
                            want = ref if kernel == "softmax" else x.double()
                            err = ((y.double() - want).abs().max() / want.abs().max()).item()
                            ms = do_bench(launch).median
                            cells.append(f"{ms:.4f} | {100 * base / ms:.0f}%" + ("" if err < 1e-5 else " BAD"))
                        except Exception as e:  # a configuration a side cannot run (resources)
                            cells.append(f"{type(e).__name__} | -")
                    print(f"| {shape} | {kernel} | {programs} | {warps} | {base:.4f} | " + " | ".join(cells) + " |",
                          flush=True)


if __name__ == "__main__":
    main()
