# Golden PTX of gather and histogram (src/lower/lower_exchange.cpp) and of the ops built from existing
# ones (join, split, flip: selects, reduce_combine over a size-2 dim, xor).
#
# RUN: kiln compile %s --kernel gather_rows --signature "*fp32:16, *i32:16, *fp32:16, 64, 32, 128" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=GATHER
# RUN: kiln compile %s --kernel histogram --signature "*i32:16, *i32:16, i32, 1024, 128" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=HIST
# RUN: kiln compile %s --kernel join_flip --signature "*fp16:16, *fp16:16, 64" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=JOIN

# gather [64, 32] f32 by [128, 32] along dim 0, 4 warps: src stored row-major by its (unique) owners, one
# barrier, then each result register loads [row-major offset with dim 0 zeroed + (index & 63) * 128 bytes].
# GATHER:         // gather through shared memory
# GATHER-COUNT-16: st.shared.f32
# GATHER-NEXT:    bar.sync 0;
# GATHER:         and.b32 [[I:%r[0-9]+]], {{%r[0-9]+}}, 63;
# GATHER-NEXT:    shl.b32 [[I]], [[I]], 7;
# GATHER-NEXT:    add.u32 [[A:%r[0-9]+]], {{%r[0-9]+}}, [[I]];
# GATHER-NEXT:    ld.shared.f32 {{%f[0-9]+}}, [[[A]]];
# GATHER-NOT:     bar.sync
# GATHER:         st.global.v4.f32
# GATHER:         ret;

# histogram of 1024 i32 into 128 bins, masked: masked-off elements become -1 (a select), every thread
# zeroes its counter, red.shared.add per element in range (unsigned compare), a barrier, one load per bin.
# HIST:           mov.b32 [[NONE:%r[0-9]+]], -1;
# HIST:           selp.b32 [[X0:%r[0-9]+]], {{%r[0-9]+}}, [[NONE]], {{%p[0-9]+}};
# HIST:           // histogram through shared memory
# HIST-NEXT:      shl.b32 [[MINE:%r[0-9]+]], %r1, 2;
# HIST-NEXT:      add.u32 [[MINE]], [[MINE]], [[BASE:%r[0-9]+]];
# HIST-NEXT:      mov.b32 [[ZERO:%r[0-9]+]], 0;
# HIST-NEXT:      st.shared.b32 [[[MINE]]], [[ZERO]];
# HIST-NEXT:      bar.sync 0;
# HIST-NEXT:      mov.b32 [[ONE:%r[0-9]+]], 1;
# HIST-NEXT:      setp.lt.u32 [[IN:%p[0-9]+]], [[X0]], 128;
# HIST-NEXT:      shl.b32 [[AT:%r[0-9]+]], [[X0]], 2;
# HIST-NEXT:      add.u32 [[AT]], [[AT]], [[BASE]];
# HIST-NEXT:      @[[IN]] red.shared.add.u32 [[[AT]]], [[ONE]];
# HIST-COUNT-7:   red.shared.add.u32
# HIST-NEXT:      bar.sync 0;
# HIST:           ld.shared.b32 [[C:%r[0-9]+]],
# HIST-NEXT:      mad.wide.s32
# HIST-NEXT:      st.global.b32 [{{%rd[0-9]+}}], [[C]];
# HIST-NEXT:      ret;

# join is a select between the two halves, split a reduce_combine over the size-2 dim that keeps the
# first and the last element (a butterfly across the pair of lanes holding it), flip xor swaps.
# JOIN:           selp.b16
# JOIN:           shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 31, 0xFFFFFFFF;
# JOIN:           mul.rn.f16
# JOIN:           xor.b32
# JOIN:           ret;

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
