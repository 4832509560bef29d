"""python -m kiln.profiler [-m METRICS] [-d DEPTH] [--print-sorted] FILE.hatchet: prints a profile that
kiln.profiler.finalize wrote (kiln.profiler.viewer). A module of its own, which `import kiln` never
imports, so runpy runs it without the "found in sys.modules" RuntimeWarning.
"""
import argparse
import sys

from kiln.profiler import viewer


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m kiln.profiler", description="Print a kiln.profiler profile.")
    p.add_argument("-m", "--metrics", default="time/ms", help="comma-separated metric names (default time/ms)")
    p.add_argument("-d", "--depth", type=int, default=100)
    p.add_argument("--print-sorted", action="store_true", help="children by the first metric, largest first")
    p.add_argument("file")
    a = p.parse_args(argv)
    try:
        tree, metrics = viewer.parse(a.metrics.split(","), a.file)
    except (OSError, ValueError) as e:
        print(f"python -m kiln.profiler: error: {e}", file=sys.stderr)
        return 1
    viewer.print_tree(tree, metrics, a.depth, print_sorted=a.print_sorted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
