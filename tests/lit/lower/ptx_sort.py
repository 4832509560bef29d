# Golden PTX of sort (src/lower/lower_sort.cpp): compare-exchange rounds on the partner along one axis
# bit, a register of the same thread (setp.gt and selp with the order known), a lane's (shfl.sync.bfly,
# the order from the lane index) or another warp's (shared memory between barriers); a top k halves
# with max, then merges again.
#
# RUN: kiln compile %s --kernel sort_rows --signature "*fp32:16, *fp32:16, 8, 64, 0" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=ROWS
# RUN: kiln compile %s --kernel sort_rows --signature "*i32:16, *i32:16, 1, 512, 1" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=WARPS
# RUN: kiln compile %s --kernel topk_rows --signature "*fp16:16, *fp32:16, 16, 64, 4" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=TOPK

# [8, 64] f32 ascending over 4 warps: 4 consecutive elements per thread (axis bits 0-1 in registers), 16
# lanes (bits 2-5). A register pair's places are known: the lower one takes y where x > y, the upper one
# where x <= y. From stage 2 the order alternates with axis bit 2 (lane bit 0) as a predicate.
# ROWS:           ld.global.v4.f32 {[[X0:%f[0-9]+]], [[X1:%f[0-9]+]], [[X2:%f[0-9]+]], [[X3:%f[0-9]+]]}
# ROWS-NEXT:      // sort: compare-exchange on axis bit 0
# ROWS-NEXT:      setp.gt.f32 [[P0:%p[0-9]+]], [[X0]], [[X1]];
# ROWS-NEXT:      selp.f32 {{%f[0-9]+}}, [[X1]], [[X0]], [[P0]];
# ROWS-NEXT:      setp.gt.f32 [[P1:%p[0-9]+]], [[X1]], [[X0]];
# ROWS-NEXT:      selp.f32 {{%f[0-9]+}}, [[X1]], [[X0]], [[P1]];
# ROWS:           // sort: compare-exchange on axis bit 1
# ROWS-NEXT:      and.b32 [[L0:%r[0-9]+]], %r1, 1;
# ROWS-NEXT:      setp.ne.u32 [[FLIP:%p[0-9]+]], [[L0]], 0;
# ROWS-NEXT:      setp.gt.f32 [[G:%p[0-9]+]], [[A:%f[0-9]+]], [[B:%f[0-9]+]];
# ROWS-NEXT:      xor.pred [[T:%p[0-9]+]], [[G]], [[FLIP]];
# ROWS-NEXT:      selp.f32 {{%f[0-9]+}}, [[B]], [[A]], [[T]];
# ROWS:           not.pred [[UPPER:%p[0-9]+]], [[FLIP]];
# ROWS-NEXT:      setp.gt.f32 [[G2:%p[0-9]+]], [[B]], [[A]];
# ROWS-NEXT:      xor.pred {{%p[0-9]+}}, [[G2]], [[UPPER]];
# Lane bits: the partner by shfl.bfly; the last stage (axis bit 5, lane mask 8) in ascending order.
# ROWS:           // sort: compare-exchange on axis bit 2
# ROWS-NEXT:      shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, 0xFFFFFFFF;
# ROWS:           // sort: compare-exchange on axis bit 5
# ROWS-NEXT:      shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 8, 31, 0xFFFFFFFF;
# ROWS-NOT:       bar.sync
# ROWS:           st.global.v4.f32
# ROWS-NOT:       bar.sync
# ROWS:           ret;

# [1, 512] i32 descending over 4 warps: axis bits 7 and 8 are warp bits. Every thread stores its four
# elements at their offsets, and after a barrier loads those with the bit flipped (offset ^ 128 for bit
# 7); the next exchange through the same bytes waits for a barrier before its stores.
# WARPS:          // sort: compare-exchange on axis bit 7
# WARPS:          st.shared.b32 [[[ADDR:%r[0-9]+]]], {{%r[0-9]+}};
# WARPS-COUNT-3:  st.shared.b32 [[[ADDR]]+{{[0-9]+}}], {{%r[0-9]+}};
# WARPS-NEXT:     bar.sync 0;
# WARPS-NEXT:     xor.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 128;
# WARPS:          ld.shared.b32
# WARPS:          setp.gt.s32
# WARPS:          // sort: compare-exchange on axis bit 8
# WARPS:          bar.sync 0;
# WARPS-NEXT:     mov.u32 {{%r[0-9]+}}, smem;
# WARPS:          st.shared.b32
# WARPS:          bar.sync 0;
# WARPS-NEXT:     xor.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 256;
# WARPS:          ret;

# The top 4 of [16, 64] f16: the elements widen to f32 (tl.max's rule), stages 1-2 sort runs of 4, and
# each halving keeps the max of the partners 4 apart (register bit 2: one max per pair), then merges.
# TOPK:           cvt.f32.f16
# TOPK:           // sort: top-k halving on axis bit 2
# TOPK-NEXT:      max.f32 {{%f[0-9]+}}, [[LO:%f[0-9]+]], [[HI:%f[0-9]+]];
# TOPK-COUNT-3:   max.f32
# TOPK-NEXT:      // sort: compare-exchange on axis bit 1
# TOPK:           // sort: top-k halving on axis bit 3
# TOPK-NEXT:      shfl.sync.bfly.b32
# TOPK:           max.f32
# TOPK:           // sort: top-k halving on axis bit 5
# TOPK:           // sort: compare-exchange on axis bit 0
# TOPK-NOT:       halving
# TOPK:           st.global.f32
# TOPK:           ret;

import triton
import triton.language as tl


@triton.jit
def sort_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESCENDING))


@triton.jit
def topk_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(y_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))
