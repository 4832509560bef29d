# Golden PTX of reductions (src/lower/lower_reduce.cpp): registers of a thread first, then a
# butterfly of shfl.sync.bfly over the lanes, then across warps through shared memory between two
# bar.sync; argmax carries (order key, index) pairs and prefers the smaller index on ties.
#
# RUN: kiln compile %s --kernel total --signature "*fp32:16, *fp32, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SUM
# RUN: kiln compile %s --kernel total --signature "*fp32:16, *fp32, 1024" --emit ptx --arch sm_80 --num-warps 1 | FileCheck %s --check-prefix=WARP1
# RUN: kiln compile %s --kernel sum_of_squares --signature "*fp32:16, *fp32, 512" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SQUARES
# RUN: kiln compile %s --kernel sum_of_squares --signature "*fp32:16, *fp32, 512" --emit ptx --arch sm_80 --no-fp-fusion | FileCheck %s --check-prefix=NOFUSE
# RUN: kiln compile %s --kernel index_of_max --signature "*fp32:16, *i32, 1024" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=ARGMAX

# 1024 elements over 4 warps: eight registers per thread added pairwise, five shuffles (xor 1, 2, 4,
# 8, 16 over the whole warp: c = 31), one partial per warp in shared memory, read back by all.
# SUM:       .extern .shared .align 16 .b8 smem[];
# SUM:           ld.global.v4.f32 {[[X0:%f[0-9]+]], [[X1:%f[0-9]+]], %f{{[0-9]+}}, %f{{[0-9]+}}}
# SUM:           ld.global.v4.f32
# SUM-NEXT:      add.rn.f32 %f{{[0-9]+}}, [[X0]], [[X1]];
# SUM-COUNT-6:   add.rn.f32
# SUM-NEXT:      shfl.sync.bfly.b32 [[S1:%f[0-9]+]], [[T:%f[0-9]+]], 1, 31, 0xFFFFFFFF;
# SUM-NEXT:      add.rn.f32 [[T1:%f[0-9]+]], [[T]], [[S1]];
# SUM-NEXT:      shfl.sync.bfly.b32 [[S2:%f[0-9]+]], [[T1]], 2, 31, 0xFFFFFFFF;
# SUM-NEXT:      add.rn.f32 [[T2:%f[0-9]+]], [[T1]], [[S2]];
# SUM-NEXT:      shfl.sync.bfly.b32 [[S4:%f[0-9]+]], [[T2]], 4, 31, 0xFFFFFFFF;
# SUM-NEXT:      add.rn.f32 [[T4:%f[0-9]+]], [[T2]], [[S4]];
# SUM-NEXT:      shfl.sync.bfly.b32 [[S8:%f[0-9]+]], [[T4]], 8, 31, 0xFFFFFFFF;
# SUM-NEXT:      add.rn.f32 [[T8:%f[0-9]+]], [[T4]], [[S8]];
# SUM-NEXT:      shfl.sync.bfly.b32 [[S16:%f[0-9]+]], [[T8]], 16, 31, 0xFFFFFFFF;
# SUM-NEXT:      add.rn.f32 [[WARP:%f[0-9]+]], [[T8]], [[S16]];
# SUM:           mov.u32 [[BASE:%r[0-9]+]], smem;
# SUM-NEXT:      // reduce across warps through shared memory
# SUM:           st.shared.f32 [%r{{[0-9]+}}], [[WARP]];
# SUM-NEXT:      bar.sync 0;
# SUM-NEXT:      mad.lo.u32 [[AT:%r[0-9]+]], %r{{[0-9]+}}, 4, [[BASE]];
# SUM-NEXT:      ld.shared.f32 [[W0:%f[0-9]+]], {{\[}}[[AT]]];
# SUM-NEXT:      ld.shared.f32 [[W1:%f[0-9]+]], {{\[}}[[AT]]+4];
# SUM-NEXT:      ld.shared.f32 [[W2:%f[0-9]+]], {{\[}}[[AT]]+8];
# SUM-NEXT:      ld.shared.f32 [[W3:%f[0-9]+]], {{\[}}[[AT]]+12];
# SUM-NEXT:      add.rn.f32 [[W01:%f[0-9]+]], [[W0]], [[W1]];
# SUM-NEXT:      add.rn.f32 [[W23:%f[0-9]+]], [[W2]], [[W3]];
# SUM-NEXT:      add.rn.f32 [[ALL:%f[0-9]+]], [[W01]], [[W23]];
# No barrier after the read: only a later write to those bytes would need one (nothing follows here);
# one thread stores the scalar.
# SUM-NEXT:      setp.eq.u32 [[FIRST:%p[0-9]+]], %r0, 0;
# SUM-NEXT:      @[[FIRST]] st.global.f32 [%rd1], [[ALL]];

# A sum of products (fp fusion on): a thread's four squares chain through fmas in order, the first
# square the start (its three siblings' muls are dead for ptxas), then the shuffles as above.
# SQUARES:       ld.global.v4.f32 {[[X0:%f[0-9]+]], [[X1:%f[0-9]+]], [[X2:%f[0-9]+]], [[X3:%f[0-9]+]]}
# SQUARES:       mul.rn.f32 [[Q0:%f[0-9]+]], [[X0]], [[X0]];
# SQUARES:       fma.rn.f32 [[S1:%f[0-9]+]], [[X1]], [[X1]], [[Q0]];
# SQUARES-NEXT:  fma.rn.f32 [[S2:%f[0-9]+]], [[X2]], [[X2]], [[S1]];
# SQUARES-NEXT:  fma.rn.f32 [[S3:%f[0-9]+]], [[X3]], [[X3]], [[S2]];
# SQUARES-NEXT:  shfl.sync.bfly.b32 %f{{[0-9]+}}, [[S3]], 1, 31, 0xFFFFFFFF;
# Without fp fusion the squares round and add pairwise.
# NOFUSE-NOT:    fma
# NOFUSE-COUNT-4: mul.rn.f32
# NOFUSE-COUNT-3: add.rn.f32
# NOFUSE-NEXT:   shfl.sync.bfly.b32

# One warp: the shuffles finish the job, no shared memory and no barrier.
# WARP1:     .maxntid 32, 1, 1
# WARP1-COUNT-5: shfl.sync.bfly.b32
# WARP1-NOT: bar.sync
# WARP1-NOT: .shared

# argmax: floats become signed-order keys (negative floats' magnitude bits flipped, NaN the
# largest), then key and index move together through each shuffle; greater key, or equal key and
# smaller index, wins.
# ARGMAX:        mov.b32 [[B:%r[0-9]+]], %f0;
# ARGMAX-NEXT:   shr.s32 [[SGN:%r[0-9]+]], [[B]], 31;
# ARGMAX-NEXT:   and.b32 [[SGN]], [[SGN]], 0x7FFFFFFF;
# ARGMAX-NEXT:   xor.b32 %r{{[0-9]+}}, [[B]], [[SGN]];
# ARGMAX-NEXT:   setp.nan.f32
# ARGMAX-NEXT:   selp.b32 %r{{[0-9]+}}, 0x80000000,
# ARGMAX:        shfl.sync.bfly.b32 [[K:%r[0-9]+]], [[KEY:%r[0-9]+]], 1, 31, 0xFFFFFFFF;
# ARGMAX-NEXT:   shfl.sync.bfly.b32 [[I:%r[0-9]+]], [[IDX:%r[0-9]+]], 1, 31, 0xFFFFFFFF;
# ARGMAX-NEXT:   setp.gt.s32 [[GT:%p[0-9]+]], [[K]], [[KEY]];
# ARGMAX-NEXT:   setp.eq.s32 [[EQ:%p[0-9]+]], [[K]], [[KEY]];
# ARGMAX-NEXT:   setp.lt.s32 [[LT:%p[0-9]+]], [[I]], [[IDX]];
# ARGMAX-NEXT:   and.pred [[TIE:%p[0-9]+]], [[EQ]], [[LT]];
# ARGMAX-NEXT:   or.pred [[WIN:%p[0-9]+]], [[GT]], [[TIE]];
# ARGMAX-NEXT:   selp.b32 %r{{[0-9]+}}, [[K]], [[KEY]], [[WIN]];
# ARGMAX-NEXT:   selp.b32 %r{{[0-9]+}}, [[I]], [[IDX]], [[WIN]];
# ARGMAX-COUNT-8: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, {{2|4|8|16}}, 31, 0xFFFFFFFF;
# ARGMAX:        // reduce across warps through shared memory
# ARGMAX:        st.shared.b32
# ARGMAX:        st.shared.b32
# ARGMAX-NEXT:   bar.sync 0;
# ARGMAX-COUNT-8: ld.shared.b32
# ARGMAX-NOT:    bar.sync
# ARGMAX:        st.global.b32 [%rd1], %r{{[0-9]+}};
import triton
import triton.language as tl


@triton.jit
def total(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.sum(x, axis=0))


@triton.jit
def sum_of_squares(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.sum(x * x, axis=0))


@triton.jit
def index_of_max(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.argmax(x, axis=0))
