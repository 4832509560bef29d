# break and continue (src/sema/lower_loop_exit.cpp). A `while True` with a break stops on a carried
# flag: its condition is `not broke`; a `for` over a range keeps its trip count, its body inside
# `if not broke`; the statements after an `if` holding a `continue` run inside `if go`. ptxas assembles
# the kernel for sm_80 and sm_90a.
#
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel k --signature "*fp32, *fp32, i32" --emit ir | FileCheck %s
# RUN: kiln compile %s --kernel k --signature "*fp32, *fp32, i32" --emit ptx --arch sm_80 -o %t.80.ptx
# RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
# RUN: kiln compile %s --kernel k --signature "*fp32, *fp32, i32" --emit ptx --arch sm_90a -o %t.90.ptx
# RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, n):
    i = 0
    while True:
        if tl.load(x_ptr + i) < 0:
            break
        i += 1
    s = 0.0
    for j in range(n):
        v = tl.load(x_ptr + j)
        if v > 1:
            continue
        if v < 0:
            break
        s += v
    tl.store(out_ptr, s + i)
# The while: the break flag rides along; the condition is its negation.
# CHECK: while %{{[0-9]+}}, %{{[0-9]+}} : i32, i1 {
# CHECK-NEXT: ^(%{{[0-9]+}}: i32, %[[BROKE:[0-9]+]]: i1):
# CHECK-NEXT: %[[NOT:[0-9]+]] = not %[[BROKE]] : i1
# CHECK-NEXT: condition %[[NOT]]
# The break sets the flag and clears `go`; the increment after the `if` runs under `go`.
# CHECK: %{{[0-9]+}}, %[[GO:[0-9]+]] = if %{{[0-9]+}} : i1, i1 {
# CHECK: if %[[GO]] : i32 {
# The for: each iteration runs only while no break ran; after the continue's `if`, the rest runs under `go`.
# CHECK: for %{{[0-9]+}}, %n, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : f32, i1 {
# CHECK-NEXT: ^(%{{[0-9]+}}: i32, %{{[0-9]+}}: f32, %[[B2:[0-9]+]]: i1):
# CHECK-NEXT: %[[NB:[0-9]+]] = not %[[B2]] : i1
# CHECK-NEXT: if %[[NB]] : i1, f32 {
# CHECK: %[[GO2:[0-9]+]] = if %{{[0-9]+}} : i1 {
# CHECK: if %[[GO2]] : i1, f32 {
