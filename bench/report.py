# The benchmark suite's report: one markdown table (absolute figures, kiln/peer speed ratios, checks,
# % of the device copy bandwidth) headed by the machine and versions, a configuration table, the
# errors, and the same data as JSON. Pure formatting: no torch here, so the parent process of
# bench/suite.py can write the report even when every benchmark process died.
import json
import os

SIDES = ("kiln", "triton", "torch")
SIDE_TITLES = {"kiln": "kiln", "triton": "Triton", "torch": "PyTorch"}


def rate(row, ms):
    """(value, unit) of a time for this row: GB/s for memory-bound cases, TFLOP/s for the others."""
    if row.get("flops"):
        return row["flops"] / (ms * 1e-3) / 1e12, "TFLOP/s"
    return row["nbytes"] / (ms * 1e-3) / 1e9, "GB/s"


def rate_cell(row, side, copy_gbs):
    r = row["sides"].get(side) or {}
    if r.get("ms") is None:
        return ""
    value, unit = rate(row, r["ms"])
    if unit == "TFLOP/s":
        return f"{value:.1f} TFLOP/s"
    pct = f" ({100 * value / copy_gbs:.0f}%)" if copy_gbs else ""
    return f"{value:.0f} GB/s{pct}"


def ms_cell(row, side):
    r = row["sides"].get(side)
    if r is None:
        return "n/a"
    if r.get("ms") is None:
        return "error" if r.get("error") else "not run" if r.get("skipped") else "n/a"
    return f"{r['ms']:.4f}"


def ratio_cell(row, peer):
    k, p = row["sides"].get("kiln") or {}, row["sides"].get(peer) or {}
    if k.get("ms") is None or p.get("ms") is None:
        return "-"
    return f"{p['ms'] / k['ms']:.2f}x"


def check_cell(row, side):
    r = row["sides"].get(side)
    if r is None or r.get("check") is None:
        return "-"
    return r["check"] if r.get("check_ok") else f"**{r['check']}**"


def clean(text):
    return str(text).replace("|", "/").replace("\n", " ")[:240]


def header_lines(env, copy, args_line):
    e = env or {}
    lines = [f"Date: {e.get('date', '?')}. GPU: {e.get('gpu', '?')}; driver {e.get('driver', '?')}; "
             f"max clocks {e.get('clocks', '?')}.",
             f"CUDA {e.get('cuda', '?')} (PyTorch's; driver supports {e.get('driver_cuda', '?')}), "
             f"cuDNN {e.get('cudnn', '?')}, PyTorch {e.get('torch', '?')}, Triton {e.get('triton', '?')}, "
             f"kiln {e.get('kiln', '?')}, Python {e.get('python', '?')}.",
             f"Command: `{args_line}`."]
    if copy and copy.get("gbs"):
        lines.append(f"Device copy bandwidth: {copy['gbs']:.0f} GB/s (torch copy_ of 1 GiB fp32 device to device, "
                     f"read + write counted, median {copy['ms']:.3f} ms).")
    elif copy:
        lines.append(f"Device copy bandwidth: not measured ({clean(copy.get('error', '?'))}).")
    t = e.get("timing")
    if t:
        rounds = t.get("rounds", 1)
        lines.append(f"Timing (bench/timing.py, the same for every column and for the copy): median over "
                     f"{t['min_reps']}..{t['max_reps']} repetitions sized to ~{t['rep_ms']:.0f} ms after "
                     f"~{t['warmup_ms']:.0f} ms of warm-up"
                     + (f", in {rounds} rounds per case that alternate the order of the sides" if rounds > 1 else "")
                     + f"; CUDA events around each call; L2 flushed before each "
                     f"by writing a 256 MB buffer. Matmul/attention tuning: {e.get('tuner', '?')}.")
    return lines


def markdown(env, copy, rows, args_line):
    copy_gbs = (copy or {}).get("gbs")
    out = ["# kiln benchmark suite: kiln vs Triton vs PyTorch", ""]
    out += [line + "  " for line in header_lines(env, copy, args_line)]
    out += ["", "| case | kiln ms | kiln | Triton ms | Triton | PyTorch ms | PyTorch | kiln vs Triton | "
            "kiln vs PyTorch | check kiln | check Triton | check PyTorch |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for row in rows:
        cells = [row["name"]]
        for side in SIDES:
            cells += [ms_cell(row, side), rate_cell(row, side, copy_gbs)]
        cells += [ratio_cell(row, "triton"), ratio_cell(row, "torch")]
        cells += [check_cell(row, side) for side in SIDES]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "Ratios are speed-ups, peer time / kiln time: above 1.00x kiln is faster. GB/s counts each input "
            "read once and each output written once; the percentage is of the device copy bandwidth. TFLOP/s: "
            "2MNK for matmul (shapes M x N x K), 4·B·H·N²·D for attention (half that when causal). Checks: "
            "max |out - ref| / max |ref| "
            "against an fp32/fp64 reference; ok when every element is within atol + rtol·|ref| "
            "(fp32 1e-4/1e-5, fp16 1e-2/1e-2, bf16 2e-2/2e-2; atol relative to max |ref|)."]
    sized = [row for row in rows if (row.get("same_size_copy") or {}).get("gbs")]
    if sized:
        out += ["", "## Memory-bound cases against a copy of the same size", "",
                "| case | same-size copy | kiln | Triton | PyTorch |", "|---|---:|---:|---:|---:|"]
        for row in sized:
            c = row["same_size_copy"]
            cells = [row["name"], f"{c['gbs']:.0f} GB/s ({c['ms']:.4f} ms)"]
            for side in SIDES:
                r = row["sides"].get(side) or {}
                cells.append("" if r.get("ms") is None else f"{100 * c['ms'] / r['ms']:.0f}%")
            out.append("| " + " | ".join(cells) + " |")
        out += ["", "The same-size copy is torch copy_ moving the case's bytes (half read, half written), timed the "
                "same way: what the device itself reaches at that size, launch and ramp-up included. Percentages "
                "are copy time / kernel time."]
    out += ["", "## Configurations", "",
            "| case | kiln config | kiln regs / local B | kiln first call s | Triton config "
            "| Triton regs / local B | Triton first call s | PyTorch peer (all timed, ms) |",
            "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        cells = [row["name"]]
        for side in ("kiln", "triton"):
            r = row["sides"].get(side) or {}
            regs = "" if r.get("regs") is None else f"{r['regs']} / {r.get('local_bytes', '?')}"
            first = "" if r.get("first_call_s") is None else f"{r['first_call_s']:.1f}"
            cells += [clean(r.get("config", "")), regs, first]
        t = row["sides"].get("torch") or {}
        peers = ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {clean(v)}"
                          for k, v in (t.get("peers") or {}).items())
        cells.append(f"{t.get('config', '')}: {peers}" if peers else t.get("config", ""))
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "Registers per thread / local memory (spills and stack) bytes per thread of the timed kernel; "
            "first call: the first launch with compilation and tuning (Triton: from its disk cache when warm)."]
    errors = [(row["name"], side, r["error"]) for row in rows for side, r in row["sides"].items()
              if r and r.get("error")]
    errors += [(row["name"], "case", row["error"]) for row in rows if row.get("error")]
    notes = [(row["name"], side, n) for row in rows for side, r in row["sides"].items()
             for n in (r or {}).get("notes", [])]
    for title, items in (("Errors", errors), ("Notes", notes)):
        if items:
            out += ["", f"## {title}", ""]
            out += [f"- {name}, {SIDE_TITLES.get(side, side)}: {clean(msg)}" for name, side, msg in items]
    if env and env.get("unavailable"):
        out += ["", "Unavailable sides: " + "; ".join(f"{k}: {clean(v)}" for k, v in env["unavailable"].items())]
    return "\n".join(out) + "\n"


def write(out_dir, env, copy, rows, args_line):
    """Writes suite.md and suite.json into out_dir; returns the markdown."""
    text = markdown(env, copy, rows, args_line)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "suite.md"), "w") as f:
            f.write(text)
        with open(os.path.join(out_dir, "suite.json"), "w") as f:
            json.dump({"env": env, "copy": copy, "rows": rows, "command": args_line}, f, indent=1)
    return text
