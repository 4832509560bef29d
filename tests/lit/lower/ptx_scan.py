# Golden PTX of scans and reductions with a combine function (src/lower/lower_scan.cpp,
# lower_reduce_combine.cpp): each thread combines its registers in order, lanes run a Hillis-Steele scan
# with shfl.sync.up (down when reversed) and take the previous lane's prefix, warps exchange their totals
# through shared memory (stored by the last lane along the axis only) between a barrier and the reads;
# an ordered reduction pairs lanes by butterfly shuffles of every tuple component.
#
# RUN: kiln compile %s --kernel cumsum_rows --signature "*fp32:16, *fp32:16, 4, 256, 1" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SCAN
# RUN: kiln compile %s --kernel cumsum_rows --signature "*fp32:16, *fp32:16, 256, 4, 0" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=REVERSE
# RUN: kiln compile %s --kernel argmax_last --signature "*fp32:16, *i32, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=ARGMAX
# RUN: kiln compile %s --kernel checked_cumsum --signature "*i32:16, *i32:16, 512" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=ASSERT

# [4, 256] along dim 1 over 4 warps: 4 consecutive elements per thread scanned in registers, then 32
# lanes and 2 warps along the row.
# SCAN:           ld.global.v4.f32 {[[X0:%f[0-9]+]], [[X1:%f[0-9]+]], [[X2:%f[0-9]+]], [[X3:%f[0-9]+]]}
# SCAN:           add.rn.f32 [[C1:%f[0-9]+]], [[X0]], [[X1]];
# SCAN-NEXT:      add.rn.f32 [[C2:%f[0-9]+]], [[C1]], [[X2]];
# SCAN-NEXT:      add.rn.f32 [[C3:%f[0-9]+]], [[C2]], [[X3]];
# SCAN:           // scan across lanes
# SCAN-NEXT:      bfe.u32 [[POS:%r[0-9]+]], %r1, 0, 5;
# SCAN-NEXT:      setp.ge.u32 [[HAS:%p[0-9]+]], [[POS]], 1;
# SCAN-NEXT:      setp.eq.u32 [[LAST:%p[0-9]+]], [[POS]], 31;
# SCAN:           shfl.sync.up.b32 [[U1:%f[0-9]+]], [[C3]], 1, 0, 0xFFFFFFFF;
# SCAN-NEXT:      add.rn.f32 [[S1:%f[0-9]+]], [[U1]], [[C3]];
# SCAN-NEXT:      selp.f32 [[V1:%f[0-9]+]], [[S1]], [[C3]], [[HAS]];
# SCAN-NEXT:      shfl.sync.up.b32 {{%f[0-9]+}}, [[V1]], 2, 0, 0xFFFFFFFF;
# SCAN:           shfl.sync.up.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 4, 0, 0xFFFFFFFF;
# SCAN:           shfl.sync.up.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 8, 0, 0xFFFFFFFF;
# SCAN:           shfl.sync.up.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 16, 0, 0xFFFFFFFF;
# SCAN-NEXT:      add.rn.f32
# SCAN-NEXT:      selp.f32 [[WARP:%f[0-9]+]],
# The previous lane's inclusive prefix, combined into each of the thread's four elements.
# SCAN-NEXT:      shfl.sync.up.b32 [[BEFORE:%f[0-9]+]], [[WARP]], 1, 0, 0xFFFFFFFF;
# SCAN-NEXT:      add.rn.f32 [[P0:%f[0-9]+]], [[BEFORE]], [[X0]];
# SCAN-NEXT:      selp.f32 {{%f[0-9]+}}, [[P0]], [[X0]], [[HAS]];
# SCAN:           // combine across warps through shared memory
# SCAN:           @[[LAST]] st.shared.f32 [{{%r[0-9]+}}], [[WARP]];
# SCAN:           bar.sync 0;
# SCAN-NEXT:      mad.lo.u32
# SCAN-NEXT:      ld.shared.f32 [[W0:%f[0-9]+]]
# SCAN:           setp.ge.u32 [[LATER:%p[0-9]+]], {{%r[0-9]+}}, 1;
# SCAN-NEXT:      add.rn.f32 {{%f[0-9]+}}, [[W0]],
# SCAN-NOT:       bar.sync
# SCAN:           st.global.v4.f32
# SCAN:           ret;

# [256, 4] along dim 0, reversed: lanes run along the column, shuffles come from later lanes.
# REVERSE:        // scan across lanes
# REVERSE:        bfe.u32 [[POS:%r[0-9]+]], %r1, 0, 5;
# REVERSE-NEXT:   xor.b32 [[MIRROR:%r[0-9]+]], [[POS]], 31;
# REVERSE:        shfl.sync.down.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, 0xFFFFFFFF;
# REVERSE:        shfl.sync.down.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 16, 31, 0xFFFFFFFF;
# REVERSE-NOT:    shfl.sync.up
# REVERSE:        bar.sync 0;
# REVERSE:        ret;

# 1024 elements over 4 warps, 8 per thread in two blocks of 4 (the layout's repeat): (value, index)
# pairs, each block's pair exchanged by butterflies of both components, lower lane first.
# ARGMAX:         bfe.u32 [[BIT:%r[0-9]+]], %r1, 0, 1;
# ARGMAX-NEXT:    setp.ne.u32 [[UPPER:%p[0-9]+]], [[BIT]], 0;
# ARGMAX-NEXT:    shfl.sync.bfly.b32 [[OV:%f[0-9]+]], [[V:%f[0-9]+]], 1, 31, 0xFFFFFFFF;
# ARGMAX-NEXT:    shfl.sync.bfly.b32 [[OI:%r[0-9]+]], [[I:%r[0-9]+]], 1, 31, 0xFFFFFFFF;
# ARGMAX-NEXT:    selp.f32 {{%f[0-9]+}}, [[OV]], [[V]], [[UPPER]];
# ARGMAX-NEXT:    selp.b32 {{%r[0-9]+}}, [[OI]], [[I]], [[UPPER]];
# ARGMAX-NEXT:    selp.f32 {{%f[0-9]+}}, [[V]], [[OV]], [[UPPER]];
# ARGMAX-NEXT:    selp.b32 {{%r[0-9]+}}, [[I]], [[OI]], [[UPPER]];
# ARGMAX-NEXT:    setp.gt.f32
# ARGMAX:         shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 16, 31, 0xFFFFFFFF;
# ARGMAX-NOT:     shfl.sync.up
# ARGMAX:         // combine across warps through shared memory
# ARGMAX:         st.shared.f32
# ARGMAX:         st.shared.b32
# ARGMAX:         bar.sync 0;
# ARGMAX-COUNT-8: ld.shared.f32
# ARGMAX:         ret;

# An assert in the combine function: where a Hillis-Steele step is discarded (the lane has no partner
# that far back) its condition is or-ed with "discarded", so only real steps trap.
# ASSERT:         // scan across lanes
# ASSERT:         bfe.u32 [[POS:%r[0-9]+]], %r1, 0, 5;
# ASSERT-NEXT:    setp.ge.u32 [[HAS:%p[0-9]+]], [[POS]], 1;
# ASSERT:         shfl.sync.up.b32
# ASSERT:         not.pred [[SKIP:%p[0-9]+]], [[HAS]];
# ASSERT-NEXT:    or.pred [[HOLDS:%p[0-9]+]], {{%p[0-9]+}}, [[SKIP]];
# ASSERT-NEXT:    @![[HOLDS]] trap;

import triton
import triton.language as tl


@triton.jit
def _later_max(v1, i1, v2, i2):
    gt = v1 > v2
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


@triton.jit
def cumsum_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.cumsum(x, axis=AXIS, reverse=AXIS == 0))


@triton.jit
def argmax_last(x_ptr, i_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    v, i = tl.reduce((x, tl.arange(0, N)), 0, _later_max)
    tl.store(i_ptr, i)


@triton.jit
def _checked_add(a, b):
    tl.device_assert(a + b < 1000000, "partial sum too large")
    return a + b


@triton.jit
def checked_cumsum(x_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, N), tl.associative_scan(x, 0, _checked_add))
