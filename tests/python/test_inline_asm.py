"""tl.inline_asm_elementwise: Triton's own uses (pack=1 and pack=4, pointers, several results, packed
several results) on the GPU against NumPy; the interpreter's located refusal; the compile-time errors;
every kernel's PTX assembled by ptxas for sm_80 and sm_90a where ptxas is installed."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import kiln
import kiln.language as tl

from conftest import kernel_of_lines

PTXAS = os.environ.get("KILN_PTXAS") or shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)


@kiln.jit
def shift_kernel(X, Y, Z, n: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    s = tl.full([BLOCK], n, tl.int32)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(Z + tl.arange(0, BLOCK), z)


@kiln.jit
def packed_kernel(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x], dtype=tl.int8,
                                  is_pure=True, pack=4)
    tl.store(Y + tl.arange(0, BLOCK), y)


@kiln.jit
def pointers_kernel(X, Y, BLOCK: tl.constexpr):
    tl.inline_asm_elementwise("ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;", "=r,l,l",
                              [X + tl.arange(0, BLOCK), Y + tl.arange(0, BLOCK)], dtype=tl.int8, is_pure=False, pack=1)


@kiln.jit
def two_outputs_kernel(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    (c, d) = tl.inline_asm_elementwise("{ sub.u32 $0, $2, $3; sub.u32 $1, $3, $2; }", "=r,=r,r,r", [a, b],
                                       dtype=(tl.uint32, tl.uint32), is_pure=False, pack=1)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


@kiln.jit
def packed_two_outputs_kernel(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=False, pack=4)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


@kiln.jit
def halves_kernel(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(Y + tl.arange(0, BLOCK), y)


def _gpu_only(backend):
    if not backend.is_cuda:
        pytest.skip("inline PTX runs on the GPU only (the interpreter refuses it: test_interpreter_refuses)")


def test_shift(backend, rng):
    _gpu_only(backend)
    x = rng.integers(0, 1 << 31, 128, dtype=np.int64).astype(np.uint32).view(np.int32)
    y = rng.integers(0, 1 << 31, 128, dtype=np.int64).astype(np.uint32).view(np.int32)
    z = backend.empty(128, np.int32)
    shift_kernel[(1,)](backend.asarray(x), backend.asarray(y), z, n=17, BLOCK=128)
    backend.sync()
    ux, uy = x.view(np.uint32).astype(np.uint64), y.view(np.uint32).astype(np.uint64)
    want = (((uy << 17) | (ux >> 15)) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)  # shf.l.wrap: hi = y
    np.testing.assert_array_equal(backend.numpy(z), want)


@pytest.mark.parametrize("n", [512, 128, 8])
def test_packed_bytes(backend, rng, n):
    _gpu_only(backend)
    x = rng.integers(0, 256, n).astype(np.uint8)
    y = backend.empty(n, np.int8)
    packed_kernel[(1,)](backend.asarray(x), y, BLOCK=n)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(y), ((x & 0x1F) << 3).astype(np.uint8).view(np.int8))


def test_pointers(backend, rng):
    _gpu_only(backend)
    x = rng.integers(0, 256, 128).astype(np.uint8)
    y = backend.empty(128, np.int8)
    pointers_kernel[(1,)](backend.asarray(x), y, BLOCK=128)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(y), (x.astype(np.uint32) << 3).astype(np.uint8).view(np.int8))


def test_two_outputs(backend, rng):
    _gpu_only(backend)
    a = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    c, d = backend.empty(64, np.uint32), backend.empty(64, np.uint32)
    two_outputs_kernel[(1,)](backend.asarray(a), backend.asarray(b), c, d, BLOCK=64)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(c), a - b)
    np.testing.assert_array_equal(backend.numpy(d), b - a)


def test_packed_two_outputs(backend, rng):
    _gpu_only(backend)
    a = rng.integers(0, 256, 512).astype(np.uint8)
    b = rng.standard_normal(512).astype(np.float32) * 100
    c, d = backend.empty(512, np.int32), backend.empty(512, np.float32)
    packed_two_outputs_kernel[(1,)](backend.asarray(a), backend.asarray(b), c, d, BLOCK=512)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(c), a.astype(np.int32))
    np.testing.assert_array_equal(backend.numpy(d), np.maximum(a.astype(np.float32), b))


def test_halves(backend, rng):
    _gpu_only(backend)
    x = rng.standard_normal(256).astype(np.float16)
    y = backend.empty(256, np.float16)
    halves_kernel[(1,)](backend.asarray(x), y, BLOCK=256)
    backend.sync()
    np.testing.assert_array_equal(backend.numpy(y), x + x)


def test_interpreter_refuses(backend):
    if backend.is_cuda:
        pytest.skip("the GPU runs inline PTX")
    x = backend.asarray(np.zeros(128, np.uint8))
    y = backend.empty(128, np.int8)
    with pytest.raises(kiln.KernelError, match=r"test_inline_asm.py:\d+:\d+: error: kernel 'packed_kernel': inline PTX "
                                               r"\(tl.inline_asm_elementwise\) cannot run on the interpreter"):
        packed_kernel[(1,)](x, y, BLOCK=128)


@pytest.mark.parametrize("args, message", [
    ('"mov.b32 $0, $1;", "=r,r,r", [x], dtype=tl.int32, is_pure=True, pack=1',
     "constraints name 1 outputs and 2 inputs, but 1 results and 1 arguments with pack 1 need 1 and 1"),
    ('"mov.b32 $0, $5;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1', r"the asm names \$5 but has only 2"),
    ('"mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=64', "pack must be from 1 to 32, got 64"),
    ('"mov.b32 $0, $1;", "=r,r", [x], dtype=tl.pointer_type(tl.int32), is_pure=True, pack=1',
     "results cannot be pointers"),
    ('"mov.b32 $0, $1;", "r,=r", [x], dtype=tl.int32, is_pure=True, pack=1',
     "output constraints must come before the inputs"),
])
def test_errors_are_located(args, message):
    k = kernel_of_lines("X, BLOCK: tl.constexpr", "x = tl.load(X + tl.arange(0, BLOCK))",
                        f"y = tl.inline_asm_elementwise({args})")
    with pytest.raises(kiln.CompilationError, match=r"<string>:4:\d+: error: tl.inline_asm_elementwise\(\): " + message):
        k.warmup("*i32", BLOCK=128, grid=(1,))


KERNELS = [
    (shift_kernel, ("*i32:16", "*i32:16", "*i32:16"), dict(n=3, BLOCK=128)),
    (packed_kernel, ("*u8:16", "*i8:16"), dict(BLOCK=512)),
    (pointers_kernel, ("*u8:16", "*i8:16"), dict(BLOCK=128)),
    (two_outputs_kernel, ("*u32:16",) * 4, dict(BLOCK=64)),
    (packed_two_outputs_kernel, ("*u8:16", "*fp32:16", "*i32:16", "*fp32:16"), dict(BLOCK=512)),
    (halves_kernel, ("*fp16:16", "*fp16:16"), dict(BLOCK=256)),
]


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("index", range(len(KERNELS)))
def test_kernels_assemble(arch, index, tmp_path):
    fn, sig, constexprs = KERNELS[index]
    ptx = fn.warmup(*sig, **constexprs, grid=(1,)).stage("ptx", arch)
    assert "// inline asm" in ptx
    (tmp_path / "k.ptx").write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
