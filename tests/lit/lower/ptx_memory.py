# Golden PTX of global loads and stores (src/lower/lower_memory.cpp, src/ptx/memory.cpp): 16-byte
# vectors where axis info proves contiguity and alignment, one predicate per vector from the mask,
# scalar accesses otherwise, `other` written before the predicated load, cache and eviction hints.
#
# RUN: kiln compile %s --kernel add --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=VEC
# RUN: kiln compile %s --kernel add --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOLOCAL
# RUN: kiln compile %s --kernel add --signature "*fp32, *fp32, *fp32, i32, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SCALAR
# RUN: kiln compile %s --kernel add --signature "*fp32, *fp32, *fp32, i32, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOVEC
# RUN: kiln compile %s --kernel add --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, 1024" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=HALF
# RUN: kiln compile %s --kernel load_other --signature "*fp32:16, *fp32:16, i32:16, 512" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=OTHER
# RUN: kiln compile %s --kernel hints --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=HINTS

# 1024 aligned f32 over 128 threads, n a multiple of 16: two 16-byte vectors per thread and operand,
# each under the one predicate of its four elements; no local memory (no spills), no shared memory.
# VEC:       .visible .entry add(
# VEC-NEXT:      .param .u64 .ptr .global .align 16 add_x_ptr,
# VEC:       .maxntid 128, 1, 1
# VEC:           setp.lt.s32 [[P0:%p[0-9]+]], %r{{[0-9]+}}, %r0;
# VEC:           mad.wide.s32 [[X0:%rd[0-9]+]], %r{{[0-9]+}}, 4, %rd0;
# VEC-NEXT:      mov.f32 [[A0:%f[0-9]+]], 0f00000000;
# VEC-NEXT:      mov.f32 [[A1:%f[0-9]+]], 0f00000000;
# VEC-NEXT:      mov.f32 [[A2:%f[0-9]+]], 0f00000000;
# VEC-NEXT:      mov.f32 [[A3:%f[0-9]+]], 0f00000000;
# VEC-NEXT:      @[[P0]] ld.global.v4.f32 {[[A0]], [[A1]], [[A2]], [[A3]]}, {{\[}}[[X0]]];
# VEC:           @[[P4:%p[0-9]+]] ld.global.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}];
# VEC:           add.rn.f32 [[S0:%f[0-9]+]], [[A0]], %f{{[0-9]+}};
# VEC:           @[[P0]] st.global.v4.f32 [%rd{{[0-9]+}}], {[[S0]], %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}};
# VEC-NEXT:      mad.wide.s32
# VEC-NEXT:      @[[P4]] st.global.v4.f32
# VEC-NEXT:      ret;
# NOLOCAL-NOT:   .local
# NOLOCAL-NOT:   smem
# NOLOCAL-NOT:   ld.global.f32

# Without the :16 promises nothing is known about alignment: one scalar access per element, each
# with its own predicate.
# SCALAR:        .param .u64 .ptr .global add_x_ptr,
# SCALAR:        @[[P0:%p[0-9]+]] ld.global.f32 %f0, [%rd{{[0-9]+}}];
# SCALAR-NEXT:   mad.wide.s32
# SCALAR-NEXT:   mov.f32 %f1, 0f00000000;
# SCALAR-NEXT:   @[[P1:%p[0-9]+]] ld.global.f32 %f1, [%rd{{[0-9]+}}];
# SCALAR:        @[[P0]] st.global.f32 [%rd{{[0-9]+}}], %f{{[0-9]+}};
# NOVEC-NOT:     .v2
# NOVEC-NOT:     .v4

# f16: eight halves per thread travel as one .v4.b32 access (ptxas 13.0 crashes on .v8.b16).
# HALF:          .target sm_90a
# HALF:          ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
# HALF:          mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, %r{{[0-9]+}};
# HALF:          add.rn.f16
# HALF:          mov.b32 %r{{[0-9]+}}, {%h{{[0-9]+}}, %h{{[0-9]+}}};
# HALF:          st.global.v4.b32

# `other` is written into the destination registers first; the load is predicated over it.
# OTHER:         mov.f32 [[OTHER:%f[0-9]+]], 0fBFC00000;
# OTHER:         mov.f32 [[D0:%f[0-9]+]], [[OTHER]];
# OTHER-NEXT:    mov.f32 [[D1:%f[0-9]+]], [[OTHER]];
# OTHER-NEXT:    mov.f32 [[D2:%f[0-9]+]], [[OTHER]];
# OTHER-NEXT:    mov.f32 [[D3:%f[0-9]+]], [[OTHER]];
# OTHER-NEXT:    @%p{{[0-9]+}} ld.global.v4.f32 {[[D0]], [[D1]], [[D2]], [[D3]]}, [%rd{{[0-9]+}}];

# eviction_policy alone: an L1 eviction priority; cache_modifier alone: the cache operator; both:
# the operator plus an L2 policy (PTX rejects an operator together with an L1 priority).
# HINTS:         ld.global.L1::evict_last.v4.f32
# HINTS:         ld.global.cg.v4.f32
# HINTS:         createpolicy.fractional.L2::evict_first.b64 [[POL:%rd[0-9]+]], 1.0;
# HINTS-COUNT-4: mov.f32 %f{{[0-9]+}}, 0f00000000;
# HINTS-NEXT:    @%p{{[0-9]+}} ld.global.ca.L2::cache_hint.v4.f32 {{.*}}, [%rd{{[0-9]+}}], [[POL]];
# HINTS:         st.global.cs.v4.f32
# HINTS-NOT:     ld.global.v4.f32
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def load_other(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.5)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def hints(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, eviction_policy="evict_last")
    y = tl.load(y_ptr + offs, mask=mask, cache_modifier=".cg")
    z = tl.load(y_ptr + offs + n, mask=mask, cache_modifier=".ca", eviction_policy="evict_first")
    tl.store(out_ptr + offs, x + y + z, mask=mask, cache_modifier=".cs")
