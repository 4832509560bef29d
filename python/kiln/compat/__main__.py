"""python -m kiln.compat SCRIPT.py [ARGS...]: runs SCRIPT.py with kiln registered as `triton`.
python -m kiln.compat -m MODULE [ARGS...]: runs a module the same way (`-m pytest test_file.py` runs a
Triton test file's tests on kiln).

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
        print("usage: python -m kiln.compat SCRIPT.py [ARGS...]\n"
              "       python -m kiln.compat -m MODULE [ARGS...]\n\nRuns SCRIPT.py (or MODULE, as python -m "
              "does) with kiln registered as `triton`: code written for Triton runs unchanged on kiln.",
              file=sys.stderr)
        return 2 if not argv else 0
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m kiln.compat: -m needs a module name", file=sys.stderr)
            return 2
        compat.install()
        sys.argv = [argv[1]] + argv[2:]
        sys.path.insert(0, os.getcwd())  # as `python -m` puts the working directory first
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    compat.install()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
