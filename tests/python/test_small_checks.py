"""The smaller defects of issue 17 (item 9), each said plainly: grid and option values past 64 bits,
a negative num_stages on the interpreter, len() of a non-ASCII constexpr str, a module in latin-1,
@jit given non-functions, and an unknown \\N{...} escape in kernel text."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln
import kiln.language as tl


@kiln.jit
def one(out_ptr):
    tl.store(out_ptr, 1)


def test_grid_past_64_bits_says_the_value_given():
    out = np.zeros(1, np.int32)
    with pytest.raises(kiln.ArgumentError, match=r"grid dimension 0 is 18446744073709551616;"):
        one[(2**64,)](out)
    with pytest.raises(kiln.ArgumentError, match=r"grid dimension 1 is -1;"):
        one[(1, -1)](out)


def test_num_warps_past_64_bits_says_the_value_given():
    out = np.zeros(1, np.int32)
    with pytest.raises(kiln.ArgumentError, match=r"num_warps is 1180591620717411303424, which is out of range"):
        one[(1,)](out, num_warps=2**70)
    with pytest.raises(kiln.ArgumentError, match=r"num_stages is -4294967296"):
        one[(1,)](out, num_stages=-2**32)


def test_negative_num_stages_is_refused_on_the_interpreter():
    out = np.zeros(1, np.int32)
    with pytest.raises(kiln.CompilationError, match="num_stages must be 0 or more, got -1"):
        one[(1,)](out, num_stages=-1)
    one[(1,)](out, num_stages=0)
    assert out[0] == 1


@kiln.jit
def text_facts(out_ptr, S: tl.constexpr):
    tl.store(out_ptr, len(S))
    tl.store(out_ptr + 1, len(S[1:]))
    tl.store(out_ptr + 2, S[1] == "é")


def test_len_of_a_constexpr_str_counts_characters():
    out = np.zeros(3, np.int32)
    text_facts[(1,)](out, S="héllo")
    assert out.tolist() == [5, 4, 1]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent)] +
                                        [p for p in [env.get("PYTHONPATH")] if p])
    return env


def test_latin1_module_with_a_coding_line_compiles(tmp_path):
    script = tmp_path / "latin1_kernel.py"
    script.write_bytes(textwrap.dedent("""\
        # -*- coding: latin-1 -*-
        import numpy as np, kiln, kiln.language as tl
        @kiln.jit
        def k(out_ptr, S: tl.constexpr):
            # caf\xe9: the kernel's own text is not UTF-8
            tl.store(out_ptr, len(S))
        out = np.zeros(1, np.int32)
        k[(1,)](out, S="d\xe9j\xe0")
        print(out[0])
    """).encode("latin-1"))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "4"
    # The CLI reads the file itself: it decodes per the coding line too (its messages are UTF-8).
    bad = tmp_path / "latin1_error.py"
    bad.write_bytes("# coding: latin-1\nimport triton\nimport triton.language as tl\n@triton.jit\n"
                    "def k(out_ptr):\n    x = 'caf\xe9' + 1\n".encode("latin-1"))
    r = _cli("compile", str(bad), "--kernel", "k", "--signature", "*i32", "--emit", "ir")
    assert r.returncode == 1 and "x = 'caf\xe9' + 1" in r.stderr.decode("utf-8"), r.stderr
    other = tmp_path / "cp1252.py"
    other.write_bytes(b"# -*- coding: cp1252 -*-\nimport triton\n")
    r = _cli("compile", str(other), "--kernel", "k", "--signature", "*i32", "--emit", "ir")
    assert r.returncode != 0 and "declares the encoding 'cp1252'" in r.stderr.decode(), r.stderr


def _cli(*args):
    kiln_cli = pathlib.Path(kiln.__file__).parent.parent.parent / "kiln"
    if not kiln_cli.exists():
        pytest.skip("the kiln CLI is not next to the Python package")
    return subprocess.run([str(kiln_cli), *args], capture_output=True, timeout=60)


def test_jit_of_non_functions_is_a_type_error():
    with pytest.raises(TypeError):
        kiln.jit(1, 2, 3)
    with pytest.raises(TypeError, match="expected a Python function to decorate, got int"):
        kiln.jit(1)
    with pytest.raises(TypeError, match="expected a Python function to decorate, got str"):
        kiln.jit("not a function")


def test_unknown_named_escape_is_a_located_compile_error(tmp_path):
    source = tmp_path / "named_escape.py"
    source.write_text(textwrap.dedent("""\
        import triton
        import triton.language as tl

        @triton.jit
        def k(out_ptr):
            tl.device_assert(out_ptr is not None, "\\\\N{NOPE}")
    """).replace("\\\\N", "\\N"))
    assert "\\N{NOPE}" in source.read_text()
    r = _cli("compile", str(source), "--kernel", "k", "--signature", "*i32", "--emit", "ir")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert f"{source}:6:43: error: the escape \\N{{NOPE}} names a Unicode character" in r.stderr.decode(), r.stderr
