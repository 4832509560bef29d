# tl.map_elementwise with control flow on an element's value, run over tiles
# (src/sema/vectorize_elementwise.h): an `if` runs both branches and selects, a `while` (and a `for`
# whose bounds differ between elements) loops until no element's loop goes on, keeping each element's
# values once its own loop ended; a `for` over bounds no element changes stays a `for`. ptxas assembles
# the kernel for sm_80 and sm_90a.
#
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel k --signature "*i32, *i32, 16" --emit ir | FileCheck %s
# RUN: kiln compile %s --kernel k --signature "*i32, *i32, 16" --emit ptx --arch sm_80 -o %t.80.ptx
# RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
# RUN: kiln compile %s --kernel k --signature "*i32, *i32, 16" --emit ptx --arch sm_90a -o %t.90.ptx
# RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin
import triton
import triton.language as tl


@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@triton.jit
def triangle(n):
    s = 0
    for i in range(n):
        s += i
    for j in range(3):
        s += j
    return s


@triton.jit
def k(x_ptr, y_ptr, B: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, B))
    y = tl.load(y_ptr + tl.arange(0, B))
    c = tl.map_elementwise(compare, x, y)
    tl.store(x_ptr + tl.arange(0, B), c + tl.map_elementwise(collatz, y) * 10 + tl.map_elementwise(triangle, x) * 1000)
# The if/elif/else: both comparisons, then one select per branch, innermost first.
# CHECK: %[[LT:[0-9]+]] = cmp %[[X:[0-9]+]], %[[Y:[0-9]+]] {pred = "lt"} : tensor<16xi1>
# CHECK: %[[EQ:[0-9]+]] = cmp %[[X]], %[[Y]] {pred = "eq"} : tensor<16xi1>
# CHECK: %[[IN:[0-9]+]] = select %[[EQ]], {{.*}} : tensor<16xi32>
# CHECK: select %[[LT]], %{{[0-9]+}}, %[[IN]] : tensor<16xi32>
# collatz: a while over tiles; its condition is "some element still loops" and passes on each element's
# own flag and the values at the top of the iteration, which the body keeps where the flag is off.
# CHECK: while %[[Y]], {{.*}} : tensor<16xi1>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32> {
# CHECK: %[[GO:[0-9]+]] = cmp {{.*}} {pred = "ne"} : tensor<16xi1>
# CHECK: reduce {{.*}} {axis = 0, kind = "max"} : i32
# CHECK: condition %{{[0-9]+}}, %[[GO]],
# CHECK: ^(%[[ON:[0-9]+]]: tensor<16xi1>, %[[N:[0-9]+]]: tensor<16xi32>, %[[STEPS:[0-9]+]]: tensor<16xi32>,
# CHECK: select %[[ON]], %{{[0-9]+}}, %[[N]] : tensor<16xi32>
# CHECK: select %[[ON]], %{{[0-9]+}}, %[[STEPS]] : tensor<16xi32>
# triangle: range(n) with n an element's value loops until done; range(3) stays a for over tiles.
# CHECK: assert {{.*}} {message = "for loop has a non-positive step"}
# CHECK: while
# CHECK: cmp %{{[0-9]+}}, %[[X]] {pred = "lt"} : tensor<16xi1>
# CHECK: for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : tensor<16xi32> {
# CHECK-NEXT: ^(%{{[0-9]+}}: i32, %{{[0-9]+}}: tensor<16xi32>):
