"""Do launches on two GPUs overlap? A long compute-bound kiln kernel is timed on cuda:0 alone, on cuda:1
alone and on both at once (launched back to back from one thread, and from two threads), each device on a
stream of its own. With nothing synchronising the devices with each other, both at once take about as
long as the slower one alone (ratio ~1.0); a launch that waited for the other device would take the sum
(ratio ~2.0).

    PYTHONPATH=BUILD/python python3 bench/multi_gpu_overlap.py [--ms 50] [--rounds 7] [--out FILE.md]

Times are wall clock on the host, from the first launch to the end of the last synchronisation, median
over rounds; each round also checks both devices' results against each other and against the closed form.
Needs torch and two CUDA devices; elsewhere it says so and measures nothing.
"""
import argparse
import datetime
import os
import statistics
import sys
import threading
import time

import kiln
import kiln.language as tl

DECAY = 0.999


@kiln.jit
def spin(out_ptr, iters, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = (offs % 7).to(tl.float32)
    for _ in range(iters):
        acc = acc * DECAY + 1.0
    tl.store(out_ptr + offs, acc)


BLOCK = 256


class Device:
    """One GPU's output buffer, stream and grid (a few programs per multiprocessor)."""

    def __init__(self, torch, index):
        self.torch, self.index = torch, index
        props = torch.cuda.get_device_properties(index)
        self.name = props.name
        self.grid = (4 * props.multi_processor_count,)
        self.out = torch.empty(self.grid[0] * BLOCK, device=f"cuda:{index}")
        self.stream = torch.cuda.Stream(device=index)

    def launch(self, iters):
        with self.torch.cuda.device(self.index), self.torch.cuda.stream(self.stream):
            spin[self.grid](self.out, iters, BLOCK=BLOCK)

    def wait(self):
        self.stream.synchronize()


def wall_ms(run, devices):
    for d in devices:
        d.wait()
    start = time.perf_counter()
    run()
    for d in devices:
        d.wait()
    return (time.perf_counter() - start) * 1e3


def check(torch, devices, iters):
    first = devices[0].out.cpu()
    start = (torch.arange(first.numel()) % 7).double()
    want = start * DECAY ** iters + (1 - DECAY ** iters) / (1 - DECAY)
    for d in devices:
        got = d.out.cpu()
        if not torch.equal(got, first):
            raise SystemExit(f"cuda:{d.index} computed other values than cuda:0")
        if not torch.allclose(got.double(), want, rtol=1e-3):
            raise SystemExit(f"cuda:{d.index} computed a wrong result")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ms", type=float, default=50.0, help="the kernel's time alone, roughly (default 50)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", help="also write the markdown table here")
    a = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("multi_gpu_overlap.py: needs torch; nothing measured")
        return 0
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count < 2 or not kiln.has_gpu():
        print(f"multi_gpu_overlap.py: needs two CUDA devices (torch sees {count}); nothing measured")
        return 0
    devices = [Device(torch, 0), Device(torch, 1)]
    # Calibrate: iterations for about --ms on cuda:0 (compiling and loading on both devices first).
    iters = 1 << 12
    for d in devices:
        d.launch(iters)
    for _ in range(8):
        t = wall_ms(lambda: devices[0].launch(iters), devices[:1])
        if t > a.ms / 4:
            break
        iters *= 4
    iters = max(1, int(iters * a.ms / t))

    def both_one_thread():
        for d in devices:
            d.launch(iters)

    def both_two_threads():
        threads = [threading.Thread(target=d.launch, args=(iters,)) for d in devices]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    cases = [("cuda:0 alone", lambda: devices[0].launch(iters), devices[:1]),
             ("cuda:1 alone", lambda: devices[1].launch(iters), devices[1:]),
             ("both, one thread", both_one_thread, devices),
             ("both, two threads", both_two_threads, devices)]
    times = {name: [] for name, _, _ in cases}
    for _ in range(a.rounds):
        for name, run, used in cases:
            times[name].append(wall_ms(run, used))
        check(torch, devices, iters)
    median = {name: statistics.median(t) for name, t in times.items()}
    slower_alone = max(median["cuda:0 alone"], median["cuda:1 alone"])
    rows = []
    for name, _, _ in cases:
        ratio = median[name] / slower_alone
        verdict = "" if "alone" in name else ("overlap" if ratio < 1.3 else "**serialised**")
        rows.append(f"| {name} | {median[name]:.2f} | {min(times[name]):.2f} | {ratio:.2f} | {verdict} |")
    header = [
        "# Two GPUs at once: do kiln launches on cuda:0 and cuda:1 overlap?",
        "",
        f"- date: {datetime.date.today().isoformat()}; commit: {os.environ.get('KILN_COMMIT', 'unknown')}",
        f"- devices: cuda:0 {devices[0].name}, cuda:1 {devices[1].name}; torch {torch.__version__}; "
        f"kiln {kiln.__version__}",
        f"- command: python3 bench/multi_gpu_overlap.py --ms {a.ms:g} --rounds {a.rounds}",
        f"- kernel: `spin`, {iters} dependent fma per element, grid {devices[0].grid[0]} x {BLOCK} on cuda:0 "
        f"and {devices[1].grid[0]} x {BLOCK} on cuda:1, each device on a stream of its own",
        "- ratio: the median over the slower device's median alone (~1.0: the devices overlap; ~2.0: one "
        "waited for the other)",
        "",
        "| case | median ms | min ms | ratio | |",
        "|---|---|---|---|---|",
    ]
    text = "\n".join(header + rows) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
