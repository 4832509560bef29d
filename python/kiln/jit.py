"""kiln.jit: a Python function's source handed to kiln's compiler; launches go straight to C++.

`kernel[grid](*args, num_warps=4, num_stages=3, **constexprs)` is implemented by the extension
(_kiln.JitFunction.__getitem__): argument binding, the specialization key, the cache lookup and
cuLaunchKernel all happen in C++. This file only finds the kernel's source and parameters.
"""
import inspect
import os

from . import _args  # noqa: F401  (registers the argument fallback converter)
from . import _link
from . import _kiln


def _env_flag(name):
    return os.environ.get(name, "0").strip().lower() not in ("", "0", "false", "no", "off")


class KernelInterface:
    """kernel[grid](*args, **kwargs) for kernels whose run() is Python (autotuner, heuristics)."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


def _source_of(fn):
    """The text and name of the file that defines fn: the compiler reads the whole module from it."""
    path = fn.__code__.co_filename
    if "<locals>" in fn.__qualname__:
        raise _kiln.KilnError(
            f"kiln.jit: '{fn.__qualname__}' is defined inside a function; kiln compiles the @jit functions "
            f"at the top level of a module (move it to the top level of {path}, and pass what it took from "
            "the enclosing function as tl.constexpr arguments)")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except OSError as e:
        raise _kiln.KilnError(
            f"kiln.jit: cannot read the source of '{fn.__name__}' from '{path}' ({e.strerror or e}); kiln "
            "compiles kernels from their module's file") from None


class JITFunction(_kiln.JitFunction):
    """A @kiln.jit kernel. kernel[grid](...) launches it (C++ path); run(), warmup() as in Triton."""

    interpreted = False

    def __init__(self, fn, do_not_specialize=None, noinline=None, debug=None, repr=None, launch_metadata=None,
                 do_not_specialize_on_alignment=None):
        text, path = _source_of(fn)
        signature = inspect.signature(fn)
        names = list(signature.parameters)
        dns = []
        for p in (do_not_specialize or ()):
            if isinstance(p, int):
                if not 0 <= p < len(names):
                    raise _kiln.KilnError(f"do_not_specialize index {p} is out of range for '{fn.__name__}'")
                p = names[p]
            dns.append(p)
        defaults = {n: p.default for n, p in signature.parameters.items()
                    if p.default is not inspect.Parameter.empty}
        super().__init__(text, path, fn.__name__, dns, defaults)
        self.fn = fn
        self.arg_names = names
        self.do_not_specialize = dns
        self.noinline = bool(noinline)
        self.debug = debug
        self.module = fn.__module__
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        self.constexprs = [name for name, is_constexpr, _ in self.params if is_constexpr]

    def _imports(self):
        """What the kernel's module takes from other modules (kiln._link): the extension asks once,
        before the first compilation, when the module has been executed in full."""
        return _link.imports_of(self)

    @property
    def src(self):
        return inspect.getsource(self.fn)

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launch (or with warmup=True, only compile) with `grid`: what kernel[grid](...) does."""
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        return self._launch(grid, self.interpreted, args, kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        """Compile for these arguments without running; returns the CompiledKernel. Strings such as
        "*fp32:16" or "i32" stand for runtime arguments of that type. Compiles for the GPU when there is one."""
        gpu = not self.interpreted and _kiln.has_gpu()[0]
        return self._warmup(gpu, args, kwargs)

    def specialization(self, *args, **kwargs):
        """The signature kernel[grid](*args, **kwargs) compiles for, in Triton's AOT syntax."""
        return self._signature(args, kwargs)

    def __call__(self, *args, **kwargs):
        raise _kiln.KilnError(f"'{self.__name__}' is a @jit kernel: launch it with {self.__name__}[grid](...), "
                              "or call it from another @jit function")

    def __repr__(self):
        return f"JITFunction({self.module}:{self.__qualname__})"


_kiln.fast_subscript(JITFunction)  # kernel[grid] straight to C++ (see the extension's fast_subscript)


class InterpretedJITFunction(JITFunction):
    """A kernel that always runs on the interpreter (KILN_INTERPRET=1 or jit(interpret=True)): host
    arrays run in place; CUDA tensors are copied to the host and back, as Triton's interpreter does."""

    interpreted = True

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def run(self, *args, grid, warmup=False, **kwargs):
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        copies = []

        def host(a):
            if getattr(a, "is_cuda", False):
                h = a.detach().cpu()
                copies.append((a, h))
                return h
            return a

        args = tuple(host(a) for a in args)
        kwargs = {k: host(v) for k, v in kwargs.items()}
        try:
            return self._launch(grid, True, args, kwargs)
        finally:
            for device_tensor, host_tensor in copies:
                device_tensor.copy_(host_tensor)


def jit(fn=None, *, do_not_specialize=None, noinline=None, interpret=None, debug=None, repr=None,
        launch_metadata=None, do_not_specialize_on_alignment=None):
    """@kiln.jit / @kiln.jit(do_not_specialize=["n"], noinline=True, interpret=True).

    The kernel must be a top-level function of a module with a source file: kiln's compiler reads
    that file (module constants and the other @jit functions in it); @jit functions and constants it
    imports from other modules are found through __globals__ on first use (kiln._link).
    interpret=True, or the environment variable KILN_INTERPRET=1 when the kernel is decorated, runs
    it on the interpreter."""

    def decorate(f):
        use_interpreter = interpret if interpret is not None else _env_flag("KILN_INTERPRET")
        cls = InterpretedJITFunction if use_interpreter else JITFunction
        return cls(f, do_not_specialize=do_not_specialize, noinline=noinline, debug=debug)

    return decorate(fn) if fn is not None else decorate
