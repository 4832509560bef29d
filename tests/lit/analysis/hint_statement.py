# `tl.multiple_of(x, ...)` as a statement, its result dropped (as Triton's grouped-GEMM tutorial writes
# it): Triton attaches the promise to x itself, so kiln rebinds the names bound to x to the hinted value
# and every later use sees it. Here the pointers' alignment comes only from the hint, so the load and
# store are 16-byte vectors; without the hint they would be scalar. A loop-carried pointer hinted at
# the top of its body keeps the promise in every iteration, and the loop is still pipelined.
# RUN: kiln compile %s --kernel hinted --signature "*fp32, i32, 512" --emit ir | FileCheck %s --check-prefix=IR
# IR: func @hinted(
# IR: [[H:%[0-9]+]] = multiple_of %{{[0-9]+}} {values = [16]}
# IR: load [[H]]
# RUN: kiln compile %s --kernel hinted --signature "*fp32, i32, 512" --emit ptx | FileCheck %s --check-prefix=PTX
# PTX: ld.global.v4
# PTX: st.global.v4
# RUN: kiln compile %s --kernel unhinted --signature "*fp32, i32, 512" --emit ptx | FileCheck %s --check-prefix=SCALAR
# SCALAR-NOT: ld.global.v4
# RUN: kiln compile %s --kernel loop_hint --signature "*i64, *fp16, i32, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=LOOP
# LOOP: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
import triton
import triton.language as tl


@triton.jit
def hinted(x_ptr, offset, BLOCK: tl.constexpr):
    ptrs = x_ptr + offset + tl.arange(0, BLOCK)
    tl.multiple_of(ptrs, [16])
    tl.store(ptrs, tl.load(ptrs) + 1)


@triton.jit
def unhinted(x_ptr, offset, BLOCK: tl.constexpr):
    ptrs = x_ptr + offset + tl.arange(0, BLOCK)
    tl.store(ptrs, tl.load(ptrs) + 1)


@triton.jit
def loop_hint(bases, out, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_base = tl.load(bases).to(tl.pointer_type(tl.float16))
    b_base = tl.load(bases + 1).to(tl.pointer_type(tl.float16))
    a = a_base + tl.arange(0, BM)[:, None] * n + tl.arange(0, BK)[None, :]
    b = b_base + tl.arange(0, BK)[:, None] * n + tl.arange(0, BN)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(n, BK)):
        tl.multiple_of(a, [16, 16])
        tl.multiple_of(b, [16, 16])
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK
        b += BK * n
    o = out + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(o, acc.to(tl.float16))
