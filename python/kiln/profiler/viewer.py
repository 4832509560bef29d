"""Reading and printing a profile (triton.profiler.viewer): parse(metric_names, file) and
print_tree(tree, metrics), as Triton's tutorials call them; `python -m kiln.profiler -m time/ms
FILE.hatchet` prints one from the command line (kiln/profiler/__main__.py).

Metric names: any metric in the file ("count", "time (ns)", "bytes", "flops16", ...), and derived
ones: time/{s,ms,us,ns}, avg_time/{s,ms,us,ns} (per launch), [t|g|m]flop[N]/s (flopsN over time; no N:
all widths) and [t|g|m]byte/s. Every value is inclusive: a scope's is the sum over its subtree.
"""
import json
import re

from ._tree import CLOCK_GPU, from_json

_TIME_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}
_PREFIXES = {"t": 1e12, "g": 1e9, "m": 1e6, "": 1.0}


def _inclusive(node):
    """{node id: summed metrics of its subtree} and the clocks seen below each node."""
    totals = dict(node.metrics)
    clocks = {node.clock} if node.clock else set()
    below = {}
    for c in node.children.values():
        sub, sub_clocks, more = _inclusive(c)
        below.update(more)
        clocks |= sub_clocks
        for k, v in sub.items():
            totals[k] = totals.get(k, 0) + v
    below[id(node)] = (totals, clocks)
    return totals, clocks, below


def _derive(name, m):
    """The value of metric `name` from the summed metrics m; None where m lacks what it needs."""
    if name in m:
        return m[name]
    t = re.fullmatch(r"(avg_)?time/(s|ms|us|ns)", name)
    if t:
        if "time (ns)" not in m:
            return None
        v = m["time (ns)"] / _TIME_UNITS[t.group(2)]
        if not t.group(1):
            return v
        return v / m["count"] if m.get("count") else None
    f = re.fullmatch(r"([tgm]?)(flop|byte)(\d*)/s", name)
    if f:
        seconds = m.get("time (ns)", 0) / 1e9
        if f.group(2) == "byte":
            amount = m.get("bytes")
        elif f.group(3):
            amount = m.get("flops" + f.group(3))
        else:
            widths = [v for k, v in m.items() if re.fullmatch(r"flops\d*", k)]
            amount = sum(widths) if widths else None
        if amount is None or seconds <= 0:
            return None
        return amount / seconds / _PREFIXES[f.group(1)]
    return None


def _known(name, available):
    if name in available or re.fullmatch(r"(avg_)?time/(s|ms|us|ns)", name):
        return True
    f = re.fullmatch(r"[tgm]?(flop|byte)(\d*)/s", name)
    if not f:
        return False
    if f.group(1) == "byte":
        return "bytes" in available
    return ("flops" + f.group(2)) in available if f.group(2) else any(re.fullmatch(r"flops\d*", a) for a in available)


class Tree:
    """A parsed profile: the root Node and each node's inclusive metrics and clocks."""

    def __init__(self, root):
        self.root = root
        _, _, self._inclusive = _inclusive(root)

    def totals(self, node):
        return self._inclusive[id(node)][0]

    def clocks(self, node):
        return self._inclusive[id(node)][1]

    def available(self):
        return set(self.totals(self.root))


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, list) or not doc or "frame" not in doc[0]:
        raise ValueError(f"{path}: not a profile tree written by kiln.profiler")
    return Tree(from_json(doc[0]))


def parse(metric_names, filename, include=None, exclude=None, threshold=None):
    """(tree, metric names) for print_tree; ValueError for a metric the file cannot give."""
    if include or exclude or threshold:
        raise NotImplementedError("kiln.profiler.viewer.parse: include, exclude and threshold are not supported")
    tree = load(filename) if not isinstance(filename, Tree) else filename
    names = [metric_names] if isinstance(metric_names, str) else list(metric_names)
    for n in names:
        if not _known(n, tree.available()):
            raise ValueError(f"metric '{n}' cannot be computed from {filename} (it has: "
                             f"{', '.join(sorted(tree.available())) or 'no metrics'})")
    return tree, names


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, int) or float(v).is_integer() and abs(v) >= 1000:
        return str(int(v))
    return f"{v:.4g}"


def format_tree(tree, metrics, depth=100, print_sorted=False):
    """The profile as text: one line per node, indented by depth, with the metrics as columns. Kernels
    timed by the interpreter's wall clock (or not timed) say so after their name."""
    rows = []

    def walk(node, level, prefix):
        if level > depth:
            return
        label = node.name
        clocks = tree.clocks(node) - {CLOCK_GPU}
        if clocks:
            label += " [" + ", ".join(sorted(clocks)) + "]"
        totals = tree.totals(node)
        rows.append((prefix + label, [_fmt(_derive(m, totals)) for m in metrics]))
        children = list(node.children.values())
        if print_sorted and metrics:
            children.sort(key=lambda c: -(_derive(metrics[0], tree.totals(c)) or 0))
        for c in children:
            walk(c, level + 1, prefix + "  ")

    walk(tree.root, 0, "")
    width = [max(len("name"), *(len(r[0]) for r in rows))]
    width += [max(len(m), *(len(r[1][i]) for r in rows)) for i, m in enumerate(metrics)]
    lines = ["  ".join([("name".ljust(width[0]))] + [m.rjust(width[i + 1]) for i, m in enumerate(metrics)])]
    for name, values in rows:
        lines.append("  ".join([name.ljust(width[0])] + [v.rjust(width[i + 1]) for i, v in enumerate(values)]))
    return "\n".join(lines)


def print_tree(tree, metrics, depth=100, format=None, print_sorted=False):
    if format not in (None, "full"):
        raise NotImplementedError(f"kiln.profiler.viewer.print_tree: format={format!r} is not supported")
    print(format_tree(tree, metrics, depth, print_sorted))
