"""Launch overhead from Python: host time per cached launch of the same tiny four-argument kernel through
kiln and through Triton (skipped when absent), in the same process, on the same CUDA tensors.

    PYTHONPATH=BUILD/python python3 bench/launch_overhead.py [--per-batch 64] [--batches 200] [--out FILE.json]

Target (issue 4): at most 4 us per launch from Python. What is timed is the CPU side only: each figure
is the median, over batches, of the time of a batch's loop of launches divided by its size, as wall
time and as this thread's CPU time. Batches are small and every one ends with a synchronisation that
is not timed, so the GPU (each tiny kernel takes about as long on the GPU as a launch on the CPU) never
has a long queue that could block the launching thread; the "batches of 1000" row shows what a long
queue does, and the GPU's own time per tiny kernel (back to back, queued behind a sleep) is printed
for scale. The C++ side and the driver's floors (cuLaunchKernel, cuLaunchKernelEx): kiln-bench-launch.

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
    """(wall, thread CPU) microseconds per launch: medians over batches of the batch's launch loop."""
    for _ in range(50):
        launch()
    sync()
    wall, cpu = [], []
    for _ in range(batches):
        c0 = time.thread_time_ns()
        t0 = time.perf_counter_ns()
        for _ in range(per_batch):
            launch()
        t1 = time.perf_counter_ns()
        c1 = time.thread_time_ns()
        sync()
        wall.append((t1 - t0) / per_batch / 1e3)
        cpu.append((c1 - c0) / per_batch / 1e3)
    return statistics.median(wall), statistics.median(cpu)


def gpu_us_per_kernel(torch, launch, count=400):
    """The GPU's time per tiny kernel run back to back: the launches are queued behind a sleep kernel,
    so the GPU never waits for the CPU between them. None without torch.cuda._sleep."""
    if not hasattr(torch.cuda, "_sleep"):
        return None
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    torch.cuda._sleep(50_000_000)  # tens of ms at H200 clocks: longer than queueing `count` launches
    start.record()
    for _ in range(count):
        launch()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e3 / count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-batch", type=int, default=64)
    parser.add_argument("--batches", type=int, default=200)
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

    def measure(name, launch, per_batch=None, batches=None):
        wall, cpu = per_launch_us(launch, per_batch or a.per_batch, batches or a.batches, sync)
        rows.append((name, wall, cpu))
        print(f"  {name}: {wall:.2f} us (thread CPU {cpu:.2f} us)", flush=True)

    k = kiln_mod.tiny
    ref = x + y
    k[grid](x, y, out, n)
    sync()
    assert torch.equal(out, ref), "kiln computed a wrong sum"
    measure("kiln: kernel[grid](...), tuple grid", lambda: k[grid](x, y, out, n))
    measure("kiln: kernel[grid](...), callable grid", lambda: k[grid_fn](x, y, out, n))
    measure("kiln: binding only (no driver call; through a pybind11 method)",
            lambda: k._bind_only(grid, (x, y, out, n), {}))
    measure("kiln: kernel[grid](...), tuple grid, batches of 1000 (queue-pressure check)",
            lambda: k[grid](x, y, out, n), per_batch=1000, batches=max(5, a.batches // 20))
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
    gpu_us = gpu_us_per_kernel(torch, lambda: k[grid](x, y, out, n))

    device = torch.cuda.get_device_name()
    print(f"\nlaunch overhead from Python ({device}, torch {torch.__version__}, median of {a.batches} batches "
          f"of {a.per_batch}; CPU side only)\n")
    print("| path | wall us per launch | thread CPU us per launch |\n|---|---|---|")
    for name, wall, cpu in rows:
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    if gpu_us is not None:
        print(f"\nGPU time per tiny kernel, back to back: {gpu_us:.2f} us")
    kiln_us = rows[0][1]
    print(f"\ntarget: <= 4 us per launch from Python: {'met' if kiln_us <= 4.0 else 'NOT met'} ({kiln_us:.2f} us)")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": device, "torch": torch.__version__,
                       "results_us": {name: wall for name, wall, _ in rows},
                       "thread_cpu_us": {name: cpu for name, _, cpu in rows},
                       "gpu_us_per_kernel": gpu_us}, f, indent=2)
    return 0


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    sys.exit(main())
