"""kiln.knobs (triton.knobs): Triton's process-wide settings, for those that mean something in kiln.

A knob kiln honours is a view of the environment variable kiln reads (knobs.runtime.interpret is
KILN_INTERPRET): reading it reads the variable, setting it sets the variable. A knob kiln does not
honour reads as what kiln does (Triton's default) and raises NotImplementedError when set to anything
else, so code that relies on it fails where it would otherwise be silently ignored. Groups kiln has
no use for (knobs.nvidia, knobs.amd, ...) are absent: reading them raises AttributeError.
"""
import contextlib
import os
import warnings

# Triton's switch for whether setting a knob also sets its environment variable. kiln's honoured
# knobs *are* their environment variables (that is where kiln reads them), so they always do.
propagate_env = True


class Env:
    """The type of `knobs.env`: assigning it to a knob puts the knob back to its default."""


env = Env()


class KnobWarning(UserWarning):
    """A knob was set that kiln takes only partly (knobs.cache.dir)."""


def _flag(text):
    # As kiln.jit reads KILN_INTERPRET.
    return text is not None and text.strip().lower() not in ("", "0", "false", "no", "off")


class _knob:
    """A knob's descriptor; `key` is its environment variable (fresh-knobs fixtures clear these)."""

    def __init__(self, key, default=None):
        self.key, self.default = key, default

    def __set_name__(self, owner, name):
        self.name = f"{owner.__name__.replace('_knobs', '')}.{name}"

    def __delete__(self, obj):
        pass  # nothing is kept on the object: the default (or the environment) is what is read


class env_bool(_knob):
    """A boolean kiln reads from the environment variable `key`."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        v = os.environ.get(self.key)
        return self.default if v is None else _flag(v)

    def __set__(self, obj, value):
        if isinstance(value, Env) or value is None:
            os.environ.pop(self.key, None)
        else:
            os.environ[self.key] = "1" if value else "0"


class unsupported(_knob):
    """A Triton knob kiln does not honour: reads as `default`; setting anything else raises."""

    def __init__(self, key, default, why):
        super().__init__(key, default)
        self.why = why

    def __get__(self, obj, owner=None):
        return self if obj is None else self.default

    def __set__(self, obj, value):
        if isinstance(value, Env) or value is self.default or (
                type(value) is type(self.default) and value == self.default):
            return
        raise NotImplementedError(f"knobs.{self.name} = {value!r}: kiln does not honour this knob ({self.why})")


def _cache_directory():
    # Where kiln's cubin cache is (src/runtime/cache.cpp, defaultCacheDirectory): chosen from the
    # environment once, when kiln is imported; None when the disk cache is off.
    def get(name):
        return os.environ.get(name) or None
    if get("KILN_CACHE_DISABLE") not in (None, "0"):
        return None
    if get("KILN_CACHE_DIR"):
        return get("KILN_CACHE_DIR")
    if (get("XDG_CACHE_HOME") or "").startswith("/"):
        return os.path.join(get("XDG_CACHE_HOME"), "kiln")
    return os.path.join(get("HOME"), ".cache", "kiln") if get("HOME") else None


_CACHE_DIR = _cache_directory()


class cache_dir(_knob):
    """knobs.cache.dir: the directory of kiln's disk cache (compiled cubins) for this process, fixed
    when kiln is imported. Setting another warns: this process keeps its directory; the value goes to
    KILN_CACHE_DIR, which processes started afterwards use."""

    def __get__(self, obj, owner=None):
        return self if obj is None else _CACHE_DIR

    def __set__(self, obj, value):
        if isinstance(value, Env) or value is None:
            os.environ.pop(self.key, None)
            return
        os.environ[self.key] = str(value)
        if str(value) != _CACHE_DIR:
            warnings.warn(f"knobs.cache.dir = {value!r}: kiln's cache directory is chosen when kiln is imported; "
                          f"this process keeps {_CACHE_DIR!r} (set KILN_CACHE_DIR before importing kiln). Child "
                          "processes will use the new directory.", KnobWarning, stacklevel=2)


class base_knobs:
    """A group of knobs (Triton's base class of the same name, which fresh-knobs fixtures look for)."""

    @property
    def knob_descriptors(self):
        return {k: v for k, v in type(self).__dict__.items() if isinstance(v, _knob)}

    @property
    def knobs(self):
        return {k: getattr(self, k) for k in self.knob_descriptors}

    def copy(self):
        c = type(self)()
        c.__dict__.update(self.__dict__)
        return c

    def reset(self):
        for k in self.knob_descriptors:
            delattr(self, k)
        return self

    @contextlib.contextmanager
    def scope(self):
        """Within the block, changes to this group's knobs (their environment variables) are undone after."""
        saved = {d.key: os.environ.get(d.key) for d in self.knob_descriptors.values()}
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


_NO_HOOKS = "kiln's launch path has no compile or launch hooks"


class runtime_knobs(base_knobs):
    # Read when a kernel is decorated (kiln.jit), as KILN_INTERPRET is.
    interpret = env_bool("KILN_INTERPRET", False)
    override_arch = unsupported("TRITON_OVERRIDE_ARCH", None, "kiln compiles for the device's own arch")
    jit_cache_hook = unsupported("TRITON_JIT_CACHE_HOOK", None, _NO_HOOKS)
    jit_post_compile_hook = unsupported("TRITON_JIT_POST_COMPILE_HOOK", None, _NO_HOOKS)


class cache_knobs(base_knobs):
    dir = cache_dir("KILN_CACHE_DIR")


class language_knobs(base_knobs):
    default_fp_fusion = unsupported("TRITON_DEFAULT_FP_FUSION", True,
                                    "fusion is on by default; pass enable_fp_fusion=False to the launch or warmup")


class compilation_knobs(base_knobs):
    always_compile = unsupported("TRITON_ALWAYS_COMPILE", False, "each specialization compiles once per process")
    dump_ir = unsupported("TRITON_KERNEL_DUMP", False, "read a kernel's IR from CompiledKernel.asm, or `kiln compile "
                          "--emit ir` / `--dump-after`")


class autotuning_knobs(base_knobs):
    # Read at each tuning (kiln/autotuner.py), which also honours the TRITON_ names of both variables.
    cache = env_bool("KILN_CACHE_AUTOTUNING", False)
    print = env_bool("KILN_PRINT_AUTOTUNING", False)


runtime = runtime_knobs()
cache = cache_knobs()
language = language_knobs()
compilation = compilation_knobs()
autotuning = autotuning_knobs()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"kiln.knobs has no '{name}': kiln keeps only the knobs runtime, cache, language, "
                         "compilation and autotuning (see docs/python.md, 'Knobs')")
