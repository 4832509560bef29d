# Golden PTX of tl.dot (src/lower/lower_dot.cpp, src/ptx/warp.cpp): operands staged through shared
# memory and read with ldmatrix (B transposed), mma.sync.aligned of the shape the dtype takes
# (m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 int8), or plain fma for input_precision="ieee".
# A 64x64x32 dot over 4 warps is 2x4 mma tiles per warp and K/k steps.
#
# RUN: kiln compile %s --kernel tile_dot --signature "*fp16:16, *fp16:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=F16
# RUN: kiln compile %s --kernel tile_dot --signature "*fp16:16, *fp16:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOFMA
# RUN: kiln compile %s --kernel tile_dot --signature "*bf16:16, *bf16:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=BF16
# RUN: kiln compile %s --kernel tile_dot --signature "*bf16:16, *bf16:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=WGMMA
# RUN: kiln compile %s --kernel tile_dot --signature "*bf16:16, *bf16:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOFMA
# RUN: kiln compile %s --kernel tile_dot --signature "*fp32:16, *fp32:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=TF32
# RUN: kiln compile %s --kernel tile_dot --signature "*fp32:16, *fp32:16, *fp32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOFMA
# RUN: kiln compile %s --kernel tile_dot --signature "*i8:16, *i8:16, *i32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=I8
# RUN: kiln compile %s --kernel tile_dot --signature "*i8:16, *i8:16, *i32:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOFMA
# RUN: kiln compile %s --kernel tile_dot --signature "*fp16:16, *fp16:16, *fp16:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=F16OUT
# RUN: kiln compile %s --kernel tile_dot_ieee --signature "*fp32:16, *fp32:16, *fp32:16, 16, 16, 16" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=FMA
# RUN: kiln compile %s --kernel tile_dot_f16acc --signature "*fp16:16, *fp16:16, *fp16:16, 64, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=F16ACC
# RUN: kiln compile %s --kernel tile_dot --signature "*fp16:16, *fp16:16, *fp32:16, 8, 8, 8" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=SMALL
# RUN: kiln compile %s --kernel tile_dot_f16acc --signature "*fp16:16, *fp16:16, *fp16:16, 2, 4, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SMALLF16

# f16: A and B stored to shared memory as 16-byte vectors; A read by ldmatrix, B by ldmatrix .trans
# (B is k-major in registers, mma wants it n-major); barriers around each staging.
# F16:         .extern .shared .align 16 .b8 smem[];
# F16:         // convert_layout through shared memory
# F16:         st.shared.v4.b32
# F16:         bar.sync 0;
# F16-NOT:     ld.shared
# F16:         ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{[0-9]+}}];
# F16-COUNT-3: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# F16-NOT:     ld.shared
# F16:         bar.sync 0;
# F16:         // convert_layout through shared memory
# F16:         bar.sync 0;
# F16-NOT:     ld.shared
# F16-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# F16-NOT:     ld.shared
# F16:         bar.sync 0;
# split_mma made the dot one mma op per k-slice: 2x4 tiles each, 16 mma.sync in all.
# F16:         // dot: mma.sync 2x4x1 tiles
# F16-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}};
# F16-NOT:     mma.sync
# F16:         st.global.v4.f32

# BF16:        .target sm_80
# BF16:        ldmatrix.sync.aligned.m8n8.x4.shared.b16
# BF16:        ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# BF16-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# BF16-NOT:    mma.sync

# sm_90a: one warpgroup's wgmma m64n64k16 (lower_wgmma.cpp), A from registers, B stored to scratch in
# wgmma's 128-byte swizzled arrangement (N contiguous: the transposed form, last flag 1), fenced for the
# async proxy, one commit group waited for at once.
# WGMMA:       .extern .shared .align 1024 .b8 smem[];
# WGMMA:       fence.proxy.async.shared::cta;
# WGMMA-NEXT:  bar.sync 0;
# WGMMA:       // dot: wgmma m64n64k16, 1x1x2 per warpgroup
# WGMMA:       wgmma.fence.sync.aligned;
# WGMMA-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 1;
# WGMMA-NEXT:  wgmma.commit_group.sync.aligned;
# WGMMA-NEXT:  wgmma.wait_group.sync.aligned 0;
# WGMMA-NOT:   mma.sync

# f32 operands (default input_precision "tf32"): their bit patterns as they are (the tensor cores read
# them truncated to tf32, which is the dot's meaning), k = 8 per mma.
# TF32:        // dot: mma.sync 2x4x1 tiles
# TF32-NOT:    cvt.rna
# TF32-COUNT-32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}};
# TF32-NOT:    mma.sync

# int8: k = 32 per mma, s32 accumulators that wrap (no .satfinite).
# I8:          // dot: mma.sync 2x4x1 tiles
# I8-COUNT-8:  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
# I8-NOT:      mma.sync
# I8-NOT:      satfinite
# I8:          st.global.v4.b32

# The mma paths never fall back to scalar fma.
# NOFMA-NOT:   fma.rn.f32

# f16 output: f32 accumulators rounded once to f16 after the mma.
# F16OUT:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# F16OUT:      cvt.rn.f16.f32
# F16OUT:      st.global.v4.b32

# input_precision="ieee": exact f32 products, one fma per multiply-add and no tensor cores.
# FMA:         // dot: 4 x 16 fma
# FMA-NEXT:    fma.rn.f32
# FMA-COUNT-63: fma.rn.f32
# FMA-NOT:     mma.sync
# FMA-NOT:     cvt.rna.tf32
# out_dtype=float16 with an f16 accumulator: the mmas sum in f32 from zero, each sum is rounded once to
# f16 and the accumulator added in f16 afterwards (docs/semantics.md).
# F16ACC:      // dot: mma.sync 2x4x2 tiles
# F16ACC-NEXT: mov.f32 %f[[ZERO:[0-9]+]], 0f00000000;
# F16ACC:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%f[[ZERO]], %f[[ZERO]], %f[[ZERO]], %f[[ZERO]]};
# F16ACC-COUNT-15: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# F16ACC-NOT:  mma.sync
# F16ACC:      cvt.rn.f16.f32 %h[[SUM:[0-9]+]], %f{{[0-9]+}};
# F16ACC-NEXT: add.rn.f16 %h{{[0-9]+}}, %h[[SUM]], %h{{[0-9]+}};
# F16ACC-NOT:  fma.rn

# Below the mma tiles (M < 16, N < 8 or K below the instruction's K) the dot runs on fma, from f16
# operands widened to f32; an f16 accumulator sums in f32 there too.
# SMALL:       .target sm_90a
# SMALL:       // dot: {{[0-9]+}} x 8 fma
# SMALL-NOT:   mma.sync
# SMALL:       fma.rn.f32
# SMALLF16:    // dot: {{[0-9]+}} x 32 fma
# SMALLF16-NOT: mma.sync
# SMALLF16-NOT: fma.rn.f16
# SMALLF16:    fma.rn.f32
# SMALLF16:    cvt.rn.f16.f32 %h[[SUM:[0-9]+]], %f{{[0-9]+}};
# SMALLF16-NEXT: add.rn.f16 %h{{[0-9]+}}, %h[[SUM]], %h{{[0-9]+}};
import triton
import triton.language as tl


@triton.jit
def tile_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def tile_dot_ieee(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def tile_dot_f16acc(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    cp = c_ptr + rm[:, None] * N + rn[None, :]
    c = tl.dot(a, b, tl.load(cp), out_dtype=tl.float16)
    tl.store(cp, c)
