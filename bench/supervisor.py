# Runs the suite's cases in a child process (bench/suite.py --child) and survives it: a case whose
# process dies (a crash, a sticky CUDA error) or hangs past --case-timeout is reported as such and a
# fresh child runs the remaining cases; past --budget no new case starts. The child reports through
# a JSON-lines events file; the report is rewritten after every case, so a run killed from outside
# still leaves a table of what finished.
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

import report

COPY = "device copy bandwidth"  # the pseudo-case every run measures first


class Supervisor:
    def __init__(self, args, argv, names, suite_path):
        self.args, self.names, self.suite_path = args, names, suite_path
        self.command = "python3 bench/suite.py " + " ".join(shlex.quote(a) for a in argv)
        self.tmp = tempfile.mkdtemp(prefix="kiln-suite-")
        self.log_path = os.path.join(args.out or self.tmp, "suite.log")
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        self.env, self.copy, self.rows, self.sizes = None, None, {}, {}
        self.remaining = [COPY] + list(names)
        self.t_start = time.time()

    # ---- bookkeeping

    def elapsed(self):
        return time.time() - self.t_start

    def progress(self, name, text):
        print(f"[{self.elapsed():6.1f} s] {name}: {text}", file=sys.stderr, flush=True)

    def finish_row(self, row):
        self.rows[row["name"]] = row
        if row["name"] in self.remaining:
            self.remaining.remove(row["name"])
        self.progress(row["name"], _row_summary(row))
        self.write()

    def fail_case(self, name, why, partial=None, side=None):
        """Ends a case the child could not finish: finished sides stay, the running one gets `why`."""
        if name == COPY:
            self.copy = {"error": why}
            self.remaining.remove(COPY)
            self.progress(COPY, why)
            return
        row = {"name": name, **self.sizes.get(name, {"nbytes": 0, "flops": 0}), "sides": dict(partial or {})}
        if side is not None and not why.startswith("not run"):
            row["sides"][side] = {"error": why}
        else:
            row["error"] = why
        for other in self.args.sides:
            row["sides"].setdefault(other, {"skipped": True})
        self.finish_row(row)

    def write(self):
        ordered = [self.rows[n] for n in self.names if n in self.rows]
        return report.write(self.args.out, self.env, self.copy, ordered, self.command)

    # ---- one child

    def run_child(self):
        """Runs one child over self.remaining; returns (exit status, stop reason or None, state)."""
        cases_file, events_file = os.path.join(self.tmp, "cases.json"), os.path.join(self.tmp, "events.jsonl")
        with open(cases_file, "w") as f:
            json.dump(self.remaining, f)
        open(events_file, "w").close()
        a = self.args
        cmd = [sys.executable, self.suite_path, "--child", cases_file, events_file,
               "--sides", ",".join(a.sides), "--tuner", a.tuner, "--warmup-ms", str(a.warmup_ms),
               "--rep-ms", str(a.rep_ms), "--rounds", str(a.rounds)] + (["--smoke"] if a.smoke else [])
        log_pos = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        with open(self.log_path, "a") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        state = {"case": None, "side": None, "partial": {}, "started": time.time()}
        seen, stop = 0, None
        while True:
            rc = proc.poll()
            with open(events_file) as f:
                data = f.read()
            lines = data[:data.rfind("\n") + 1].splitlines()  # a line still being written is read next time
            for line in lines[seen:]:
                self.event(json.loads(line), state)
            seen = len(lines)
            log_pos = _echo_log(self.log_path, log_pos, a.verbose)
            if rc is not None:
                return rc, None, state
            if state["case"] is not None and time.time() - state["started"] > a.case_timeout:
                stop = f"timed out after {a.case_timeout:.0f} s"
            elif a.budget and self.elapsed() > a.budget:
                stop = f"not run: the time budget of {a.budget:.0f} s was spent"
            if stop:
                proc.kill()  # our own child, by its handle
                proc.wait()
                _echo_log(self.log_path, log_pos, a.verbose)
                return proc.returncode, stop, state
            time.sleep(0.5)

    def event(self, ev, state):
        kind = ev["event"]
        if kind == "env":
            self.env = self.env or ev["env"]
        elif kind == "start":
            state.update(case=ev["case"], side=None, partial={}, started=time.time())
            self.sizes[ev["case"]] = {"nbytes": ev.get("nbytes", 0), "flops": ev.get("flops", 0)}
        elif kind == "side":
            state["side"] = ev["side"]
        elif kind == "side_done":
            state["partial"][ev["side"]], state["side"] = ev["result"], None
        elif kind == "copy":
            self.copy, state["case"] = ev["copy"], None
            self.remaining.remove(COPY)
            c = self.copy
            self.progress(COPY, f"{c['gbs']:.0f} GB/s" if c.get("gbs") else c.get("error"))
        elif kind == "row":
            state["case"] = None
            self.finish_row(ev["row"])

    # ---- the whole run

    def run(self):
        while self.remaining:
            if self.args.budget and self.elapsed() > self.args.budget:
                for name in list(self.remaining):
                    self.fail_case(name, f"not run: the time budget of {self.args.budget:.0f} s was spent")
                break
            rc, stop, state = self.run_child()
            if not self.remaining:
                break
            case = state["case"]
            if stop and stop.startswith("not run"):  # the budget: the running case and the rest
                for name in list(self.remaining):
                    self.fail_case(name, stop, *((state["partial"], state["side"]) if name == case else ()))
                break
            if case is None:
                if rc == 3:  # the CUDA context was lost after a case: go on in a fresh process
                    continue
                # Died outside any case (imports, CUDA initialisation): nothing more can run.
                why = f"benchmark process exited ({_exit_text(rc)}) before this case: {_log_tail(self.log_path)}"
                for name in list(self.remaining):
                    self.fail_case(name, why)
                break
            why = stop or f"benchmark process died ({_exit_text(rc)}; last log line: {_log_tail(self.log_path)})"
            self.fail_case(case, why, state["partial"], state["side"])
        text = self.write()
        print(text)
        if self.args.out:
            print(f"(written to {self.args.out}/suite.md and suite.json; log: {self.log_path})", file=sys.stderr)
        print(f"total {self.elapsed():.0f} s", file=sys.stderr)


def _exit_text(rc):
    if rc is not None and rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def _row_summary(row):
    if row.get("error"):
        return row["error"]
    parts = []
    for side in report.SIDES:
        r = row["sides"].get(side)
        if r and r.get("ms") is not None:
            parts.append(f"{side} {r['ms']:.4f} ms {r.get('check', '')}")
        elif r and r.get("error"):
            parts.append(f"{side} ERROR {r['error']}")
    return "; ".join(parts)


def _echo_log(path, pos, verbose):
    """Copies what the child logged since pos to stderr (with --verbose); returns the new position."""
    with open(path, "rb") as f:
        f.seek(pos)
        data = f.read()
    if verbose and data:
        sys.stderr.write(data.decode(errors="replace"))
        sys.stderr.flush()
    return pos + len(data)


def _log_tail(path):
    with open(path, errors="replace") as f:
        lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(no output)"
