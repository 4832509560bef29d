"""What kiln refuses among array arguments, by name, instead of crashing or computing a wrong result
(issue 17, items 1-3): read-only memory a kernel stores into, foreign byte order, strides a kernel
cannot follow, sparse tensors. Loading from read-only memory keeps working."""
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
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


@kiln.jit
def advance_kernel(src, dst, n, BLOCK: tl.constexpr):
    # Both pointers carried through one loop: only dst is stored through.
    for _ in range(0, n, BLOCK):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs) + 1.0)
        src += BLOCK
        dst += BLOCK


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def test_store_into_a_read_only_array_is_an_argument_error_naming_it():
    src = np.arange(8, dtype=np.float32)
    dst = _read_only(np.zeros(8, np.float32))
    with pytest.raises(kiln.ArgumentError, match=r"argument 1 \('dst'\) is a NumPy array in read-only memory"):
        copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    assert not dst.any()


def test_load_from_read_only_arrays_still_works():
    src = _read_only(np.arange(8, dtype=np.float32))
    dst = np.zeros(8, np.float32)
    copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    np.testing.assert_array_equal(dst, src)
    # A read-only array NumPy makes itself: frombuffer of bytes.
    copy_kernel[(1,)](np.frombuffer(np.arange(8, dtype=np.float32).tobytes(), np.float32), dst, 8, BLOCK=8)
    np.testing.assert_array_equal(dst, np.arange(8))


def test_pointers_carried_through_a_loop_keep_their_own_source():
    src = _read_only(np.arange(16, dtype=np.float32))
    dst = np.zeros(16, np.float32)
    advance_kernel[(1,)](src, dst, 16, BLOCK=8)
    np.testing.assert_array_equal(dst, src + 1)
    with pytest.raises(kiln.ArgumentError, match=r"\('dst'\)"):
        advance_kernel[(1,)](dst, _read_only(dst), 16, BLOCK=8)


def test_frombuffer_of_bytes_is_not_written():
    data = bytes(32)
    dst = np.frombuffer(data, np.float32)
    with pytest.raises(kiln.ArgumentError, match="read-only"):
        copy_kernel[(1,)](np.ones(8, np.float32), dst, 8, BLOCK=8)
    assert data == bytes(32)


def test_array_interface_read_only_flag_is_honoured():
    backing = np.zeros(8, np.float32)

    class Foreign:  # another library's host array, marked read-only in its interface
        __array_interface__ = dict(backing.__array_interface__, data=(backing.ctypes.data, True))
    with pytest.raises(kiln.ArgumentError, match=r"\('dst'\).*read-only"):
        copy_kernel[(1,)](np.ones(8, np.float32), np.asarray(Foreign()), 8, BLOCK=8)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(kiln.__file__).parent.parent)] +
                                        [p for p in [env.get("PYTHONPATH")] if p])
    return env


def _run(code, cwd):
    path = pathlib.Path(cwd) / "child.py"  # a file: kiln reads the kernel's text from it
    path.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=_env(), timeout=120,
                          cwd=cwd)


def test_store_into_a_read_only_mapping_does_not_crash(tmp_path):
    # A memmap opened with mode 'r' is a PROT_READ mapping: a store used to kill the process (SIGSEGV).
    # A separate process, so that a crash fails this test rather than ending the run.
    r = _run(f"""
        import ctypes, mmap, numpy as np, kiln, kiln.language as tl
        @kiln.jit
        def fill(dst, BLOCK: tl.constexpr):
            tl.store(dst + tl.arange(0, BLOCK), tl.arange(0, BLOCK).to(tl.float32))
        np.zeros(1024, np.float32).tofile({str(tmp_path / 'data.bin')!r})
        m = np.memmap({str(tmp_path / 'data.bin')!r}, dtype=np.float32, mode="r")
        try:
            fill[(1,)](m, BLOCK=1024)
        except kiln.ArgumentError as e:
            print("refused:", e)
        with open({str(tmp_path / 'data.bin')!r}, "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
            try:
                fill[(1,)](np.frombuffer(mm, np.float32), BLOCK=1024)
            except kiln.ArgumentError as e:
                print("refused:", e)
            # The same pages through an array that claims to be writable (as a torch tensor would: torch
            # has no read-only flag): the OS's answer decides.
            address = np.frombuffer(mm, np.uint8).ctypes.data
            unflagged = np.ctypeslib.as_array((ctypes.c_float * 1024).from_address(address))
            assert unflagged.flags.writeable
            try:
                fill[(1,)](unflagged, BLOCK=1024)
            except kiln.ArgumentError as e:
                print("refused:", e)
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("refused:") == 3 and "('dst') is a NumPy array in read-only memory" in r.stdout, r.stdout


@pytest.mark.parametrize("typestr", [">f4", ">i4", ">f8"])
def test_big_endian_arrays_are_refused(typestr):
    src = np.arange(8).astype(typestr)
    dst = np.zeros(8, typestr[1:])
    with pytest.raises(kiln.ArgumentError, match=r"argument 0 \('src'\) .*big-endian byte order"):
        copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    copy_kernel[(1,)](src.astype(src.dtype.newbyteorder("=")), dst, 8, BLOCK=8)  # what the message says to do
    np.testing.assert_array_equal(dst, np.arange(8))


def test_strides_kernels_cannot_follow_are_refused():
    dst = np.zeros(8, np.float32)
    with pytest.raises(kiln.ArgumentError, match=r"\('src'\) is an array with a negative stride"):
        copy_kernel[(1,)](np.arange(8, dtype=np.float32)[::-1], dst, 8, BLOCK=8)
    packed = np.zeros(8, dtype=[("a", "u1"), ("b", "<f4")])  # 5-byte records: b's stride is not whole floats
    with pytest.raises(kiln.ArgumentError, match=r"\('src'\) .*strides \(5,\) .*not whole 4-byte elements"):
        copy_kernel[(1,)](packed["b"][1:], dst, 4, BLOCK=8)


def test_positive_strides_still_work():
    @kiln.jit
    def strided_copy(src, dst, stride, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs * stride))
    base = np.arange(32, dtype=np.float32)
    dst = np.zeros(8, np.float32)
    strided_copy[(1,)](base[::4], dst, 4, BLOCK=8)
    np.testing.assert_array_equal(dst, base[::4])


def test_sparse_tensor_is_an_argument_error(tmp_path):
    # torch may be absent: a stand-in torch module whose Tensor has no data pointer, as a sparse one.
    r = _run("""
        import sys, types, numpy as np
        torch = types.ModuleType("torch")
        class Layout:
            def __repr__(self): return "torch.sparse_coo"
        class Tensor:
            dtype = None
            layout = Layout()
            def data_ptr(self): raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
            def get_device(self): return -1
        torch.float32 = object(); Tensor.dtype = torch.float32
        torch.Tensor = Tensor; torch._C = types.ModuleType("torch._C")
        sys.modules["torch"] = torch
        import kiln, kiln.language as tl
        @kiln.jit
        def k(x, BLOCK: tl.constexpr):
            tl.store(x + tl.arange(0, BLOCK), tl.arange(0, BLOCK))
        try:
            k[(1,)](Tensor(), BLOCK=4)
        except kiln.ArgumentError as e:
            print("refused:", e)
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "argument 0 ('x') is a tensor of layout torch.sparse_coo" in r.stdout, r.stdout


def test_real_sparse_torch_tensor_is_an_argument_error():
    torch = pytest.importorskip("torch")
    t = torch.zeros(8).to_sparse()
    with pytest.raises(kiln.ArgumentError, match=r"\('dst'\) is a tensor of layout torch.sparse_coo"):
        copy_kernel[(1,)](torch.zeros(8), t, 8, BLOCK=8)


def test_dlpack_exports_are_read_only_only_when_the_producer_says_so():
    class Legacy:  # DLPack before 1.0 cannot say read-only (NumPy marks its imports read-only anyway)
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None, **kwargs):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    class Versioned(Legacy):  # DLPack 1.0: the export carries the array's read-only flag
        def __dlpack__(self, stream=None, max_version=None, **kwargs):
            return self.a.__dlpack__(max_version=max_version) if max_version else self.a.__dlpack__()

    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(8, np.float32)
    copy_kernel[(1,)](src, Legacy(dst), 8, BLOCK=8)
    np.testing.assert_array_equal(dst, src)
    copy_kernel[(1,)](src * 2, Versioned(dst), 8, BLOCK=8)
    np.testing.assert_array_equal(dst, src * 2)
    with pytest.raises(kiln.ArgumentError, match=r"\('dst'\) is a NumPy array in read-only memory"):
        copy_kernel[(1,)](src, Versioned(_read_only(dst)), 8, BLOCK=8)
