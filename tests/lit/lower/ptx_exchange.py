# Golden PTX of gather and histogram (src/lower/lower_exchange.cpp) and of the ops built from existing
# ones (join, split, flip: selects, reduce_combine over a size-2 dim, xor).
#
# RUN: kiln compile %s --kernel gather_rows --signature "*fp32:16, *i32:16, *fp32:16, 64, 32, 128" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=GATHER
# RUN: kiln compile %s --kernel histogram --signature "*i32:16, *i32:16, i32, 1024, 128" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=HIST
# RUN: kiln compile %s --kernel join_flip --signature "*fp16:16, *fp16:16, 64" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=JOIN

import triton
import triton.language as tl


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    offs = tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :]
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(src, idx, 0))


@triton.jit
def histogram(x_ptr, h_ptr, n, M: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, M)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


@triton.jit
def join_flip(x_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    a, b = tl.split(tl.join(x, x + 1))
    tl.store(y_ptr + tl.arange(0, N), tl.flip(a * b))
