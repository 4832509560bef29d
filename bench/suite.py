#!/usr/bin/env python3
# The benchmark suite: kiln, Triton and PyTorch on the same kernel sources (bench/kernels/*.py, loaded
# once with real Triton and once through kiln.compat.import_as_triton) and the same fresh random inputs,
# each result checked against a high-precision reference, everything timed by bench/timing.py, and one
# table (bench/report.py) written to --out and stdout. The cases run in a child process; if it dies
# (a sticky CUDA error, a crash) or hangs, that case is reported and a new child runs the rest.
#
#   python3 bench/suite.py [--quick] [--only softmax,matmul] [--out DIR] [--sides kiln,triton,torch]
import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402
from supervisor import COPY, Supervisor  # noqa: E402


def first_line(e):
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"


# ---------------------------------------------------------------- the child: runs cases, writes events

class Child:
    def __init__(self, args, emit):
        import torch
        import timing
        import workloads
        self.torch, self.timing, self.workloads, self.args, self.emit = torch, timing, workloads, args, emit
        self.modules, self.unavailable, self.timed = {}, {}, {}
        self.triton = self.kiln = None
        if "triton" in args.sides:
            try:
                import triton
                self.triton = triton
            except Exception as e:
                self.unavailable["triton"] = first_line(e)
        if "kiln" in args.sides:
            try:
                import kiln
                self.kiln = kiln
            except Exception as e:
                self.unavailable["kiln"] = first_line(e)

    def bench(self, fn, short=False):
        a = self.args
        if short:  # one candidate of the suite's own tuning
            return self.timing.do_bench(fn, warmup_ms=5, rep_ms=25, min_reps=5, max_reps=200)
        return self.timing.do_bench(fn, warmup_ms=a.warmup_ms, rep_ms=a.rep_ms, min_reps=10, max_reps=1000)

    def alive(self):
        """False once the CUDA context is broken (a sticky error): nothing after it can be trusted."""
        try:
            self.torch.cuda.synchronize()
            return self.torch.ones(1, device="cuda").item() == 1.0
        except Exception:
            return False

    def environment(self):
        torch = self.torch
        props = torch.cuda.get_device_properties(0)
        smi = lambda q: _run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"]).splitlines()[0:1]
        plain = _run(["nvidia-smi"])
        driver_cuda = re.search(r"CUDA Version:\s*([\d.]+)", plain)
        kiln_version = "n/a"
        if self.kiln is not None:
            kiln_version = str(getattr(self.kiln, "__version__", "?"))
            commit = os.environ.get("KILN_COMMIT") or _run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"]).strip()
            if commit:
                kiln_version += f" (commit {commit})"
        a = self.args
        return {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "gpu": f"{props.name} ({props.multi_processor_count} SMs, {props.total_memory / 2**30:.0f} GiB)",
            "driver": (smi("driver_version") or ["?"])[0].strip(),
            "clocks": " SM, ".join(smi("clocks.max.sm,clocks.max.mem")[0].strip().split(", ")) + " memory"
            if smi("clocks.max.sm,clocks.max.mem") else "?",
            "cuda": torch.version.cuda, "driver_cuda": driver_cuda.group(1) if driver_cuda else "?",
            "cudnn": str(torch.backends.cudnn.version()), "torch": torch.__version__,
            "triton": getattr(self.triton, "__version__", "n/a"), "kiln": kiln_version,
            "python": platform.python_version(), "tuner": a.tuner, "unavailable": self.unavailable,
            "timing": {"warmup_ms": a.warmup_ms, "rep_ms": a.rep_ms, "min_reps": 10, "max_reps": 1000,
                       "rounds": a.rounds},
        }

    def copy_bandwidth(self):
        return self.copy_rate(1 << 28)  # 1 GiB of fp32

    def copy_rate(self, numel):
        """copy_ of `numel` fp32 device to device, timed like the kernels; read + write counted."""
        src = self.torch.randn(numel, device="cuda")
        dst = self.torch.empty_like(src)
        t = self.bench(lambda: dst.copy_(src))
        del src, dst
        self.torch.cuda.empty_cache()
        return {"ms": t.median, "gbs": 2 * numel * 4 / (t.median * 1e-3) / 1e9, "timing": t.summary()}

    def module(self, side, family):
        key = (side, family)
        if key not in self.modules:
            file = self.workloads.KERNEL_FILES[family]
            path = os.path.join(HERE, "kernels", file + ".py")
            name = f"kiln_bench_{side}_{file}"
            try:
                if side == "triton":
                    spec = importlib.util.spec_from_file_location(name, path)
                    mod = importlib.util.module_from_spec(spec)
                    sys.modules[name] = mod
                    spec.loader.exec_module(mod)
                else:
                    mod = importlib.import_module("kiln.compat").import_as_triton(path, module_name=name)
                self.modules[key] = mod
            except Exception as e:
                traceback.print_exc()
                self.modules[key] = RuntimeError(f"loading bench/kernels/{file}.py: {first_line(e)}")
        if isinstance(self.modules[key], Exception):
            raise self.modules[key]
        return self.modules[key]

    def suite_tune(self, launch, notes):
        """Times every config of the launch with the suite's timer; returns (best launch, its config)."""
        best, errors = None, []
        for cfg in launch.configs:
            candidate = launch.with_config(cfg)
            try:
                ms = self.bench(candidate, short=True).median
                if best is None or ms < best[0]:
                    best = (ms, candidate, cfg)
            except Exception as e:
                traceback.print_exc()
                errors.append(f"{_config_text(cfg)}: {first_line(e)}")
                if not self.alive():
                    raise RuntimeError(f"CUDA context lost while tuning ({errors[-1]})")
        notes += [f"config failed: {e}" for e in errors]
        if best is None:
            raise RuntimeError(f"every config failed; first: {errors[0]}")
        return best[1], best[2]

    def kernel_side(self, side, case, inputs, ref):
        torch, r = self.torch, {"notes": []}
        t0 = time.perf_counter()
        launch = case.kernel(self.module(side, case.family), inputs)
        config = None
        if launch.tuned is not None and self.args.tuner == "suite":
            launch, config = self.suite_tune(launch, r["notes"])
        else:
            try:
                launch()
                torch.cuda.synchronize()
                if launch.tuned is not None:
                    config = getattr(launch.tuned, "best_config", None)
            except Exception as e:
                if launch.tuned is None or not self.alive():
                    raise
                traceback.print_exc()
                r["notes"].append(f"autotune failed ({first_line(e)}); tuned by the suite instead")
                launch, config = self.suite_tune(launch, r["notes"])
        r["first_call_s"] = time.perf_counter() - t0
        r["config"] = _config_text(config) if config is not None else ("autotuned (best_config unknown)"
                                                                        if launch.tuned is not None else "fixed")
        if launch.tuned is not None and config is not None and launch.configs:
            # Time the chosen config launched directly: the autotuner's own per-call work on the host
            # (Triton's wrapper) would otherwise outlast the L2 flush before a short kernel and be timed.
            launch = launch.with_config(config)
        launch.reset()
        out = launch()
        torch.cuda.synchronize()
        r["check_ok"], r["check"] = self.workloads.check(out, ref)
        r["regs"], r["local_bytes"] = _resources(launch.handle, side)
        t = self.bench(launch)
        r["ms"], r["timing"] = t.median, t.summary()
        self.timed[side] = (launch, t.times_ms)
        return r

    def torch_side(self, case, inputs, ref):
        torch, r, timed = self.torch, {"peers": {}, "notes": []}, []
        for label, fn in case.peers(inputs):
            try:
                out = fn()
                torch.cuda.synchronize()
                ok, text = self.workloads.check(out, ref)
                del out
                t = self.bench(fn)
                r["peers"][label] = t.median
                timed.append((not ok, t.median, label, ok, text, t, fn))
            except Exception as e:
                r["peers"][label] = "error: " + first_line(e)
                if not self.alive():
                    raise
        if not timed:
            raise RuntimeError("; ".join(f"{k}: {v}" for k, v in r["peers"].items()))
        _, ms, label, ok, text, t, fn = min(timed, key=lambda x: x[:3])  # the fastest peer that checks out
        r.update(config=label, ms=ms, check_ok=ok, check=text, timing=t.summary())
        self.timed["torch"] = (fn, t.times_ms)
        if len(r["peers"]) == 1:
            r["peers"] = {}
        return r

    def run_case(self, case):
        torch = self.torch
        g = torch.Generator(device="cuda")
        g.manual_seed(case.seed)
        row = {"name": case.name, "family": case.family, "nbytes": case.nbytes, "flops": case.flops, "sides": {}}
        inputs = ref = None
        try:
            inputs = case.setup(g)
            ref = case.reference(inputs)
            torch.cuda.synchronize()
        except Exception as e:
            traceback.print_exc()
            row["error"] = "inputs/reference: " + first_line(e)
            return row, self.alive()
        self.timed = {}
        for side in ("torch", "triton", "kiln"):  # kiln last: a sticky error of its own then costs only its cell
            if side not in self.args.sides:
                continue
            if side in self.unavailable:
                row["sides"][side] = None
                continue
            self.emit({"event": "side", "case": case.name, "side": side})
            try:
                row["sides"][side] = (self.torch_side(case, inputs, ref) if side == "torch"
                                      else self.kernel_side(side, case, inputs, ref))
            except Exception as e:
                traceback.print_exc()
                row["sides"][side] = {"error": first_line(e)}
                if not self.alive():
                    row["sides"][side]["error"] += " (CUDA context lost: the rest runs in a new process)"
                    return row, False
            finally:
                torch.cuda.empty_cache()
            self.emit({"event": "side_done", "case": case.name, "side": side, "result": row["sides"][side]})
        self.more_rounds(row)
        self.timed = {}
        del inputs, ref
        torch.cuda.empty_cache()
        if case.nbytes and not case.flops:
            try:
                row["same_size_copy"] = self.same_size_copy(case.nbytes)
            except Exception as e:
                row["same_size_copy"] = {"error": first_line(e)}
        return row, True

    def more_rounds(self, row):
        """Times every side that ran again, args.rounds - 1 more times, alternating the order (kiln first
        on odd rounds, last on even ones), and reports each side's median over all its repetitions: a
        drift of the device during the case then weighs on every side alike."""
        for k in range(1, self.args.rounds):
            order = list(self.timed)
            for side in (reversed(order) if k % 2 else order):
                fn, times = self.timed[side]
                try:
                    times += self.bench(fn).times_ms
                except Exception as e:
                    traceback.print_exc()
                    row["sides"][side].setdefault("notes", []).append(f"round {k + 1} failed: {first_line(e)}")
                    if not self.alive():
                        return
        for side, (_, times) in self.timed.items():
            t = self.timing.Timing(times)
            row["sides"][side].update(ms=t.median, timing=t.summary(), rounds=self.args.rounds)

    def same_size_copy(self, nbytes):
        """The device copy at this case's size: copy_ of nbytes / 2 read and written, timed like the kernels
        (launch, ramp-up and the first DRAM latency weigh on small sizes as they do on the kernels)."""
        return self.copy_rate(max(1, nbytes // 8))  # fp32: nbytes / 2 bytes each way

    def run(self, names):
        self.emit({"event": "env", "env": self.environment()})
        cases = {c.name: c for c in self.workloads.all_cases(smoke=self.args.smoke)}
        for name in names:
            c = cases.get(name)
            self.emit({"event": "start", "case": name, "family": getattr(c, "family", None),
                       "nbytes": getattr(c, "nbytes", 0), "flops": getattr(c, "flops", 0)})
            t0 = time.perf_counter()
            if name == COPY:
                try:
                    self.emit({"event": "copy", "copy": self.copy_bandwidth()})
                except Exception as e:
                    self.emit({"event": "copy", "copy": {"error": first_line(e)}})
                continue
            row, alive = self.run_case(cases[name])
            row["wall_s"] = time.perf_counter() - t0
            self.emit({"event": "row", "row": row})
            if not alive:
                return 3
        return 0


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return ""


def _config_text(cfg):
    """'M128 N256 K64 G8 w8 s3' for a Config (either package's), else str(); kiln's schedule options follow
    ('ws', 'persistent') when the config sets them."""
    kwargs = getattr(cfg, "kwargs", None)
    if kwargs is None:
        return str(cfg)
    short = lambda k: k.replace("BLOCK_SIZE_", "").replace("BLOCK_", "").replace("GROUP_SIZE_M", "G")
    parts = [f"{short(k)}{v}" for k, v in kwargs.items()]
    parts += [f"w{getattr(cfg, 'num_warps', '?')}", f"s{getattr(cfg, 'num_stages', '?')}"]
    parts += [name for attr, name in (("warp_specialize", "ws"), ("persistent", "persistent")) if getattr(cfg, attr, None)]
    return " ".join(parts)


def _resources(handle, side):
    """(registers, local memory bytes per thread: spills and stack) of the launched kernel, when the
    launch returned a handle that says so. Triton's n_spills is those bytes / 4; kiln's is the bytes."""
    regs, spills = getattr(handle, "n_regs", None), getattr(handle, "n_spills", None)
    regs = regs if isinstance(regs, int) else None
    spills = spills if isinstance(spills, int) else None
    if spills is not None and side == "triton":
        spills *= 4
    return regs, spills


# ---------------------------------------------------------------- the command line

def select(args):
    import workloads  # torch is imported here only to build the case list
    names = []
    tokens = [t.strip().lower() for t in (args.only or "").split(",") if t.strip()]
    aliases = {"add": "vector_add", "vector-add": "vector_add", "vectoradd": "vector_add", "attn": "attention"}
    for c in workloads.all_cases(smoke=args.smoke):
        if args.quick and not c.quick:
            continue
        if tokens and not any(aliases.get(t, t) == c.family or t in c.name.lower() for t in tokens):
            continue
        names.append(c.name)
    return names


def main(argv):
    ap = argparse.ArgumentParser(description="kiln vs Triton vs PyTorch on bench/kernels/*.py (see bench/README.md)")
    ap.add_argument("--quick", action="store_true", help="a subset of the cases, shorter timing (under 2 minutes)")
    ap.add_argument("--smoke", action="store_true", help="every case at a tiny shape: shows that everything "
                    "compiles, runs and checks out (the figures mean nothing)")
    ap.add_argument("--only", help="comma-separated families (vector_add, softmax, layernorm, matmul, attention) "
                    "or substrings of case names ('matmul bf16')")
    ap.add_argument("--out", default=os.environ.get("OUT"), help="folder for suite.md, suite.json, suite.log "
                    "(default: $OUT; none: stdout only)")
    ap.add_argument("--sides", default="kiln,triton,torch", type=lambda s: [x.strip() for x in s.split(",")])
    ap.add_argument("--tuner", choices=("autotune", "suite"), default="autotune",
                    help="matmul/attention configs: each package's autotuner, or the suite's timer over the same list")
    ap.add_argument("--rounds", type=int, default=3, help="times each side of a case this many times, in "
                    "alternating order, and reports the median of all repetitions")
    ap.add_argument("--warmup-ms", type=float, default=None)
    ap.add_argument("--rep-ms", type=float, default=None)
    ap.add_argument("--case-timeout", type=float, default=240, help="seconds one case may take before it is killed")
    ap.add_argument("--budget", type=float, default=None, help="seconds the run may take: then the running case "
                    "is stopped, the rest are listed as not run, and the report is written")
    ap.add_argument("--verbose", action="store_true", help="echo the benchmark process's log to stderr")
    ap.add_argument("--no-isolate", action="store_true", help="run the cases in this process (debugging)")
    ap.add_argument("--child", nargs=2, metavar=("CASES", "EVENTS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.warmup_ms = args.warmup_ms or (10.0 if args.quick else 25.0)
    args.rep_ms = args.rep_ms or (40.0 if args.quick else 100.0)
    bad = [s for s in args.sides if s not in report.SIDES]
    if bad:
        ap.error(f"unknown side(s) {bad}; choose from {report.SIDES}")
    if args.child:
        with open(args.child[0]) as f:
            names = json.load(f)
        with open(args.child[1], "a") as events:
            def emit(ev):
                events.write(json.dumps(ev) + "\n")
                events.flush()
            return Child(args, emit).run(names)
    if args.no_isolate:
        names = [COPY] + select(args)
        got = []
        Child(args, got.append).run(names)
        env = next((e["env"] for e in got if e["event"] == "env"), None)
        copy = next((e["copy"] for e in got if e["event"] == "copy"), None)
        rows = [e["row"] for e in got if e["event"] == "row"]
        print(report.write(args.out, env, copy, rows, "python3 bench/suite.py " + " ".join(argv)))
        return 0
    names = select(args)
    if not names:
        ap.error(f"no case matches --only {args.only}")
    Supervisor(args, argv, names, os.path.abspath(__file__)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
