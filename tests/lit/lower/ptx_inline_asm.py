# Golden PTX of tl.inline_asm_elementwise (src/lower/lower_asm.cpp): the user's text in a { } scope per
# asm invocation with $N replaced by registers (outputs first), bytes packed with prmt and unpacked with
# bfe, f32 values in "r" registers moved as bits, pointers in "l" registers, several results at once.
#
# RUN: kiln compile %s --kernel shift --signature "*i32:16, *i32:16, *i32:16, 8, 128" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SHIFT
# RUN: kiln compile %s --kernel packed --signature "*u8:16, *i8:16, 512" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=PACKED
# RUN: kiln compile %s --kernel with_pointers --signature "*u8:16, *i8:16, 128" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=POINTERS
# RUN: kiln compile %s --kernel two_outputs --signature "*u32:16, *u32:16, *u32:16, *u32:16, 64" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=TWO
# RUN: kiln compile %s --kernel packed_two_outputs --signature "*i8:16, *fp32:16, *fp32:16, *i32:16, *fp32:16, 512" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=PACKTWO
# RUN: kiln compile %s --kernel halves --signature "*fp16:16, *fp16:16, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=HALVES
# RUN: kiln compile %s --kernel scalar_asm --signature "*i32:16, i32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SCALAR
# RUN: kiln compile %s --kernel dollar_label --signature "*i32:16, i32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=DOLLAR

# pack=1: one invocation per element, $0 the output register, $1..$3 the inputs as they are held.
# SHIFT:       // inline asm
# SHIFT-NEXT:  {
# SHIFT-NEXT:  shf.l.wrap.b32 [[Z:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
# SHIFT-NEXT:  }
# SHIFT:       st.global
# SHIFT:       ret;

# pack=4 of u8 -> i8: four bytes into one register (prmt), the result's bytes out with bfe.s32 (signed).
# PACKED:      prmt.b32 [[LO:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x40;
# PACKED-NEXT: prmt.b32 [[HI:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x40;
# PACKED-NEXT: prmt.b32 [[IN:%r[0-9]+]], [[LO]], [[HI]], 0x5410;
# PACKED-NEXT: // inline asm
# PACKED-NEXT: {
# PACKED-NEXT: and.b32 [[OUT:%r[0-9]+]], [[IN]], 0x1F1F1F1F; shl.b32 [[OUT]], [[OUT]], 3;
# PACKED-NEXT: }
# PACKED-NEXT: bfe.s32 {{%r[0-9]+}}, [[OUT]], 0, 8;
# PACKED-NEXT: bfe.s32 {{%r[0-9]+}}, [[OUT]], 8, 8;
# PACKED-NEXT: bfe.s32 {{%r[0-9]+}}, [[OUT]], 16, 8;
# PACKED-NEXT: bfe.s32 {{%r[0-9]+}}, [[OUT]], 24, 8;

# Pointers travel in .b64 registers; the unused i8 result is still computed (the asm is not pure).
# POINTERS:      // inline asm
# POINTERS-NEXT: {
# POINTERS-NEXT: ld.global.b8 [[V:%r[0-9]+]], [{{%rd[0-9]+}}]; shl.b32 [[V]], [[V]], 3; st.global.b8 [{{%rd[0-9]+}}], [[V]];
# POINTERS-NEXT: }
# POINTERS-NEXT: cvt.s32.s8

# Two outputs: $0 and $1, then the inputs $2 and $3.
# TWO:      // inline asm
# TWO-NEXT: {
# TWO-NEXT: {
# TWO-NEXT: sub.u32 [[C:%r[0-9]+]], [[A:%r[0-9]+]], [[B:%r[0-9]+]];
# TWO-NEXT: sub.u32 [[D:%r[0-9]+]], [[B]], [[A]];
# TWO-NEXT: }
# TWO-NEXT: }

# pack=4 with two 32-bit results: 8 outputs, one packed i8 register, four f32 registers each of b and c
# (moved as bits into .b32), the f32 outputs moved back.
# PACKTWO:      // inline asm
# PACKTWO-NEXT: {
# PACKTWO-NEXT: {
# PACKTWO-NEXT: .reg .b8 tmp<4>;
# PACKTWO-NEXT: mov.b32 {tmp0, tmp1, tmp2, tmp3}, [[AI:%r[0-9]+]];
# PACKTWO:      sub.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
# PACKTWO:      }
# PACKTWO-NEXT: mov.b32 {{%f[0-9]+}}, {{%r[0-9]+}};

# f16 pairs in one "r" register: mov.b32 {lo, hi} both ways.
# HALVES:      mov.b32 [[P:%r[0-9]+]], {{[{]}}{{%h[0-9]+}}, {{%h[0-9]+}}{{[}]}};
# HALVES-NEXT: // inline asm
# HALVES-NEXT: {
# HALVES-NEXT: add.rn.f16x2 [[Q:%r[0-9]+]], [[P]], [[P]];
# HALVES-NEXT: }
# HALVES-NEXT: mov.b32 {{[{]}}{{%h[0-9]+}}, {{%h[0-9]+}}{{[}]}}, [[Q]];

# A scalar argument: one invocation, the result a scalar.
# SCALAR:      // inline asm
# SCALAR-NEXT: {
# SCALAR-NEXT: mul.lo.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 3;
# SCALAR-NEXT: }

# "$$" is a literal "$" (a label of the asm's own).
# DOLLAR:      @p bra $Lskip; mov.b32 {{%r[0-9]+}}, 2; $Lskip: }

import triton
import triton.language as tl


@triton.jit
def shift(X, Y, Z, n: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    s = tl.full([BLOCK], n, tl.int32)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(Z + tl.arange(0, BLOCK), z)


@triton.jit
def packed(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; \
                                   shl.b32 $0, $0, 3;", "=r,r", [x], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(Y + tl.arange(0, BLOCK), y)


@triton.jit
def with_pointers(X, Y, BLOCK: tl.constexpr):
    x_ptrs = X + tl.arange(0, BLOCK)
    y_ptrs = Y + tl.arange(0, BLOCK)
    tl.inline_asm_elementwise("ld.global.b8 $0, [$1]; \
                               shl.b32 $0, $0, 3; \
                               st.global.b8 [$2], $0;", "=r,l,l", [x_ptrs, y_ptrs], dtype=tl.int8,
                              is_pure=False, pack=1)


@triton.jit
def two_outputs(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            sub.u32 $0, $2, $3;
            sub.u32 $1, $3, $2;
        }
        """,
        constraints="=r,=r,r,r",
        args=[a, b],
        dtype=(tl.uint32, tl.uint32),
        is_pure=False,
        pack=1,
    )
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


@triton.jit
def packed_two_outputs(A, B, C, D, E, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    c = tl.load(C + tl.arange(0, BLOCK))
    (d, e) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        sub.f32 $4, $9, $13;
        sub.f32 $5, $10, $14;
        sub.f32 $6, $11, $15;
        sub.f32 $7, $12, $16;
        """,
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r,r,r,r,r",
        args=[a, b, c],
        dtype=(tl.int32, tl.float32),
        is_pure=False,
        pack=4,
    )
    tl.store(D + tl.arange(0, BLOCK), d)
    tl.store(E + tl.arange(0, BLOCK), e)


@triton.jit
def halves(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(Y + tl.arange(0, BLOCK), y)


@triton.jit
def scalar_asm(Y, n):
    y = tl.inline_asm_elementwise("mul.lo.u32 $0, $1, 3;", "=r,r", [n], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Y, y)


@triton.jit
def dollar_label(Y, n):
    y = tl.inline_asm_elementwise("{ .reg .pred p; setp.eq.s32 p, $1, 0; mov.b32 $0, 1; @p bra $$Lskip; mov.b32 $0, 2; $$Lskip: }",
                                  "=r,r", [n], dtype=tl.int32, is_pure=False, pack=1)
    tl.store(Y, y)
