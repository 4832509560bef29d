"""Launch-configuration sweep for the row-wise kernels: the suite's softmax and layernorm sources, and a
row copy of the same shape as softmax (load a row, store it: the ceiling of the access pattern), through
kiln and through Triton, timed by bench/timing.py beside a torch copy of the same bytes.

    python3 bench/sweep_rowwise.py [--sides kiln,triton] [--shapes 4096x4096,32768x4096] [--programs rows]
                                   [--warps 4,8] [--stages 1,4] [--layernorm-shapes 16384x8192]

Each row is (shape, kernel, programs per SM or "rows" for one program per row, num_warps, stages); the
percentages are of the same-size torch copy measured in the same run.
"""
import argparse
import importlib.util
import itertools
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


def softmax_rows(mods, args, sms):
    """(shape, kernel, programs, warps, stages, bytes moved, {side: launch}, check) of softmax and the row
    copy: fp32 rows over the grids and warp counts asked for."""
    for shape in args.shapes.split(","):
        rows, cols = (int(n) for n in shape.split("x"))
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        block = 1 << (cols - 1).bit_length()
        for kernel, want in (("softmax", torch.softmax(x.double(), dim=1)), ("row_copy", x.double())):
            check = lambda want=want: ((y.double() - want).abs().max() / want.abs().max()).item() < 1e-5
            for programs in args.programs.split(","):
                grid = rows if programs == "rows" else min(rows, sms * int(programs))
                for warps, stages in ((int(w), s) for w in args.warps.split(",") for s in args.stages.split(",")):
                    stages = (4 if block <= 4096 else 2) if stages == "auto" else int(stages)
                    meta = dict(BLOCK_SIZE=block, NUM_STAGES=stages, num_warps=warps, num_stages=stages)
                    launches = {side: (lambda fn=getattr(m[kernel], kernel + "_kernel"), meta=meta:
                                       fn[(grid, )](y, x, x.stride(0), y.stride(0), rows, cols, **meta))
                                for side, m in mods.items()}
                    yield shape, kernel, programs, warps, stages, 2 * x.numel() * 4, y, launches, check


def layernorm_rows(mods, args):
    """The same for layernorm (fp16, one program per row; one pass when the row fits in a block) over the
    warp counts asked for."""
    for shape in args.layernorm_shapes.split(","):
        rows, cols = (int(n) for n in shape.split("x"))
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        w, b = (torch.randn(cols, device="cuda", dtype=torch.float16) for _ in range(2))
        y, mean, rstd = torch.empty_like(x), torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")
        want = torch.nn.functional.layer_norm(x.float(), (cols,), w.float(), b.float(), 1e-5)
        check = lambda: ((y.float() - want).abs().max() / want.abs().max()).item() < 1e-2
        block = min(65536 // 2, 1 << (cols - 1).bit_length())
        for warps in (int(n) for n in args.layernorm_warps.split(",")):
            launches = {side: (lambda fn=m["layernorm"].layer_norm_fwd_kernel, warps=warps:
                               fn[(rows, )](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5, BLOCK_SIZE=block,
                                            ONE_PASS=block >= cols, num_warps=warps))
                        for side, m in mods.items()}
            yield shape, "layernorm", "rows", warps, "-", 2 * x.numel() * 2, y, launches, check


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sides", default="kiln,triton")
    ap.add_argument("--shapes", default="4096x1024,4096x4096,4096x16384,32768x4096", help="softmax shapes")
    ap.add_argument("--programs", default="4,6,8,rows", help="programs per SM, or 'rows' (one per row)")
    ap.add_argument("--warps", default="4,8,16")
    ap.add_argument("--stages", default="auto", help="NUM_STAGES / num_stages values, or 'auto' (the suite's: "
                    "4 up to 4096 columns, else 2)")
    ap.add_argument("--layernorm-shapes", default="4096x4096,16384x8192", help="'' for none")
    ap.add_argument("--layernorm-warps", default="4,8,16,32")
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    mods = {side: {"softmax": load(side, "softmax", os.path.join(here, "softmax.py")),
                   "row_copy": load(side, "row_copy", row_copy_path()),
                   "layernorm": load(side, "layernorm", os.path.join(here, "layernorm.py"))}
            for side in args.sides.split(",")}
    print("| shape | kernel | programs | warps | stages | same-size copy ms | "
          + " | ".join(f"{s} ms | {s} % of copy" for s in mods) + " |")
    print("|---|---|---|---:|---:|---:|" + "---:|---:|" * len(mods))
    torch.manual_seed(0)
    # Lazily: each launch closes over its shape's tensors, which the generator replaces shape by shape.
    rows = itertools.chain(softmax_rows(mods, args, sms) if args.shapes else (),
                           layernorm_rows(mods, args) if args.layernorm_shapes else ())
    copies = {}
    for shape, kernel, programs, warps, stages, nbytes, out, launches, check in rows:
        if nbytes not in copies:
            copies[nbytes] = copy_ms(nbytes)
        cells = []
        for launch in launches.values():
            try:
                out.fill_(float("nan"))
                launch()
                ok = check()
                ms = do_bench(launch).median
                cells.append(f"{ms:.4f} | {100 * copies[nbytes] / ms:.0f}%" + ("" if ok else " BAD"))
            except Exception as e:  # a configuration a side cannot run (resources)
                cells.append(f"{type(e).__name__} | -")
        print(f"| {shape} | {kernel} | {programs} | {warps} | {stages} | {copies[nbytes]:.4f} | " + " | ".join(cells)
              + " |", flush=True)


if __name__ == "__main__":
    main()
