"""What a kernel's module takes from other modules, found as Triton finds it: through __globals__.

kiln's compiler reads the kernel's source file. Names that file imports from other (non-Triton)
modules are resolved here, on the kernel's first use, through the @jit functions' __globals__:
`from helpers import add` or `helpers.add` (a kiln @jit function of another file: its file's source
goes along), `from cfg import BLOCK` or `cfg.BLOCK` (an int, float, bool, str, None, tl.constexpr or
dtype: its value). The compiler links them in (src/driver/link.cpp); anything else a kernel would
use from another module becomes a located error there. The @jit functions of those other files are
scanned the same way.
"""
import ast
import numbers
import types

from . import language as _tl

_TRITON_ROOTS = ("triton", "kiln")
_DTYPE_NAMES = ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float8e4nv",
                "float8e5", "float16", "bfloat16", "float32", "float64")


class _FileInfo:
    """A Python file's top level: the names it imports (from non-Triton modules), the names it
    assigns, and its @jit function definitions."""

    def __init__(self, text, path):
        tree = ast.parse(text, filename=path)
        self.imported, self.assigned, self.jit_defs, self.global_values = set(), set(), [], []

        def top_level(stmts):
            for s in stmts:
                if isinstance(s, ast.Import):
                    for a in s.names:
                        if a.name.split(".")[0] not in _TRITON_ROOTS:
                            self.imported.add(a.asname or a.name.split(".")[0])
                elif isinstance(s, ast.ImportFrom):
                    if s.level or (s.module or "").split(".")[0] not in _TRITON_ROOTS:
                        self.imported.update(a.asname or a.name for a in s.names if a.name != "*")
                elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if any("jit" in ast.unparse(d) for d in s.decorator_list):
                        self.jit_defs.append(s)
                    self.assigned.add(s.name)
                elif isinstance(s, ast.ClassDef):
                    self.assigned.add(s.name)
                elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                    for t in targets:
                        self.assigned.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
                    if s.value is not None:
                        self.global_values.append(s.value)
                elif isinstance(s, (ast.If, ast.Try, ast.With)):
                    for block in ("body", "orelse", "finalbody"):
                        top_level(getattr(s, block, []))
                    for h in getattr(s, "handlers", []):
                        top_level(h.body)

        top_level(tree.body)


def _refs(node, params=()):
    """The free names a function (or an expression) reads, with every attribute chain on them:
    `helpers.cfg.BLOCK` gives "helpers", "helpers.cfg" and "helpers.cfg.BLOCK"."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        args = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
        params = {x.arg for x in args}
        parts = [x.annotation for x in args if x.annotation] + a.defaults + [d for d in a.kw_defaults if d]
        parts += node.body
    else:
        parts = [node]
    local = set(params)
    for p in parts:
        local.update(n.id for n in ast.walk(p) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))
    refs = set()
    for p in parts:
        for n in ast.walk(p):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
                refs.add(n.id)
            elif isinstance(n, ast.Attribute):
                path, base = [n.attr], n.value
                while isinstance(base, ast.Attribute):
                    path.append(base.attr)
                    base = base.value
                if isinstance(base, ast.Name) and base.id not in local:
                    refs.add(".".join([base.id] + path[::-1]))
    return refs


def _triton_path(v):
    """The Triton path a kiln/Triton module or dtype is known by in kernels, or None."""
    if isinstance(v, types.ModuleType):
        root, _, rest = v.__name__.partition(".")
        if root in _TRITON_ROOTS:
            return "triton" + ("." + rest if rest else "")
    elif isinstance(v, _tl.dtype):
        for name in _DTYPE_NAMES:
            if getattr(_tl, name, None) == v:
                return "triton.language." + name
    return None


def _constant(v):
    """(kind, value) for a constant a kernel can use, or None."""
    if isinstance(v, _tl.constexpr):
        v = v.value
    if v is None:
        return "none", None
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "bool", bool(v)
    if isinstance(v, numbers.Integral):
        v = int(v)
        return ("int", v) if -2**63 <= v < 2**63 else None
    if isinstance(v, numbers.Real):
        return "float", float(v)
    if isinstance(v, str):
        return "str", v
    if (path := _triton_path(v)) is not None:
        return "alias", path
    return None


def _unsupported(ref, v):
    """Why a kernel cannot use `ref`, whose value is v."""
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)):
        return f"'{ref}' is a Python function, not a @jit function (decorate it with @triton.jit to call it " \
               "from a kernel)"
    if type(v).__name__ == "JITFunction":
        return f"'{ref}' is a @jit function of another package than kiln"
    t = type(v)
    what = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return f"'{ref}' is a {what}: kernels can use @jit functions and constants (int, float, bool, str, None, " \
           "dtype) of other modules"


def _file_of(jit_fn):
    return jit_fn.fn.__code__.co_filename


def imports_of(kernel):
    """(modules, names) for the compiler: modules [(module name, path, text)] of the other files
    whose @jit functions are used; names [(file, name as written, kind, value, defined_in)]."""
    from .jit import JITFunction, _source_of

    main = _file_of(kernel)
    files = {main: (kernel.fn.__module__, kernel.fn.__globals__, None)}
    todo, names, done = [main], [], set()

    def use(jit_fn):
        path = _file_of(jit_fn)
        if path not in files:
            text, _ = _source_of(jit_fn.fn)
            files[path] = (jit_fn.fn.__module__, jit_fn.fn.__globals__, text)
            todo.append(path)
        return path

    while todo:
        path = todo.pop()
        if path in done:
            continue
        done.add(path)
        module, g, text = files[path]
        if text is None:
            text, _ = _source_of(kernel.fn)
        info = _FileInfo(text, path)
        refs = set()
        for node in info.jit_defs + info.global_values:
            refs |= _refs(node)
        resolved = set()  # refs whose longer chains need no entry of their own
        for ref in sorted(refs, key=lambda r: r.count(".")):
            head, _, rest = ref.partition(".")
            if head not in g:
                continue
            if ref.rpartition(".")[0] in resolved:
                resolved.add(ref)
                continue
            v = g[head]
            if rest:
                if not isinstance(v, types.ModuleType) or _triton_path(v) is not None:
                    continue  # triton.language.x is the compiler's own; attributes of values are ops
                *parents, last = rest.split(".")
                for attr in parents:  # the shorter chains were modules (or they are resolved)
                    v = getattr(v, attr)
                owner, v = v, getattr(v, last, _Missing)
                if v is _Missing:
                    names.append((path, ref, "unsupported", f"module '{owner.__name__}' has no attribute '{last}'",
                                  ""))
                    resolved.add(ref)
                    continue
            elif head not in info.imported or head in info.assigned:
                # The file's own names the compiler reads itself; only @jit functions of other files
                # (`add = helpers.add`) need linking.
                if isinstance(v, JITFunction) and _file_of(v) != path:
                    names.append((path, ref, "function", v.fn.__name__, use(v)))
                continue
            if isinstance(v, JITFunction):
                if _file_of(v) != path:
                    names.append((path, ref, "function", v.fn.__name__, use(v)))
                resolved.add(ref)
            elif isinstance(v, types.ModuleType) and _triton_path(v) is None:
                continue  # its attributes are their own references
            elif (c := _constant(v)) is not None:
                names.append((path, ref, c[0], c[1], ""))
                resolved.add(ref)
            else:
                names.append((path, ref, "unsupported", _unsupported(ref, v), ""))
                resolved.add(ref)
    modules = [(m, p, t) for p, (m, _, t) in files.items() if p != main]
    return (modules, names) if names else None


class _Missing:
    pass


__all__ = ["imports_of"]
