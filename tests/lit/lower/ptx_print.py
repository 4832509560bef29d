# Golden PTX of tl.device_print / print (src/lower/lower_print.cpp): vprintf declared once, the format
# (Triton's) as a global string, the program ids, the element's indices and the promoted value stored in
# a local buffer, one call per element this thread owns.
#
# RUN: kiln compile %s --kernel print_tile --signature "*i32:16, 128" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=TILE
# RUN: kiln compile %s --kernel print_scalar --signature "*fp16" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=SCALAR
# RUN: kiln compile %s --kernel print_no_arg --signature "" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOARG
# RUN: kiln compile %s --kernel print_two --signature "*i64:16, 4, 8" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=TWO
# RUN: kiln compile %s --kernel print_bcast --signature "16" --emit ptx --arch sm_80 --num-warps 4 | FileCheck %s --check-prefix=BCAST

# TILE:      .extern .func (.param .b32 func_retval0) vprintf
# The format "pid (%u, %u, %u) idx (%3u) x: %i\n" as bytes.
# TILE:      .global .align 1 .b8 print_tile_str0[34] = {112, 105, 100, 32, 40, 37, 117, 44, 32, 37, 117, 44, 32, 37, 117, 41, 32, 105, 100, 120, 32, 40, 37, 51, 117, 41, 32, 120, 58, 32, 37, 105, 10, 0};
# TILE:      .local .align 8 .b8 print_tile_printf_args[128];
# TILE:      // print
# TILE:      cvta.local.u64
# TILE:      mov.u32 {{%r[0-9]+}}, %ctaid.x;
# TILE:      st.local.b32 [print_tile_printf_args+12], {{%r[0-9]+}};
# TILE-NEXT: st.local.b32 [print_tile_printf_args+16], {{%r[0-9]+}};
# TILE-NEXT: {
# TILE-NEXT: .param .b64 param0;
# TILE-NEXT: st.param.b64 [param0], {{%rd[0-9]+}};
# TILE-NEXT: .param .b64 param1;
# TILE-NEXT: st.param.b64 [param1], {{%rd[0-9]+}};
# TILE-NEXT: .param .b32 retval0;
# TILE-NEXT: call (retval0), vprintf, (param0, param1);
# TILE-NEXT: }

# A scalar f16 is printed by every thread, as a double at offset 16.
# SCALAR:     cvt.f64.f16
# SCALAR:     st.local.f64 [print_scalar_printf_args+16], {{%fd[0-9]+}};
# SCALAR:     call (retval0), vprintf, (param0, param1);

# NOARG:      st.local.b32 [print_no_arg_printf_args+8], {{%r[0-9]+}};
# NOARG-NEXT: {
# NOARG:      call (retval0), vprintf
# NOARG-NOT:  call

# Two operands, one format each ("(operand 0) ", "(operand 1) "); a 64-bit value at offset 24; elements
# held by several threads are printed by their owner only.
# TWO:        print_two_str0
# TWO:        print_two_str1
# TWO:        st.local.b64 [print_two_printf_args+24], {{%rd[0-9]+}};
# TWO:        @{{%p[0-9]+}} call (retval0), vprintf, (param0, param1);

import triton
import triton.language as tl


@triton.jit
def print_tile(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("x: ", x)


@triton.jit
def print_scalar(X):
    print("x:", tl.load(X))


@triton.jit
def print_no_arg():
    print("no arg")


@triton.jit
def print_two(X, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    tl.device_print("", x, offs, hex=True)


# 16 elements in 128 threads: each element is held by 8 of them, and only its owner (lane bit 4 and the
# warp clear, Codegen::ownerPredicate) prints it: the one call is guarded by that predicate.
# BCAST:      and.b32 [[LANE:%r[0-9]+]], {{%r[0-9]+}}, 16;
# BCAST-NEXT: setp.eq.u32 [[P:%p[0-9]+]], [[LANE]], 0;
# BCAST-NEXT: and.b32 [[WARP:%r[0-9]+]], {{%r[0-9]+}}, 3;
# BCAST-NEXT: setp.eq.and.u32 [[OWNER:%p[0-9]+]], [[WARP]], 0, [[P]];
# BCAST:      @[[OWNER]] call (retval0), vprintf, (param0, param1);
# BCAST-NOT:  vprintf
@triton.jit
def print_bcast(BLOCK: tl.constexpr):
    tl.device_print("x: ", (tl.arange(0, BLOCK) + 128).to(tl.uint8))
