"""The int32-overflow checks (docs/semantics.md, "Integer overflow checks"): the interpreter's oracle
(jit(check_overflow=...), KILN_CHECK_OVERFLOW) on a kernel run over 2^31+ elements, and the compiler's
warning for a program id times a runtime argument. The 2^31 + 2^20 bytes are an anonymous mapping, of
which the kernels touch the few programs around offset 2^31 (a `first` program argument)."""
import inspect
import mmap
import pathlib
import warnings

import numpy as np
import pytest

import kiln
import kiln.compat
import kiln.language as tl

BLOCK = 1024
FIRST = 2**21 - 2  # programs FIRST .. FIRST + 3: the third one's offset is 2^31


@pytest.fixture
def big():
    # Pages are made only where the kernel touches; the mapping goes with the last view of it.
    return np.frombuffer(mmap.mmap(-1, 2**31 + 2**20), dtype=np.int8)


def line_of(kernel, text):
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@kiln.jit(check_overflow=True)
def increment32(x_ptr, first, BLOCK: tl.constexpr):
    pid = tl.program_id(0) + first
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


@kiln.jit(check_overflow=True)
def increment64(x_ptr, first, BLOCK: tl.constexpr):
    pid = (tl.program_id(0) + first).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_the_oracle_names_the_line_of_the_int32_offset(big):
    with pytest.raises(kiln.KernelError) as info:
        increment32[(4,)](big, FIRST, BLOCK=BLOCK)
    e = info.value
    assert e.line == line_of(increment32, "offs = pid * BLOCK")
    assert e.file == __file__
    assert ("i32 overflow changes an address: at program (2, 0, 0), the i32 mul 2097152 * 1024 = 2147483648 "
            "wraps to -2147483648, and the load at ") in e.message
    assert "reads through the wrapped address, element [0]" in e.message
    assert big[2**31 - 1] == 1 and big[2**31] == 0  # the programs before it ran; its own did not


def test_the_oracle_is_silent_on_the_int64_offset(big):
    increment64[(4,)](big, FIRST, BLOCK=BLOCK)
    start = FIRST * BLOCK
    assert (big[start:start + 4 * BLOCK] == 1).all()
    assert big[start - 1] == 0 and big[start + 4 * BLOCK] == 0


def test_without_the_check_the_wrap_is_only_an_out_of_bounds_access(big):
    @kiln.jit
    def plain(x_ptr, first, BLOCK: tl.constexpr):
        pid = tl.program_id(0) + first
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)

    with pytest.raises(kiln.KernelError, match="out-of-bounds load") as info:
        plain[(4,)](big, FIRST, BLOCK=BLOCK)
    assert info.value.line != line_of(plain, "offs = pid * BLOCK")


def test_environment_variable_and_all_mode(monkeypatch):
    monkeypatch.setenv("KILN_CHECK_OVERFLOW", "all")

    @kiln.jit
    def hashed(out_ptr):  # the hash wraps, but its low bits (the address) are those of the exact product
        h = tl.program_id(0) * -1640531535
        tl.store(out_ptr + (h & 7), 1)

    out = np.zeros(8, np.int32)
    with pytest.raises(kiln.KernelError, match=r"i32 overflow at program \(2, 0, 0\), the i32 mul 2 \* -1640531535 "
                                               r"= -3281063070 wraps to 1013904226") as info:
        hashed[(8,)](out)
    assert info.value.line == line_of(hashed, "h = tl.program_id(0)")
    monkeypatch.setenv("KILN_CHECK_OVERFLOW", "1")

    @kiln.jit
    def hashed_address_mode(out_ptr):
        h = tl.program_id(0) * -1640531535
        tl.store(out_ptr + (h & 7), 1)

    hashed_address_mode[(8,)](out)  # no address changed
    monkeypatch.setenv("KILN_CHECK_OVERFLOW", "sometimes")
    with pytest.raises(kiln.KilnError, match="KILN_CHECK_OVERFLOW must be 0, 1 .* or 'all', got 'sometimes'"):
        kiln.jit(hashed.fn)


# The CLI's golden test of the warning: its kernels, under Python (rows: the warning; rows64: none).
LIT_KERNELS = pathlib.Path(__file__).resolve().parents[1] / "lit" / "analysis" / "offset_overflow_warning.py"


def test_the_compiler_warns_at_a_program_id_times_a_runtime_argument():
    lit = kiln.compat.import_as_triton(LIT_KERNELS)
    x = np.ones(16, np.float32)
    with pytest.warns(kiln.CompilationWarning, match="product of a program id and the runtime argument 'stride'") as rec:
        lit.rows[(2,)](x, 8, 8, BLOCK=8)
    [w] = [w for w in rec if w.category is kiln.CompilationWarning]
    assert (w.filename, w.lineno) == (str(LIT_KERNELS), line_of(lit.rows, "ptrs = x_ptr + row * stride"))
    assert (x == 2).all()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        lit.rows[(2,)](x, 8, 8, BLOCK=8)  # once per kernel
        lit.rows64[(2,)](x, 8, 8, BLOCK=8)  # 64-bit: nothing to say
        increment32.warmup("*i8", "i32", BLOCK=BLOCK, grid=(1,))  # pid * a constexpr: nothing to say
    assert [str(w.message) for w in rec if w.category is kiln.CompilationWarning] == []
