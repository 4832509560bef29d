"""What the names a kernel's text reads from outside itself are, found as Python finds them at the call:
the function's closure cells, then its module's globals (builtins are the compiler's own).

A kernel is compiled from its own definition's text (kiln/_source.py). Every other @jit function it
reaches comes along with its own text and its own names; constants (int, float, bool, str, None,
tl.constexpr, dtypes, tuples of them) come as values; Triton's (and kiln's) modules and names as the
paths the compiler knows. What a kernel cannot use becomes a located error at its use
(src/driver/link.cpp does the linking).
"""
import ast
import builtins
import numbers
import types

from . import _kiln
from . import _source
from . import language as _tl

_TRITON_ROOTS = ("triton", "kiln")
_DTYPE_NAMES = ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float8e4nv",
                "float8e5", "float8e4b15", "float8e4b8", "float8e5b16", "float16", "bfloat16", "float32",
                "float64")
_Missing = object()


def _refs(node):
    """The free names a function reads, with every attribute chain on them: `helpers.cfg.BLOCK` gives
    "helpers", "helpers.cfg" and "helpers.cfg.BLOCK". String annotations ("tl.constexpr") count."""
    a = node.args
    args = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
    parts = [x.annotation for x in args if x.annotation] + a.defaults + [d for d in a.kw_defaults if d]
    for x in args:
        if isinstance(x.annotation, ast.Constant) and isinstance(x.annotation.value, str):
            try:
                parts.append(ast.parse(x.annotation.value, mode="eval").body)
            except SyntaxError:
                pass
    parts += node.body
    local = {x.arg for x in args}
    for p in node.body:
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
    return sorted(refs, key=lambda r: (r.count("."), r))


def _triton_path(v):
    """The Triton path a kiln or Triton module, dtype or name is known by in kernels, or None."""
    if isinstance(v, types.ModuleType):
        root, _, rest = v.__name__.partition(".")
        if root in _TRITON_ROOTS:
            return "triton" + ("." + rest if rest else "")
        return None
    if isinstance(v, _tl.dtype):
        for name in _DTYPE_NAMES:
            if getattr(_tl, name, None) == v:
                return "triton.language." + name
        return None
    path = getattr(v, "_kiln_path", None)  # a builtin's stub (kiln.language.core._stub)
    if isinstance(path, str) and callable(v):
        return path
    name = getattr(v, "__name__", None)
    if isinstance(name, str) and (getattr(v, "__module__", None) or "").split(".")[0] in _TRITON_ROOTS:
        import kiln
        if getattr(_tl, name, None) is v:
            return "triton.language." + name
        if getattr(kiln, name, None) is v:
            return "triton." + name
    return None


def _literal_text(v):
    """Python source for a constant a kernel can use inside a tuple, or None."""
    c = _constant(v)
    if c is None:
        return None
    kind, value = c
    if kind == "float" and (value != value or value in (float("inf"), float("-inf"))):
        return f"float('{value}')"
    if kind == "expr":
        return value
    if kind == "alias":  # of Triton's names, only dtypes are values
        return value if isinstance(v.value if isinstance(v, _tl.constexpr) else v, _tl.dtype) else None
    return repr(value)


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
    if isinstance(v, tuple):  # not lists: a kernel cannot see a later change to one
        parts = [_literal_text(x) for x in v]
        return None if None in parts else ("expr", "(" + "".join(p + ", " for p in parts) + ")")
    if (path := _triton_path(v)) is not None:
        return "alias", path
    if isinstance(v, type) and issubclass(v, tuple) and isinstance(getattr(v, "_fields", None), tuple):
        return _namedtuple_class(v)
    return None


def _namedtuple_class(cls):
    """A NamedTuple class as kernels see it: a call of the compiler's class maker, or None when a default
    is not a constant a kernel can hold."""
    fields = cls._fields
    defaults = [_literal_text(cls._field_defaults[f]) for f in fields if f in cls._field_defaults]
    if None in defaults or not all(isinstance(f, str) for f in fields):
        return None
    tup = lambda parts: "(" + "".join(p + ", " for p in parts) + ")"
    return "expr", (f"triton.language._namedtuple_class({cls.__name__!r}, {tup(repr(f) for f in fields)}, "
                    f"{tup(defaults)})")


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
           "dtype, tuples of them) from outside their own text"


def _lookup(fn, head):
    """The value `head` has in fn's body as Python would find it, or _Missing (a builtin, or undefined)."""
    code = fn.__code__
    if head in code.co_freevars and fn.__closure__:
        try:
            return fn.__closure__[code.co_freevars.index(head)].cell_contents
        except ValueError:  # a cell not assigned yet
            return _Missing
    return fn.__globals__.get(head, _Missing)


class _Unit:
    """One @jit function's text and the names it reads, parsed once per function object."""

    __slots__ = ("definition", "refs")

    def __init__(self, fn, captured, definition=None):
        self.definition = definition or _source.definition_of(fn, captured)
        d = self.definition
        self.refs = _refs(ast.parse(_source.dedent(d.text.splitlines(keepends=True)[d.def_line - 1:])).body[0])


def unit_of(jit_fn):
    """The _Unit of a kiln JITFunction (cached on it)."""
    u = jit_fn.__dict__.get("_kiln_unit")
    if u is None:
        u = jit_fn.__dict__["_kiln_unit"] = _Unit(jit_fn.fn, jit_fn.__dict__.get("_kiln_text"))
    return u


class _Linker:
    def __init__(self):
        self.modules, self.names = [], []
        self.unit_ids = {}  # id(JITFunction) -> unit id
        self.mangled = set()  # (module name, function name) taken by a unit
        self.keep = []  # the JITFunctions whose ids are keys above

    def module_name(self, fn):
        base = fn.__module__ or "module"
        prefix = fn.__qualname__.rpartition(".")[0]
        name = f"{base}.{prefix}" if prefix else base
        candidate, k = name, 1
        while (candidate, fn.__name__) in self.mangled:
            k += 1
            candidate = f"{name}#{k}"
        self.mangled.add((candidate, fn.__name__))
        return candidate

    def helper(self, jit_fn):
        """The unit id of a @jit function the kernel reaches, linked on first sight."""
        uid = self.unit_ids.get(id(jit_fn))
        if uid is not None:
            return uid
        u = unit_of(jit_fn)
        d = u.definition
        uid = f"{d.path}@{d.def_line}#{len(self.modules) + 1}"
        self.unit_ids[id(jit_fn)] = uid
        self.keep.append(jit_fn)
        self.modules.append((self.module_name(jit_fn.fn), d.path, d.text, uid, d.block))
        self.resolve(jit_fn, uid)
        return uid

    def resolve(self, jit_fn, uid):
        fn = jit_fn.fn
        resolved = set()  # refs whose longer chains need no entry of their own
        for ref in unit_of(jit_fn).refs:
            head, _, rest = ref.partition(".")
            if ref.rpartition(".")[0] in resolved:
                resolved.add(ref)
                continue
            v = _lookup(fn, head)
            if v is _Missing:
                if not rest and not hasattr(builtins, head):
                    self.names.append((uid, ref, "unsupported", f"name '{head}' is not defined", ""))
                resolved.add(ref)
                continue
            if rest:
                if not isinstance(v, types.ModuleType) or _triton_path(v) is not None:
                    continue  # the head's entry covers it: triton.language.x is the compiler's own
                *parents, last = rest.split(".")
                for attr in parents:  # the shorter chains were modules (or they are resolved)
                    v = getattr(v, attr)
                owner, v = v, getattr(v, last, _Missing)
                if v is _Missing:
                    self.names.append((uid, ref, "unsupported", f"module '{owner.__name__}' has no attribute "
                                       f"'{last}'", ""))
                    resolved.add(ref)
                    continue
            if v is jit_fn:
                resolved.add(ref)  # the kernel's own name: sema reports a recursive call
                continue
            if isinstance(v, _kiln.JitFunction) and hasattr(v, "fn"):
                self.names.append((uid, ref, "function", v.fn.__name__, self.helper(v)))
            elif isinstance(v, types.ModuleType) and _triton_path(v) is None:
                continue  # its attributes are references of their own
            elif (c := _constant(v)) is not None:
                self.names.append((uid, ref, c[0], c[1], ""))
            else:
                self.names.append((uid, ref, "unsupported", _unsupported(ref, v), ""))
            resolved.add(ref)


def imports_of(kernel, function_arguments=None):
    """(modules, names) for the compiler, as kiln/_kiln's JitFunction._define takes them:
    modules [(module name, path, text, unit id, block)] of the other @jit functions the kernel
    reaches; names [(unit id, name as written, kind, value, defined in)], the kernel's own unit id
    being its file's path. `function_arguments` {token: JITFunction}: the @jit functions launches passed
    as arguments, named "@token" in the kernel's module (the signature's "@token" entries)."""
    linker = _Linker()
    main = unit_of(kernel).definition.path
    linker.unit_ids[id(kernel)] = main
    linker.resolve(kernel, main)
    for token, fn in (function_arguments or {}).items():
        linker.names.append((main, "@" + token, "function", fn.fn.__name__, linker.helper(fn)))
    return linker.modules, linker.names


__all__ = ["imports_of", "unit_of"]
