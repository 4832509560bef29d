"""python -m kiln.compat SCRIPT.py [ARGS...]: runs SCRIPT.py with kiln registered as `triton`.

A module of its own, which `import kiln` never imports: runpy then finds nothing of it in sys.modules
and runs it without the "found in sys.modules" RuntimeWarning.
"""
import os
import runpy
import sys

from kiln import compat


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m kiln.compat SCRIPT.py [ARGS...]\n\nRuns SCRIPT.py with kiln registered as "
              "`triton`: a file written for Triton runs unchanged on kiln.", file=sys.stderr)
        return 2 if not argv else 0
    script = argv[0]
    compat.install()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
