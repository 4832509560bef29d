"""tl.device_print and print in kernels: Triton's line format (pid, padded indices, the rewritten prefix,
"(operand k)", printf's value formats, hex), checked line by line on the interpreter, where the order is
fixed (program by program, row-major, operand by operand), and as a multiset on the GPU, where each tile
element prints once and a scalar once per thread.

A kernel without array arguments runs on the GPU wherever there is one, so these tests launch such
kernels through backend.launcher(), which picks the interpreter for the host backends. The GPU's
printf lines reach stdout when the device synchronizes; _lines() waits for that."""
import collections
import ctypes

import numpy as np
import pytest

import kiln
import kiln.language as tl

from conftest import kernel_of_lines

N = 128


@kiln.jit
def print_kernel(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("x: ", x)


@kiln.jit
def python_print_kernel(X, BLOCK: tl.constexpr):
    print("x:", tl.load(X + tl.arange(0, BLOCK)))


@kiln.jit
def hex_kernel(X, BLOCK: tl.constexpr):
    tl.device_print("x: ", tl.load(X + tl.arange(0, BLOCK)), hex=True)


@kiln.jit
def scalar_kernel(X):
    print("x:", tl.load(X))


@kiln.jit
def no_arg_kernel():
    print("no arg")


@kiln.jit
def pid_kernel():
    print("", tl.program_id(0))


@kiln.jit
def two_args_kernel(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("", x, tl.full((BLOCK,), 1, tl.int32))


@kiln.jit
def large_kernel(BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.device_print("x ", tl.full([BLOCK_M, BLOCK_N], 1, tl.int32))


@kiln.jit
def cast_kernel(BLOCK: tl.constexpr):
    tl.device_print("x: ", (tl.arange(0, BLOCK) + 128).to(tl.uint8))


_libc = ctypes.CDLL(None)


def _lines(capfd, backend):
    backend.sync()  # CUDA writes a kernel's printf buffer out at a synchronization
    _libc.fflush(None)  # and through C's stdout, which buffers when stdout is not a terminal
    out, err = capfd.readouterr()
    assert err == ""
    return [line for line in out.splitlines() if line]


@pytest.fixture(autouse=True)
def _no_earlier_output(request, capfd):
    """Lines of an earlier launch that reached stdout late would be counted as this test's."""
    if "backend" in request.fixturenames:
        assert _lines(capfd, request.getfixturevalue("backend")) == [], "output of an earlier test"


def _check(lines, want, backend):
    """The interpreter's lines in its order; the GPU's as a multiset (threads print in any order)."""
    if backend.is_cuda:
        assert collections.Counter(lines) == collections.Counter(want)
    else:
        assert lines == want


def _value(v, dtype):
    return f"{v:f}" if np.issubdtype(dtype, np.floating) else str(v)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
                                   np.float64])
def test_tile(backend, capfd, dtype):
    x = np.arange(N).astype(dtype)
    if np.issubdtype(dtype, np.signedinteger):
        x = -x  # negative values print with their sign
    print_kernel[(1,)](backend.asarray(x), BLOCK=N, num_warps=4)
    want = [f"pid (0, 0, 0) idx ({i:3}) x: {_value(x[i], dtype)}" for i in range(N)]
    _check(_lines(capfd, backend), want, backend)


def test_python_print_is_device_print(backend, capfd):
    x = np.arange(N, dtype=np.int32) + (1 << 20)
    python_print_kernel[(1,)](backend.asarray(x), BLOCK=N)
    _check(_lines(capfd, backend), [f"pid (0, 0, 0) idx ({i:3}) x: {x[i]}" for i in range(N)], backend)


def test_unsigned_32_bits(backend, capfd):
    x = (np.arange(N, dtype=np.uint64) + (1 << 31)).astype(np.uint32)
    print_kernel[(1,)](backend.asarray(x), BLOCK=N)
    _check(_lines(capfd, backend), [f"pid (0, 0, 0) idx ({i:3}) x: {(1 << 31) + i}" for i in range(N)], backend)


@pytest.mark.parametrize("block", [N, 16])  # 16 elements in 128 threads: each held by 8 of them
def test_cast_to_uint8(backend, capfd, block):
    backend.launcher(cast_kernel)[(1,)](BLOCK=block, num_warps=4)
    width = len(str(block - 1))
    _check(_lines(capfd, backend), [f"pid (0, 0, 0) idx ({i:{width}}) x: {i + 128}" for i in range(block)], backend)


@pytest.mark.parametrize("dtype, digits", [(np.int16, 4), (np.int32, 8), (np.int64, 16)])
def test_hex(backend, capfd, dtype, digits):
    x = np.arange(N).astype(dtype)
    hex_kernel[(1,)](backend.asarray(x), BLOCK=N)
    _check(_lines(capfd, backend), [f"pid (0, 0, 0) idx ({i:3}) x: 0x{i:0{digits}x}" for i in range(N)], backend)


@pytest.mark.parametrize("dtype, text", [(np.int32, "42"), (np.float32, "42.000000"), (np.uint8, "42")])
def test_scalar(backend, capfd, dtype, text):
    scalar_kernel[(1,)](backend.asarray(np.array([42], dtype=dtype)), num_warps=4)
    copies = 4 * 32 if backend.is_cuda else 1  # every thread of the program prints a scalar on the GPU
    assert _lines(capfd, backend) == [f"pid (0, 0, 0) idx () x: {text}"] * copies


def test_no_argument_and_program_id(backend, capfd):
    backend.launcher(no_arg_kernel)[(2,)](num_warps=1)
    backend.launcher(pid_kernel)[(3,)](num_warps=2)
    lines = _lines(capfd, backend)
    no_arg = [f"pid ({p}, 0, 0) no arg" for p in range(2)]
    pid = [f"pid ({p}, 0, 0) idx (): {p}" for p in range(3)]
    if backend.is_cuda:  # every thread prints: 32 of them a program, then 64
        want = [w for w in no_arg for _ in range(32)] + [w for w in pid for _ in range(64)]
        assert collections.Counter(lines) == collections.Counter(want)
    else:
        assert lines == no_arg + pid


def test_two_operands(backend, capfd):
    x = np.arange(N, dtype=np.int32)
    two_args_kernel[(1,)](backend.asarray(x), BLOCK=N)
    want = [f"pid (0, 0, 0) idx ({i:3}): (operand 0) {i}" for i in range(N)]
    want += [f"pid (0, 0, 0) idx ({i:3}): (operand 1) 1" for i in range(N)]
    _check(_lines(capfd, backend), want, backend)


def test_2d_grid_and_widths(backend, capfd):
    backend.launcher(large_kernel)[(1, 2)](BLOCK_M=4, BLOCK_N=32, num_warps=2)  # fewer threads than elements, and broadcast
    want = [f"pid (0, {p}, 0) idx ({i}, {j:2}) x: 1" for p in range(2) for i in range(4) for j in range(32)]
    _check(_lines(capfd, backend), want, backend)


def test_prefix_is_rewritten_as_triton_does():
    # Triton: with arguments the prefix ends in ": "; a prefix longer than 2 characters starts with " ".
    ptx_of = lambda prefix: kernel_of_lines("X", f"tl.device_print({prefix!r}, tl.load(X))").warmup(
        "*i32", grid=(1,)).stage("ir")
    assert 'prefix = " x: "' in ptx_of("x")
    assert 'prefix = " x: "' in ptx_of("x ")
    assert 'prefix = ": "' in ptx_of("")
    assert 'prefix = " value: "' in ptx_of(" value: ")


@pytest.mark.parametrize("line, message", [
    ("tl.device_print(X)", "the prefix \\(the first argument\\) must be a constexpr string"),
    ("print()", "print\\(\\) in a kernel needs a string prefix first"),
    ('print("a", "b")', "argument 1 is a string"),
])
def test_errors_are_located(line, message):
    k = kernel_of_lines("X", line)
    with pytest.raises(kiln.CompilationError, match=r"<string>:3:\d+: error: .*" + message):
        k.warmup("*i32", grid=(1,))
