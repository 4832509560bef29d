"""python -m kiln ARGS... (and the `kiln` console command a pip install makes): kiln's command-line
compiler, the C++ executable installed inside the package as kiln/bin/kiln, run with ARGS.

    python -m kiln compile kernel.py --kernel add_kernel --signature "*fp32:16, i32, 1024" --emit ptx
"""
import os
import sys


def executable():
    """The path of the bundled `kiln` executable, or a KilnError saying where it was looked for."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "kiln")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        from . import KilnError
        raise KilnError(f"kiln: the command-line compiler is not installed with this package (no executable "
                        f"'{path}'); build the target kiln_python (it copies it there) or pip install kiln")
    return path


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    path = executable()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, ["kiln"] + argv)  # replaces this process: the exit status is the compiler's


if __name__ == "__main__":
    main()
