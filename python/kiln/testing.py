"""kiln.testing: do_bench (CUDA events, like triton.testing.do_bench), do_bench_cudagraph,
assert_close, and perf_report / Benchmark (kiln/_perf_report.py).

do_bench times with CUDA events when PyTorch sees a GPU, flushing L2 before each repetition; on a
machine without one it times with the wall clock, so the same benchmarking code (and the autotuner)
also runs on the interpreter. do_bench_cudagraph needs torch with CUDA: it replays a CUDA graph.
"""
import statistics
import sys
import time


def _torch_cuda():
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch  # noqa: F811
        except ImportError:
            return None
    return torch if torch.cuda.is_available() else None


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        qs = _quantiles(times, quantiles)
        return qs[0] if len(qs) == 1 else qs
    if return_mode == "all":
        return list(times)
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "mean":
        return statistics.fmean(times)
    if return_mode == "median":
        return statistics.median(times)
    raise ValueError(f"return_mode must be one of min, max, mean, median, all; got {return_mode!r}")


def _quantiles(times, quantiles):
    s = sorted(times)
    out = []
    for q in quantiles:
        if not 0 <= q <= 1:
            raise ValueError(f"quantiles must be in [0, 1], got {q}")
        pos = q * (len(s) - 1)  # linear interpolation, as torch.quantile
        lo = int(pos)
        hi = min(lo + 1, len(s) - 1)
        out.append(s[lo] + (s[hi] - s[lo]) * (pos - lo))
    return out


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runtime of fn() in milliseconds: warm-up for about `warmup` ms, then about `rep` ms of
    repetitions, each timed alone with L2 flushed before it. Returns the `return_mode` statistic
    ("min", "max", "mean", "median", "all") or, with `quantiles`, those quantiles."""
    torch = _torch_cuda()
    if torch is None:
        return _bench_wall_clock(fn, warmup, rep, quantiles, return_mode)
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = min(max(1, int(warmup / estimate)), 10000)
    n_repeat = min(max(1, int(rep / estimate)), 10000)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runtime of fn() in milliseconds, launch overhead excluded: fn() is captured into a CUDA graph
    about `rep` ms long (on a side stream, as torch.cuda.graph requires), the graph is replayed ten
    times, and each replay's time per call is one sample. Needs torch with a CUDA device."""
    torch = _torch_cuda()
    if torch is None:
        from ._kiln import DeviceError
        raise DeviceError("do_bench_cudagraph needs torch with a CUDA device (CUDA graphs are captured by "
                          "torch.cuda.graph); without one use kiln.testing.do_bench")

    def clear_grads():
        for x in grad_to_none or ():
            x.grad = None

    with torch.cuda.stream(torch.cuda.Stream()):
        fn()  # compiled and loaded before capture: nothing but launches may happen inside a graph
        clear_grads()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        torch.cuda.synchronize()
        start.record()
        for _ in range(5):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-6)
        n_repeat = min(max(1, int(rep / estimate)), 1000)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_repeat):
                clear_grads()
                fn()
        torch.cuda.synchronize()
        graph.replay()  # warm-up
        times = []
        for _ in range(10):
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_repeat)
    return _summarize(times, quantiles, return_mode)


def _bench_wall_clock(fn, warmup, rep, quantiles, return_mode):
    t0 = time.perf_counter()
    fn()
    estimate = max((time.perf_counter() - t0) * 1e3, 1e-6)
    for _ in range(min(max(0, int(warmup / estimate)), 1000)):
        fn()
    times = []
    for _ in range(min(max(1, int(rep / estimate)), 1000)):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return _summarize(times, quantiles, return_mode)


def _to_numpy(x):
    import numpy as np
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu()
        if str(x.dtype) in ("torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e5m2"):
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Asserts that x and y (tensors, arrays or scalars) are elementwise close: |x - y| <= atol + rtol * |y|
    (defaults as Triton's: atol 1e-2, rtol 0). NaNs must match."""
    import numpy as np
    if atol is None:
        atol = 1e-2
    if rtol is None:
        rtol = 0.0
    xa, ya = _to_numpy(x), _to_numpy(y)
    if xa.dtype == np.bool_ or ya.dtype == np.bool_:
        np.testing.assert_array_equal(xa, ya, err_msg=err_msg)
        return
    np.testing.assert_allclose(xa.astype(np.float64), ya.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True,
                               err_msg=err_msg)


from ._perf_report import Benchmark, Mark, perf_report  # noqa: E402
