"""Kernels defined wherever Python users define them: inside functions (closures over constexprs, @jit
helpers and captured values), by exec() of a string, in a notebook-style linecache cell, in
`python -c`; each compiled from its own text on first use, so one bad kernel leaves the others of its
file usable and two kernels of one name each run their own definition."""
import linecache
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import kiln
import kiln.language as tl

SCALE = 3.0  # a module global read through __globals__ at the first launch


@kiln.jit
def top_helper(x):
    return x * SCALE


def make_kernel(block, offset, helper):
    @kiln.jit
    def nested_helper(x):
        return x + offset  # a closure cell of the enclosing call

    @kiln.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(out_ptr + offs, helper(nested_helper(x)) + block, mask=m)

    return kernel


def run(kernel, x, **kw):
    out = np.full_like(x, -1.0)
    kernel[(1,)](x, out, x.size, BLOCK=16, **kw)
    return out


def test_nested_kernels_take_their_closure_values():
    x = np.arange(10, dtype=np.float32)
    k1, k2 = make_kernel(1.0, 10.0, top_helper), make_kernel(2.0, 20.0, top_helper)
    np.testing.assert_array_equal(run(k1, x), (x + 10.0) * SCALE + 1.0)
    np.testing.assert_array_equal(run(k2, x), (x + 20.0) * SCALE + 2.0)
    np.testing.assert_array_equal(run(k1, x), (x + 10.0) * SCALE + 1.0)


def test_nested_kernel_with_a_captured_jit_function_and_tuple():
    shape = (8, 4)

    @kiln.jit
    def fill(out_ptr):
        r = tl.arange(0, shape[0])[:, None] * shape[1] + tl.arange(0, shape[1])[None, :]
        tl.store(out_ptr + r, r.to(tl.float32))

    out = np.zeros(32, np.float32)
    fill[(1,)](out)
    np.testing.assert_array_equal(out, np.arange(32, dtype=np.float32))


def test_nested_kernel_error_points_at_its_line():
    @kiln.jit
    def bad(x_ptr):
        tl.store(x_ptr, tl.no_such_builtin(1.0))

    line = bad.fn.__code__.co_firstlineno + 2
    with pytest.raises(kiln.CompilationError) as e:
        bad[(1,)](np.zeros(1, np.float32))
    assert f"{__file__}:{line}:" in str(e.value)
    assert "tl.store(x_ptr, tl.no_such_builtin(1.0))" in str(e.value)


def test_captured_host_object_is_a_located_error():
    table = {"a": 1}

    @kiln.jit
    def uses_dict(x_ptr):
        tl.store(x_ptr, table)

    with pytest.raises(kiln.CompilationError, match="'table' is a dict"):
        uses_dict[(1,)](np.zeros(1, np.float32))


EXEC_TEMPLATE = textwrap.dedent("""
    import kiln
    import kiln.language as tl


    @kiln.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, GENERATE, mask=offs < n)
""")


def patch_and_exec(template, replacement):
    """As Triton's test_core.patch_kernel does under the interpreter: edit the text, exec() it."""
    src = template.replace("GENERATE", replacement)
    namespace = {}
    exec(src, globals(), namespace)
    return namespace["kernel"]


def test_exec_built_kernels_run_their_own_text():
    k7, k9 = patch_and_exec(EXEC_TEMPLATE, "7.0"), patch_and_exec(EXEC_TEMPLATE, "offs * 9.0")
    a, b = np.zeros(16, np.float32), np.zeros(16, np.float32)
    k7[(1,)](a, 16, BLOCK=16)
    k9[(1,)](b, 16, BLOCK=16)
    np.testing.assert_array_equal(a, np.full(16, 7.0, np.float32))
    np.testing.assert_array_equal(b, np.arange(16, dtype=np.float32) * 9)


def test_exec_built_kernel_error_points_into_the_string():
    k = patch_and_exec(EXEC_TEMPLATE, "undefined_name")
    with pytest.raises(kiln.CompilationError) as e:
        k[(1,)](np.zeros(16, np.float32), 16, BLOCK=16)
    text = str(e.value)
    assert "<string>:9:" in text and "name 'undefined_name' is not defined" in text
    assert "tl.store(x_ptr + offs, undefined_name, mask=offs < n)" in text


def test_notebook_cell_kernel():
    """IPython and Jupyter put each cell's text in linecache under a name of their own."""
    name = "<ipython-input-7-kilntest>"
    cell = "x = 1\n\n@kiln.jit\ndef cell_kernel(p):\n    tl.store(p, 5.0)\n    tl.store(p + 1, oops)\n"
    linecache.cache[name] = (len(cell), None, cell.splitlines(keepends=True), name)
    try:
        namespace = {"kiln": kiln, "tl": tl}
        exec(compile(cell, name, "exec"), namespace)
        with pytest.raises(kiln.CompilationError) as e:
            namespace["cell_kernel"][(1,)](np.zeros(2, np.float32))
        assert f"{name}:6:" in str(e.value)
    finally:
        del linecache.cache[name]


def test_kernel_in_python_dash_c():
    code = textwrap.dedent("""
        import numpy as np, kiln, kiln.language as tl
        @kiln.jit
        def k(p, n, BLOCK: tl.constexpr):
            o = tl.arange(0, BLOCK)
            tl.store(p + o, o * 2.0, mask=o < n)
        x = np.zeros(8, np.float32)
        k[(1,)](x, 8, BLOCK=8)
        print(x.tolist())
    """)
    env = dict(os.environ, KILN_INTERPRET="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str([float(2 * i) for i in range(8)])


MODULE_WITH_A_BAD_KERNEL = textwrap.dedent("""
    import kiln
    import kiln.language as tl


    @kiln.jit
    def good(p):
        tl.store(p, 1.0)


    @kiln.jit
    def bad(p):
        with open("x") as f:
            tl.store(p, 2.0)


    @kiln.jit
    def twin(p):
        tl.store(p, 10.0)


    first_twin = twin


    @kiln.jit
    def twin(p):
        tl.store(p, 20.0)
""")


@pytest.fixture
def module_file(tmp_path, monkeypatch):
    path = tmp_path / "kiln_anywhere_mod.py"
    path.write_text(MODULE_WITH_A_BAD_KERNEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("kiln_anywhere_mod", None)
    import kiln_anywhere_mod
    yield kiln_anywhere_mod
    sys.modules.pop("kiln_anywhere_mod", None)


def test_one_bad_kernel_leaves_the_others_usable(module_file):
    x = np.zeros(1, np.float32)
    module_file.good[(1,)](x)
    assert x[0] == 1.0
    with pytest.raises(kiln.CompilationError) as e:
        module_file.bad[(1,)](x)
    assert "kiln_anywhere_mod.py:13:" in str(e.value)
    module_file.good[(1,)](x)  # still fine after the other's error
    assert x[0] == 1.0


def test_kernels_of_one_name_run_their_own_definitions(module_file):
    x = np.zeros(1, np.float32)
    module_file.first_twin[(1,)](x)
    assert x[0] == 10.0
    module_file.twin[(1,)](x)
    assert x[0] == 20.0


def test_decorating_compiles_nothing_and_is_fast():
    def f(x_ptr, n, BLOCK: tl.constexpr):
        this_kernel_is_never_compiled(x_ptr)  # noqa: F821

    kiln.jit(f)  # warm the path once
    n = 200
    start = time.perf_counter()
    for _ in range(n):
        kiln.jit(f)
    per = (time.perf_counter() - start) / n
    assert per < 200e-6, f"decorating took {per * 1e6:.1f} us"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses a pseudo-terminal")
def test_kernel_at_the_interactive_prompt():
    """The prompt keeps no text of what was typed but readline's history: the kernel comes from there."""
    pty = pytest.importorskip("pty")
    env = dict(os.environ, KILN_INTERPRET="1", PYTHONPATH=os.pathsep.join(sys.path))
    typed = ["import numpy as np, kiln, kiln.language as tl", "@kiln.jit", "def k(p, BLOCK: tl.constexpr):",
             "    tl.store(p + tl.arange(0, BLOCK), tl.arange(0, BLOCK) * 3)", "",
             "x = np.zeros(4, np.int32)", "k[(1,)](x, BLOCK=4) and None", "print('RESULT', x.tolist())", "exit()"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: an interactive Python on the terminal
        os.execvpe(sys.executable, [sys.executable, "-i", "-q"], env)
    out = b""
    for line in typed:
        os.write(fd, (line + "\n").encode())
        time.sleep(0.3)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    assert "RESULT [0, 3, 6, 9]" in out.decode(errors="replace"), out.decode(errors="replace")[-2000:]
