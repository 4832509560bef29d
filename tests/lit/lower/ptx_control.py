# Golden PTX of structured control flow (src/lower/lower_control.cpp): conditions are scalars, the
# same in every thread of a program, so every branch is bra.uni. `for` is guarded once and loops
# at the bottom (the step's overflow check folded into the exit test); `while` tests at the top;
# `if` jumps over the then-block to the else-block; region values move with mov at the edges.
#
# RUN: kiln compile %s --kernel loop_sum --signature "*fp32:16, *fp32:16, i32, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=FOR
# RUN: kiln compile %s --kernel loop_sum --signature "*fp32:16, *fp32:16, i32, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=UNI
# RUN: kiln compile %s --kernel collatz --signature "*i32, *i32, i32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=WHILE
# RUN: kiln compile %s --kernel collatz --signature "*i32, *i32, i32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=UNI
# RUN: kiln compile %s --kernel scale_if --signature "*fp32:16, *fp32:16, i32, 256" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=IF
# RUN: kiln compile %s --kernel scale_if --signature "*fp32:16, *fp32:16, i32, 256" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=UNI

# FOR:         mov.b32 [[I:%r[0-9]+]], %r{{[0-9]+}};
# FOR:         setp.lt.s32 [[ENTER:%p[0-9]+]], [[I]], %r0;
# FOR-NEXT:    @![[ENTER]] bra.uni [[END:\$L[0-9]+_for_end]];
# FOR-NEXT:  [[LOOP:\$L[0-9]+_for]]:
# FOR:         @%p{{[0-9]+}} ld.global.f32
# FOR:         add.rn.f32 [[ACC:%f[0-9]+]],
# FOR:         mov.f32 %f{{[0-9]+}}, [[ACC]];
# FOR:         add.s32 [[NEXT:%r[0-9]+]], [[I]], %r{{[0-9]+}};
# FOR-NEXT:    setp.lt.s32 [[MORE:%p[0-9]+]], [[NEXT]], %r0;
# FOR-NEXT:    setp.gt.and.s32 [[AGAIN:%p[0-9]+]], [[NEXT]], [[I]], [[MORE]];
# FOR-NEXT:    mov.b32 [[I]], [[NEXT]];
# FOR-NEXT:    @[[AGAIN]] bra.uni [[LOOP]];
# FOR-NEXT:  [[END]]:
# FOR:         st.global.v2.f32 [%rd{{[0-9]+}}], {%f1, %f2};

# WHILE:     [[TOP:\$L[0-9]+_while]]:
# WHILE-NEXT:  setp.ne.s32 [[C:%p[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
# WHILE-NEXT:  @![[C]] bra.uni [[EXIT:\$L[0-9]+_while_end]];
# WHILE:       rem.s32
# WHILE:       @!%p{{[0-9]+}} bra.uni [[ELSE:\$L[0-9]+_else]];
# WHILE:       div.s32
# WHILE:       bra.uni [[ENDIF:\$L[0-9]+_endif]];
# WHILE-NEXT: [[ELSE]]:
# WHILE:       mul.lo.s32
# WHILE:     [[ENDIF]]:
# WHILE:       bra.uni [[TOP]];
# WHILE-NEXT: [[EXIT]]:
# WHILE:       st.global.b32

# IF:          setp.gt.s32 [[FLAG:%p[0-9]+]], %r0, %r{{[0-9]+}};
# IF-NEXT:     @![[FLAG]] bra.uni [[ELSE:\$L[0-9]+_else]];
# IF:          mul.rn.f32
# IF:          bra.uni [[JOIN:\$L[0-9]+_endif]];
# IF-NEXT:   [[ELSE]]:
# IF:          sub.rn.f32
# IF:        [[JOIN]]:
# IF:          st.global.v2.f32

# No divergent branch anywhere (the RUN lines with UNI check the whole output).
# UNI:         .entry
# UNI-NOT:     {{bra }}
import triton
import triton.language as tl


@triton.jit
def loop_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + offs, mask=start + offs < n, other=0.0)
    tl.store(out_ptr + offs, acc)


@triton.jit
def collatz(start_ptr, steps_ptr, n):
    i = tl.program_id(0)
    x = tl.load(start_ptr + i)
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    tl.store(steps_ptr + i, steps)


@triton.jit
def scale_if(x_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if flag > 0:
        x = x * 2.0
    else:
        x = x - 1.0
    tl.store(out_ptr + offs, x)
