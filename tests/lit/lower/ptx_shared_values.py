# Golden PTX of element-wise ops whose elements the axis info proves equal in blocks
# (src/lower/lower_elementwise.cpp): `cols < n` with n a multiple of 16 is one predicate per block of
# 16 columns, so a thread's eight columns (two vectors of four) take two setp, not eight; without the
# promise every column has its own.
#
# RUN: kiln compile %s --kernel where_mask --signature "*fp32:16, *fp32:16, i32:16, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SHARED
# RUN: kiln compile %s --kernel where_mask --signature "*fp32:16, *fp32:16, i32, 1024" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=EACH
import triton
import triton.language as tl

# SHARED:        setp.lt.s32 [[P0:%p[0-9]+]], %r{{[0-9]+}}, %r0;
# SHARED-NEXT:   setp.lt.s32 [[P1:%p[0-9]+]], %r{{[0-9]+}}, %r0;
# SHARED-COUNT-4: selp.f32 %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, [[P0]];
# SHARED-COUNT-4: selp.f32 %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, [[P1]];
# SHARED-NOT:    setp.lt
# EACH-COUNT-8:  setp.lt.s32
# EACH-NOT:      setp.lt


@triton.jit
def where_mask(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols)
    tl.store(out_ptr + cols, tl.where(cols < n, x, 0.))
