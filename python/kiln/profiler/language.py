"""triton.profiler.language: Proton's in-kernel instrumentation (pl.enter_scope / pl.exit_scope inside a
kernel, enable_semantic). kiln has none: the module imports, so files that import it load, and every
name in it raises NotImplementedError saying so, on the host or where a kernel uses it.
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"triton.profiler.language.{name}: kiln has no in-kernel instrumentation (Proton's "
                              "instrumentation backend); kiln.profiler times whole launches")
