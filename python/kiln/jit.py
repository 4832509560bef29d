"""kiln.jit: a Python function's own definition handed to kiln's compiler; launches go straight to C++.

`kernel[grid](*args, num_warps=4, num_stages=3, **constexprs)` is implemented by the extension
(_kiln.JitFunction.__getitem__): argument binding, the specialization key, the cache lookup and
cuLaunchKernel all happen in C++. Decorating costs no compilation: on the first launch (or warmup)
the extension asks _define_now() for the kernel's text (kiln/_source.py) and what the names in it
are (kiln/_resolve.py), and from then on never again.
"""
import os

from . import _args  # noqa: F401  (registers the argument fallback converter)
from . import _kiln
from . import _resolve
from . import _source


def _env_flag(name):
    return os.environ.get(name, "0").strip().lower() not in ("", "0", "false", "no", "off")


_OVERFLOW_MODES = {"": 0, "0": 0, "false": 0, "no": 0, "off": 0,
                   "1": 1, "true": 1, "yes": 1, "on": 1, "address": 1, "all": 2}


def _overflow_mode(value, where):
    """check_overflow / KILN_CHECK_OVERFLOW as the extension's mode: 0 off, 1 addresses, 2 every i32/u32 op."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if isinstance(value, str) and value.strip().lower() in _OVERFLOW_MODES:
        return _OVERFLOW_MODES[value.strip().lower()]
    raise _kiln.KilnError(f"{where} must be 0, 1 (or 'address') or 'all', got {value!r}")


class KernelInterface:
    """kernel[grid](*args, **kwargs) for kernels whose run() is Python (autotuner, heuristics)."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


def _parameter_names(fn):
    code = fn.__code__
    return list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])


class JITFunction(_kiln.JitFunction):
    """A @kiln.jit kernel. kernel[grid](...) launches it (C++ path); run(), warmup() as in Triton."""

    interpreted = False

    def __init__(self, fn, do_not_specialize=None, noinline=None, debug=None, repr=None, launch_metadata=None,
                 do_not_specialize_on_alignment=None):
        super().__init__()
        if not callable(fn) or not hasattr(fn, "__code__"):
            # ArgumentError is a KilnError and a TypeError: the type error Python would raise for a bad call.
            raise _kiln.ArgumentError(f"kiln.jit: expected a Python function to decorate, got {type(fn).__name__}")
        names = _parameter_names(fn)
        dns = []
        for p in (do_not_specialize or ()):
            if isinstance(p, int):
                if not 0 <= p < len(names):
                    raise _kiln.KilnError(f"do_not_specialize index {p} is out of range for '{fn.__name__}'")
                p = names[p]
            dns.append(p)
        self.fn = fn
        self._kiln_text = _source.capture(fn)  # exec()'d text is found now or never
        self.arg_names = names
        self.do_not_specialize = dns
        self.noinline = bool(noinline)
        self.debug = debug
        # launch_metadata(grid, metadata, args) -> {"name": ..., metric: number}: read by kiln.profiler's
        # "triton" hook to name each launch and add its flops and bytes.
        self.launch_metadata = launch_metadata
        self.module = fn.__module__
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn

    def _define_now(self):
        """Reads the kernel's definition and resolves its names (first launch or warmup; the extension
        calls it once). Raises CompilationError, located in the kernel's text, for a kernel kiln cannot
        compile: other kernels are not affected."""
        fn = self.fn
        d = _resolve.unit_of(self).definition
        defaults = dict(zip(reversed(self.arg_names[:fn.__code__.co_argcount]), reversed(fn.__defaults__ or ())))
        defaults.update(fn.__kwdefaults__ or {})
        self._define(d.text, d.path, d.block, fn.__name__, self.do_not_specialize, defaults,
                     _resolve.imports_of(self))
        self.__dict__["_kiln_defined"] = True

    def _link_function_arguments(self, tokens):
        """Links the @jit functions launches pass as arguments (tokens of kiln._args) into the kernel's module
        (the extension calls it for tokens it has not linked yet)."""
        linked = self.__dict__.setdefault("_kiln_function_arguments", {})
        for token in tokens:
            linked[token] = _args.function_of(token)
        self._set_imports(_resolve.imports_of(self, linked))

    @property
    def constexprs(self):
        return [name for name, is_constexpr, _ in self.params if is_constexpr]

    @property
    def src(self):
        """The kernel's definition from its `def` line, dedented, as Triton's JITFunction.src."""
        d = _resolve.unit_of(self).definition
        return _source.dedent(d.text.splitlines(keepends=True)[d.def_line - 1:])

    def _unsafe_update_src(self, new_src):
        """Triton's JITFunction._unsafe_update_src: compile `new_src`, a definition of this function (as
        `src` gives it, e.g. with some names replaced), instead of the function's own text. Only before
        the kernel's first launch or warmup: a compiled kernel keeps its text."""
        if self.__dict__.get("_kiln_defined"):
            raise _kiln.KilnError(f"kiln.jit: '{self.__name__}' was compiled already (launched or warmed up); "
                                  "_unsafe_update_src must come before its first launch")
        definition = _source.definition_from_text(self.fn, new_src)
        self.__dict__["_kiln_unit"] = _resolve._Unit(self.fn, None, definition)

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launch (or with warmup=True, only compile) with `grid`: what kernel[grid](...) does."""
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        return self._launch(grid, self.interpreted, args, kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        """Compile for these arguments without running; returns the CompiledKernel. Strings such as
        "*fp32:16" or "i32" stand for runtime arguments of that type. Compiles for the GPU when there is one."""
        gpu = not self.interpreted and _kiln.has_gpu()[0]
        compiled = self._warmup(gpu, args, kwargs)
        _warmed[id(compiled)] = (compiled, self)
        return compiled

    def specialization(self, *args, **kwargs):
        """The signature kernel[grid](*args, **kwargs) compiles for, in Triton's AOT syntax."""
        return self._signature(args, kwargs)

    def __call__(self, *args, **kwargs):
        raise _kiln.KilnError(f"'{self.__name__}' is a @jit kernel: launch it with {self.__name__}[grid](...), "
                              "or call it from another @jit function")

    def __repr__(self):
        return f"JITFunction({self.module}:{self.__qualname__})"


_kiln.fast_subscript(JITFunction)  # kernel[grid] straight to C++ (see the extension's fast_subscript)

# The kernels warmup() returned, with the JITFunction each came from: Triton launches a compiled kernel
# with compiled[grid](*args), every parameter of the kernel positional (constexprs too, as compiled).
_warmed = {}


def _launch_compiled(compiled, grid):
    entry = _warmed.get(id(compiled))
    if entry is None or entry[0] is not compiled:
        raise _kiln.KilnError(f"{compiled!r} was not returned by a kernel's warmup(): launch the kernel with "
                              "kernel[grid](...)")
    fn = entry[1]

    def runner(*args, stream=None):
        if stream is not None:
            raise _kiln.KilnError("compiled_kernel[grid](..., stream=...): kiln launches on the current stream; "
                                  "select it with torch.cuda.stream(...)")
        if len(args) != len(fn.arg_names):
            raise _kiln.ArgumentError(f"{compiled.name}[grid](...) takes the kernel's {len(fn.arg_names)} "
                                      f"parameters in order ({', '.join(fn.arg_names)}), got {len(args)}")
        kwargs = dict(zip(fn.arg_names, args))
        kwargs.setdefault("num_warps", compiled.num_warps)
        kwargs.setdefault("num_stages", compiled.num_stages)
        return fn.run(grid=grid, **kwargs)
    return runner


_kiln.CompiledKernel.__getitem__ = _launch_compiled


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
        launch_metadata=None, do_not_specialize_on_alignment=None, check_overflow=None):
    """@kiln.jit / @kiln.jit(do_not_specialize=["n"], noinline=True, interpret=True, check_overflow=True).

    The kernel may be defined anywhere Python functions are: at the top of a module, inside a function
    (its closure's values are read as Python reads them), in a notebook cell, by exec() of a string or
    in `python -c`. It is read and compiled on its first launch, from its own text; the @jit functions
    and constants it names are found through its closure and __globals__ then (kiln/_resolve.py).
    interpret=True, or the environment variable KILN_INTERPRET=1 when the kernel is decorated, runs
    it on the interpreter. check_overflow=True (or KILN_CHECK_OVERFLOW=1 when it is decorated) makes its
    interpreter runs raise KernelError where an int32 wrap changes an address; "all": where any i32/u32
    integer op wraps (docs/semantics.md, "Integer overflow checks")."""

    def decorate(f):
        use_interpreter = interpret if interpret is not None else _env_flag("KILN_INTERPRET")
        if check_overflow is not None:
            overflow = _overflow_mode(check_overflow, "check_overflow")
        else:
            overflow = _overflow_mode(os.environ.get("KILN_CHECK_OVERFLOW"), "KILN_CHECK_OVERFLOW")
        cls = InterpretedJITFunction if use_interpreter else JITFunction
        kernel = cls(f, do_not_specialize=do_not_specialize, noinline=noinline, debug=debug,
                     launch_metadata=launch_metadata)
        kernel._set_check_overflow(overflow)
        return kernel

    return decorate(fn) if fn is not None else decorate
