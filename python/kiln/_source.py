"""The text a @jit function was defined by, wherever it came from, so that kiln compiles that text.

A module file, a function body or a notebook cell: through linecache (IPython registers its cells
there). exec() or compile() of a string: the string, found among the callers' local values. `python -c`:
its argument. The interactive prompt: readline's history. A text found any other way than linecache is
taken only when compiling it gives back the function's own code object, so a kernel never runs a
definition other than its own.
"""
import ast
import functools
import inspect
import linecache
import sys

from . import _kiln


class Definition:
    """One function's definition: `text` is the file's text cut down to it (blank lines up to its
    `def` line, its decorators blanked too, then its lines as they stand), so that line and column
    numbers in kiln's errors are those of `path`; the compiler reads it as one cut-out definition
    (kiln::Source::block), indented or not."""

    __slots__ = ("text", "path", "def_line")
    block = True

    def __init__(self, text, path, def_line):
        self.text, self.path, self.def_line = text, path, def_line


def dedent(lines):
    """The lines as one text, less the first line's indentation (lines indented less, inside a
    string literal, lose what they have)."""
    indent = len(lines[0]) - len(lines[0].lstrip())
    if indent == 0:
        return "".join(lines)
    return "".join(line[indent:] if line[:indent].isspace() else line.lstrip() for line in lines)


def _defining_codes(code, name):
    """Every code object nested in `code` (depth first)."""
    for c in code.co_consts:
        if isinstance(c, type(code)):
            yield c
            yield from _defining_codes(c, name)


@functools.lru_cache(maxsize=32)
def _compiled(text, path, mode):
    """`text` compiled as `path` (the kernels of one exec()'d string or `-c` text share it), or None."""
    try:
        return compile(text, path, mode, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None


def _text_defines(text, path, code, mode="exec"):
    """Whether compiling `text` as `path` gives `code` among its functions."""
    top = _compiled(text, path, mode)
    return top is not None and any(c == code for c in _defining_codes(top, code.co_name))


def _candidates(fn, depth=64):
    """Texts that may have defined fn, besides its file: strings in the callers' frames (exec of a
    string), `python -c`'s argument, the interactive history. Yields (text, compile mode)."""
    marker = "def " + fn.__name__
    seen = set()
    frame = sys._getframe(2)
    while frame is not None and depth > 0:
        for v in list(frame.f_locals.values()):
            if isinstance(v, str) and marker in v and id(v) not in seen:
                seen.add(id(v))
                yield v, "exec"
        frame, depth = frame.f_back, depth - 1
    path = fn.__code__.co_filename
    argv = getattr(sys, "orig_argv", [])
    if path == "<string>" and "-c" in argv[:-1]:
        yield argv[argv.index("-c") + 1], "exec"
    if path == "<stdin>" and "readline" in sys.modules:  # the prompt: a statement is the last history items
        rl = sys.modules["readline"]
        n = rl.get_current_history_length()
        items = [rl.get_history_item(i) or "" for i in range(max(1, n - 400), n + 1)]
        for start in range(len(items) - 1, -1, -1):
            if items[start].lstrip().startswith(("@", "def ")):
                yield "\n".join(items[start:]) + "\n", "single"


def capture(fn):
    """At decoration: the lines of the text that defined fn when no file or linecache entry holds it
    (exec() of a string, `python -c`, the prompt): found now, while the callers' frames still hold
    it. None when fn's text is to be read from its file (or linecache) at its first use."""
    path = fn.__code__.co_filename
    if not (path.startswith("<") and path.endswith(">")) or path in linecache.cache:
        return None
    for text, mode in _candidates(fn):
        if _text_defines(text, path, fn.__code__, mode):
            return text.splitlines(keepends=True)
    return None


def definition_from_text(fn, text):
    """fn's Definition from a text that replaces its own (JITFunction._unsafe_update_src): one
    definition of a function of fn's name, from its `def` line or its decorators; raises KilnError
    otherwise."""
    if not isinstance(text, str):
        raise _kiln.KilnError(f"kiln.jit: the new source of '{fn.__qualname__}' must be a str, got {type(text).__name__}")
    lines = text.splitlines(keepends=True) or [""]
    try:
        tree = ast.parse(dedent(lines))
    except SyntaxError as e:
        raise _kiln.KilnError(f"kiln.jit: the new source of '{fn.__qualname__}' is not valid Python: {e}") from None
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.name != fn.__name__:
        raise _kiln.KilnError(f"kiln.jit: the new source of '{fn.__qualname__}' must be one definition of a "
                              f"function named '{fn.__name__}'")
    def_row = node.lineno - 1  # decorators are blanked, as in a file
    text = "".join(["\n"] * def_row + lines[def_row:])
    return Definition(text, f"<{fn.__qualname__}: source from _unsafe_update_src>", def_row + 1)


def definition_of(fn, captured=None):
    """fn's Definition, from `captured` lines (capture()) or its file; raises KilnError when its text
    cannot be found."""
    code = fn.__code__
    path = code.co_filename
    lines = captured or linecache.getlines(path, fn.__globals__)
    if not lines or code.co_firstlineno > len(lines):
        raise _kiln.KilnError(
            f"kiln.jit: cannot find the source text of '{fn.__qualname__}' (defined in '{path}', line "
            f"{code.co_firstlineno}): kiln compiles a kernel from its text — a file, a notebook cell, "
            "exec() of a string, `python -c` or the interactive prompt")
    first = code.co_firstlineno - 1
    block = inspect.getblock(lines[first:])
    try:
        tree = ast.parse(dedent(block))
        node = tree.body[0]
    except (SyntaxError, IndexError):
        node = None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != fn.__name__:
        raise _kiln.KilnError(
            f"kiln.jit: the text of '{path}' at line {code.co_firstlineno} is not the definition of "
            f"'{fn.__name__}' (was the file changed after it was imported?)")
    def_row = node.lineno - 1  # decorators are Python's business: they ran already
    body = ["\n"] * def_row + block[def_row:]
    text = "\n" * first + "".join(body)
    return Definition(text, path, first + def_row + 1)
