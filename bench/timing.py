# The one timing function of the benchmark suite: every side (kiln, Triton, PyTorch, the copy) is timed
# by do_bench, so differences in the figures come from the kernels, not from the stopwatch. It follows
# triton.testing.do_bench(return_mode="median"): CUDA events around each call, the L2 cache flushed
# (a 256 MB buffer written) before every repetition, warm-up first, repetition count sized by time.
import statistics

import torch

FLUSH_BYTES = 256 * 1024 * 1024  # larger than any L2 (H200: 50 MB), so no input survives a flush

_flush_buffers = {}


def flush_buffer(device=None):
    """The 256 MB buffer whose zeroing evicts the inputs of the previous repetition from L2."""
    device = torch.device("cuda", torch.cuda.current_device() if device is None else device)
    if device not in _flush_buffers:
        _flush_buffers[device] = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device=device)
    return _flush_buffers[device]


class Timing:
    """Per-call times in milliseconds of one do_bench run."""

    def __init__(self, times_ms):
        self.times_ms = sorted(times_ms)

    @property
    def median(self):
        return statistics.median(self.times_ms)

    def quantile(self, q):
        t = self.times_ms
        return t[min(len(t) - 1, max(0, round(q * (len(t) - 1))))]

    def summary(self):
        return {"median_ms": self.median, "min_ms": self.times_ms[0], "p20_ms": self.quantile(0.2),
                "p80_ms": self.quantile(0.8), "max_ms": self.times_ms[-1], "reps": len(self.times_ms)}


def do_bench(fn, warmup_ms=25.0, rep_ms=100.0, min_reps=10, max_reps=1000, flush=True):
    """Times fn() (which launches work on torch's current stream) and returns a Timing.

    fn is called once first (compilation, autotuning), then for about warmup_ms unmeasured, then
    about rep_ms worth of measured repetitions (at least min_reps, at most max_reps). Each
    repetition zeroes the flush buffer (not timed: it runs before the start event) and records a
    start and an end event around one call; the host enqueues everything and synchronises once, so
    the host time of a call is hidden behind the flush as long as it is shorter than the flush.
    """
    cache = flush_buffer() if flush else None
    fn()
    torch.cuda.synchronize()

    # Estimate the time of one repetition, flush included, to size warm-up and repetitions.
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        if cache is not None:
            cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(start.elapsed_time(end) / 5, 1e-4)
    n_warmup = max(1, int(warmup_ms / estimate_ms))
    n_reps = min(max_reps, max(min_reps, int(rep_ms / estimate_ms)))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_reps)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_reps):
        if cache is not None:
            cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return Timing([s.elapsed_time(e) for s, e in zip(starts, ends)])
