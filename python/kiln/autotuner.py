"""kiln.autotune, kiln.heuristics and kiln.Config, with Triton's semantics.

The autotuner times every (pruned) config the first time it sees a key (the values of the `key`
arguments and the dtypes of the array arguments), keeps the fastest, and launches with it from then
on. Timing uses kiln.testing.do_bench (do_bench_cudagraph with use_cuda_graph=True): CUDA events on
the GPU, the wall clock on the interpreter. With cache_results=True or KILN_CACHE_AUTOTUNING=1 the
choice is also kept on disk for later processes (kiln/_autotune_cache.py); KILN_PRINT_AUTOTUNING=1
prints each choice and its timings. The TRITON_ names of both variables are read too.
"""
import builtins
import os
import sys
import time

from . import _autotune_cache
from . import _kiln
from . import _launch_device
from .jit import KernelInterface, _env_flag


def _either_flag(name):
    return _env_flag("KILN_" + name) or _env_flag("TRITON_" + name)


class Config:
    """One autotuning configuration: meta-parameter values (kwargs) and launch options.

    warp_specialize (kiln's; Triton's Config has no such option) compiles the config as if the first loop
    nest that can be warp-specialized said tl.range(..., warp_specialize=True): on sm_90a, a loop whose
    TMA copies feed one accumulating wgmma dot (docs/hopper.md). None or False: only loops that ask.

    persistent (kiln's too) runs a kernel written one tile per program persistently: the launch starts at
    most one wave of programs, each walking the grid's programs p, p + n, p + 2n, ...; with
    warp_specialize the next tile's copies overlap this tile's epilogue (docs/hopper.md)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 warp_specialize=None, persistent=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.warp_specialize = warp_specialize
        self.persistent = persistent

    def all_kwargs(self):
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages, "num_ctas": self.num_ctas,
                   "maxnreg": self.maxnreg, "warp_specialize": self.warp_specialize or None,
                   "persistent": self.persistent or None}
        return {**self.kwargs, **{k: v for k, v in options.items() if v is not None}}

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}", f"num_stages: {self.num_stages}",
                  f"maxnreg: {self.maxnreg}"]
        if self.warp_specialize:
            parts.append("warp_specialize: True")
        if self.persistent:
            parts.append("persistent: True")
        return ", ".join(parts)

    __repr__ = __str__


def _zero(x):
    if hasattr(x, "zero_"):
        x.zero_()
    else:
        x[...] = 0


def _clone(x):
    return x.clone() if hasattr(x, "clone") else x.copy()


def _restore(x, saved):
    if hasattr(x, "copy_"):
        x.copy_(saved)
    else:
        x[...] = saved


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False,
                 do_bench=None, cache_results=False):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key)
        self.cache = {}
        for names, what in ((reset_to_zero, "reset_to_zero"), (restore_value, "restore_value"), (self.keys, "key")):
            for n in names or ():
                if n not in self.arg_names:
                    raise _kiln.KilnError(f"autotune {what} names '{n}', which is not a parameter of "
                                          f"'{getattr(fn, '__name__', fn)}' ({', '.join(self.arg_names)})")
        self.reset_to_zero = list(reset_to_zero or ())
        self.restore_value = list(restore_value or ())
        self.user_pre_hook = pre_hook
        self.user_post_hook = post_hook
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.num_warmups = 25 if warmup is None else warmup
        self.num_reps = 100 if rep is None else rep
        self.use_cuda_graph = bool(use_cuda_graph)
        self.cache_results = bool(cache_results)
        self._fingerprint = None
        self._do_bench = do_bench
        self.best_config = None
        self.configs_timings = None
        self.bench_time = 0.0
        self.__name__ = getattr(fn, "__name__", "kernel")

    @property
    def do_bench(self):
        if self._do_bench is not None:
            return self._do_bench
        from .testing import do_bench, do_bench_cudagraph
        if self.use_cuda_graph:
            return lambda f, quantiles=None: do_bench_cudagraph(f, rep=self.num_reps, quantiles=quantiles)
        return lambda f, quantiles=None: do_bench(f, warmup=self.num_warmups, rep=self.num_reps,
                                                  quantiles=quantiles)

    def _on_gpu(self, full):
        return not getattr(self._jit(), "interpreted", False) and _launch_device.on_gpu(full.values())

    def _timer(self, full):
        """The benchmark function: do_bench (CUDA events) for GPU launches; the wall clock when the kernel
        runs on the interpreter, where CUDA events would time nothing."""
        if self._do_bench is not None or self._on_gpu(full):
            return self.do_bench
        from .testing import _bench_wall_clock
        return lambda f, quantiles=None: _bench_wall_clock(f, self.num_warmups, self.num_reps, quantiles, "mean")

    def _jit(self):
        fn = self.fn
        while hasattr(fn, "fn") and not hasattr(fn, "interpreted"):
            fn = fn.fn
        return fn

    def _key(self, all_args):
        key = [all_args[k] for k in self.keys if k in all_args]
        key += [str(a.dtype) for a in all_args.values() if hasattr(a, "dtype")]
        return tuple(key)

    def _device(self, all_args):
        """The CUDA device a launch with these arguments runs on (None: the interpreter)."""
        return _launch_device.of(all_args.values()) if self._on_gpu(all_args) else None

    @staticmethod
    def _slot(key, device):
        """The in-memory cache's key: `key`, and for a GPU launch its device ("cuda:1"), since two GPUs
        of one process may differ (the disk cache, keyed by the device's name and architecture, still
        serves a second one of the same kind without timing again)."""
        return key if device is None else key + (f"cuda:{device}",)

    def prune_configs(self, kwargs, nargs=None):
        configs = self.configs
        if self.early_config_prune:
            configs = self.early_config_prune(configs, {**(nargs or {}), **kwargs}, **kwargs)
            if not configs:
                raise _kiln.KilnError(f"autotune '{self.__name__}': early_config_prune left no config")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = max(int(top_k), 1)
            if len(configs) > top_k:
                est = {c: self.perf_model(**(nargs or {}), **kwargs, **c.all_kwargs()) for c in configs}
                configs = sorted(est, key=est.get)[:top_k]
        return list(configs)

    def _bench(self, args, nargs, config, grid, kwargs):
        conflicts = set(config.kwargs) & set(nargs) | set(config.kwargs) & set(kwargs)
        if conflicts:
            raise _kiln.KilnError(f"autotune '{self.__name__}': conflicting meta-parameters "
                                  f"{', '.join(sorted(conflicts))}: they are given at the call and by the configs")
        current = {**kwargs, **config.all_kwargs()}
        full = {**nargs, **current}
        saved = {n: _clone(full[n]) for n in self.restore_value}

        def call():
            for n in self.reset_to_zero:
                _zero(full[n])
            if config.pre_hook:
                config.pre_hook(full)
            self.fn.run(*args, grid=grid, **current)
            for n, v in saved.items():
                _restore(full[n], v)

        try:
            return self._timer(full)(call, quantiles=(0.5, 0.2, 0.8))
        except (_kiln.OutOfResources, _kiln.CompilationError) as e:
            self._last_failure = e
            return [float("inf")] * 3

    def run(self, *args, grid, warmup=False, **kwargs):
        nargs = dict(zip(self.arg_names, args))
        all_args = {**nargs, **kwargs}
        key = self._key(all_args)
        device = self._device(all_args)
        slot = self._slot(key, device)
        if slot not in self.cache:
            # Timed with the launch's device current: do_bench's events, L2 flush and synchronize are
            # then that device's, and so is the current stream the launches go to.
            with _launch_device.current(device):
                self.cache[slot] = self._tune(key, args, nargs, all_args, grid, kwargs, device)
        config = self.cache[slot]
        self.best_config = config
        if config.pre_hook:
            config.pre_hook({**nargs, **kwargs, **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **config.all_kwargs())

    def warmup(self, *args, **kwargs):
        return [self.fn.warmup(*args, **kwargs, **c.all_kwargs()) for c in self.prune_configs(kwargs)]

    def _tune(self, key, args, nargs, all_args, grid, kwargs, device):
        """The best config for `key`: read from the disk cache when it is on and has it, else timed."""
        self._last_failure = None
        pruned = self.prune_configs(kwargs, nargs)
        path = self._cache_path(key, pruned, device) if len(pruned) > 1 else None
        cached = _autotune_cache.load(path, pruned) if path else None
        started = time.perf_counter()
        if cached is not None:
            best, timings = cached
        elif len(pruned) == 1:
            best, timings = pruned[0], {pruned[0]: [0.0]}
        else:
            if self.user_pre_hook:
                self.user_pre_hook(all_args)
            timings = {c: self._bench(args, nargs, c, grid, kwargs) for c in pruned}
            if self.user_post_hook:
                self.user_post_hook(all_args, None)
            best = builtins.min(timings, key=lambda c: _first(timings[c]))
            if _first(timings[best]) == float("inf") and self._last_failure is not None:
                raise self._last_failure
            if path:
                _autotune_cache.store(path, pruned, best, timings)
        self.bench_time = time.perf_counter() - started
        self.configs_timings = timings
        if _either_flag("PRINT_AUTOTUNING") and len(pruned) > 1:
            self._print_choice(key, best, timings, from_disk=cached is not None)
        return best

    def _cache_path(self, key, pruned, device):
        if not (self.cache_results or _either_flag("CACHE_AUTOTUNING")):
            return None
        if _autotune_cache._cache_dir() is None:
            import warnings
            warnings.warn(f"autotune '{self.__name__}': the results cannot be kept on disk: kiln's disk cache is off "
                          "(KILN_CACHE_DISABLE) or has no directory; they are kept for this process only",
                          stacklevel=4)
            return None
        if self._fingerprint is None:
            self._fingerprint = _autotune_cache.kernel_fingerprint(self._jit())
        return _autotune_cache.entry_path(self._fingerprint, key, pruned, _autotune_cache.device_tag(device))

    def _print_choice(self, key, best, timings, from_disk):
        how = "read from the disk cache" if from_disk else f"tuned in {self.bench_time:.2f}s"
        lines = [f"kiln autotuning '{self.__name__}' for key {key}: {how}; ms (median, 20%, 80%) per config:"]
        for c, t in timings.items():
            mark = "*" if c is best else " "
            lines.append(f"  {mark} {_ms(t)}  {c}")
        lines.append(f"  best config: {best}")
        print("\n".join(lines), file=sys.stdout, flush=True)


def _first(t):
    return t[0] if isinstance(t, (list, tuple)) else t


def _ms(t):
    """A config's timings (median, 20%, 80% quantiles) in ms, as text."""
    t = list(t) if isinstance(t, (list, tuple)) else [t]
    return " ".join(f"{x:9.4f}" for x in t) + " ms"


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """@kiln.autotune(configs=[kiln.Config({...}, num_warps=4), ...], key=["n"]) above @kiln.jit."""

    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    """Meta-parameters computed from the other arguments at each launch."""

    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = dict(values)
        self.arg_names = list(arg_names)
        self.__name__ = getattr(fn, "__name__", "kernel")

    def _apply(self, args, kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._apply(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._apply(args, kwargs))


def heuristics(values):
    """@kiln.heuristics({"BLOCK": lambda args: kiln.next_power_of_2(args["n"])}) above @kiln.jit."""

    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)

    return decorator
