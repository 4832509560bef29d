"""Launch overhead from Python: host time per cached launch of the same tiny four-argument kernel through
kiln and through Triton (skipped when absent), in the same process, on the same CUDA tensors.

    PYTHONPATH=BUILD/python python3 bench/launch_overhead.py [--per-batch 500] [--batches 40] [--out FILE.json]

Target (issue 4): at most 4 us per launch from Python (Triton 3.6: 26.9 us). Each figure is the median,
over batches, of the host time of a batch of launches divided by its size; every batch ends with a
synchronisation that is not timed, so the launch queue never fills up and blocks.

This file is also the kernel's source: kiln loads it with kiln.compat.import_as_triton, so the kernel
text is the very same for both.
"""
import argparse
import json
import statistics
import sys
import time

if __name__ == "__main__":
    try:
        import triton  # noqa: F401
    except ImportError:  # no Triton here: kiln stands in as `triton`, and only kiln is measured
        import kiln.compat
        kiln.compat.install()

import triton  # noqa: E402  (the real Triton, or kiln when loaded through kiln.compat)
import triton.language as tl  # noqa: E402


@triton.jit
def tiny(x_ptr, y_ptr, out_ptr, n):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def per_launch_us(launch, per_batch, batches, sync):
    for _ in range(50):
        launch()
    sync()
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(per_batch):
            launch()
        t1 = time.perf_counter()
        sync()
        samples.append((t1 - t0) / per_batch * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-batch", type=int, default=500)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--out", help="also write the results as JSON here")
    a = parser.parse_args()

    import torch
    import kiln
    import kiln.compat

    if not torch.cuda.is_available():
        print("launch_overhead.py: no CUDA device; nothing measured")
        return 0
    kiln_mod = kiln.compat.import_as_triton(__file__, module_name="launch_overhead_kiln")
    n = 4096
    x, y, out = (torch.rand(n, device="cuda") for _ in range(3))
    grid = (n // 128,)
    grid_fn = lambda meta: (triton_cdiv(meta["n"], 128),)  # noqa: E731
    sync = torch.cuda.synchronize
    rows = []

    def measure(name, launch):
        us = per_launch_us(launch, a.per_batch, a.batches, sync)
        rows.append((name, us))
        print(f"  {name}: {us:.2f} us", flush=True)

    k = kiln_mod.tiny
    ref = x + y
    k[grid](x, y, out, n)
    sync()
    assert torch.equal(out, ref), "kiln computed a wrong sum"
    measure("kiln: kernel[grid](...), tuple grid", lambda: k[grid](x, y, out, n))
    measure("kiln: kernel[grid](...), callable grid", lambda: k[grid_fn](x, y, out, n))
    measure("kiln: binding only (no cuLaunchKernelEx)", lambda: k._bind_only(grid, (x, y, out, n), {}))
    if triton.__name__ == "triton":
        out.zero_()
        tiny[grid](x, y, out, n)
        sync()
        assert torch.equal(out, ref), "triton computed a wrong sum"
        measure(f"triton {triton.__version__}: kernel[grid](...), tuple grid", lambda: tiny[grid](x, y, out, n))
        measure(f"triton {triton.__version__}: kernel[grid](...), callable grid", lambda: tiny[grid_fn](x, y, out, n))
    else:
        print("  triton: not installed, skipped")
    measure("torch.add(x, y, out=out) (for scale)", lambda: torch.add(x, y, out=out))

    device = torch.cuda.get_device_name()
    print(f"\nlaunch overhead from Python ({device}, torch {torch.__version__}, median of {a.batches} batches "
          f"of {a.per_batch})\n")
    print("| path | us per launch |\n|---|---|")
    for name, us in rows:
        print(f"| {name} | {us:.2f} |")
    kiln_us = rows[0][1]
    print(f"\ntarget: <= 4 us per launch from Python: {'met' if kiln_us <= 4.0 else 'NOT met'} ({kiln_us:.2f} us)")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": device, "torch": torch.__version__, "results_us": dict(rows)}, f, indent=2)
    return 0


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    sys.exit(main())
