# A `where` on an index mask inside a loop runs behind a guard (src/lower/lower_guarded_select.cpp):
# scalar terms, in 64 bits, that prove the mask true in every element (analysis/index_bounds.cpp); the
# result starts as the where's first value and the selects run only when the terms fail. The mask is
# computed again on that side, so the other computes none of it.
#
# RUN: kiln compile %s --kernel row_max --signature "*fp32:16, *fp32:16, i32, i32:16, 64, 32" --emit ptx --arch sm_80 -o %t.ptx
# RUN: FileCheck %s --check-prefix=EDGE < %t.ptx
# RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin
# RUN: kiln compile %s --kernel causal_max --signature "*fp32:16, *fp32:16, i32, i32:16, 64, 32" --emit ptx --arch sm_90a -o %t.causal.ptx
# RUN: FileCheck %s --check-prefix=CAUSAL < %t.causal.ptx
# RUN: %ptxas -arch=sm_90a %t.causal.ptx -o %t.causal.cubin
# Not guarded: a mask of the data, a where outside any loop, and a tile of fewer than 16 registers.
# RUN: kiln compile %s --kernel data_mask --signature "*fp32:16, *fp32:16, i32, i32:16, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=PLAIN
# RUN: kiln compile %s --kernel no_loop --signature "*fp32:16, *fp32:16, i32, i32:16, 64, 32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=PLAIN
# RUN: kiln compile %s --kernel row_max --signature "*fp32:16, *fp32:16, i32, i32:16, 64, 4" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=PLAIN
# REQUIRES: ptxas

# cols = start + [0, 64) < n for every column: start + 64 <= n, start being the loop's induction variable.
# EDGE:       [[LOOP:\$L[0-9]+_for]]:
# EDGE:       cvt.s64.s32 [[S:%rd[0-9]+]], [[IV:%r[0-9]+]];
# EDGE-NEXT:  add.s64 [[S]], [[S]], 64;
# EDGE-NEXT:  cvt.s64.s32 [[N:%rd[0-9]+]], %r{{[0-9]+}};
# EDGE-NEXT:  setp.le.s64 [[G:%p[0-9]+]], [[S]], [[N]];
# EDGE-NOT:   selp
# EDGE:       @[[G]] bra.uni [[DONE:\$L[0-9]+_all_true]];
# EDGE:       setp.lt.s32
# EDGE-COUNT-16: selp.f32 %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %p{{[0-9]+}};
# EDGE-NEXT:  [[DONE]]:
# EDGE:       max.f32
# EDGE:       bra.uni [[LOOP]];

# The causal mask adds min row >= max col (start + 63 <= the program's first row) and that rows do not
# wrap (first row + 31 <= 2^31 - 1); both parts are recomputed behind the branch.
# CAUSAL:      setp.le.s64 [[E:%p[0-9]+]],
# CAUSAL:      mov.b64 [[MAX:%rd[0-9]+]], 2147483647;
# CAUSAL-NEXT: setp.le.s64 [[W:%p[0-9]+]], %rd{{[0-9]+}}, [[MAX]];
# CAUSAL-NEXT: and.pred [[W]], [[W]], [[E]];
# CAUSAL:      add.s64 [[C:%rd[0-9]+]], [[C]], 63;
# CAUSAL:      setp.le.s64 [[D:%p[0-9]+]], [[C]], %rd{{[0-9]+}};
# CAUSAL-NEXT: and.pred [[D]], [[D]], [[W]];
# CAUSAL-NOT:  selp
# CAUSAL:      @[[D]] bra.uni [[DONE:\$L[0-9]+_all_true]];
# CAUSAL:      setp.ge.s32
# CAUSAL:      selp.f32
# CAUSAL:      [[DONE]]:

# PLAIN-NOT: _all_true
# PLAIN:     selp.f32
# PLAIN-NOT: _all_true

import triton
import triton.language as tl


@triton.jit
def row_max(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    m = tl.full([ROWS], float("-inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=cols[None, :] < n, other=0.0)
        x = tl.where(cols[None, :] < n, x * 2.0, float("-inf"))
        m = tl.maximum(m, tl.max(x, 1))
    tl.store(out_ptr + rows, m)


@triton.jit
def causal_max(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    m = tl.full([ROWS], float("-inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=cols[None, :] < n, other=0.0)
        valid = (cols[None, :] < n) & (rows[:, None] >= cols[None, :])
        x = tl.where(valid, x * 2.0, float("-inf"))
        m = tl.maximum(m, tl.max(x, 1))
    tl.store(out_ptr + rows, m)


@triton.jit
def data_mask(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    m = tl.full([ROWS], float("-inf"), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=cols[None, :] < n, other=0.0)
        x = tl.where(x > 0.5, x * 2.0, float("-inf"))
        m = tl.maximum(m, tl.max(x, 1))
    tl.store(out_ptr + rows, m)


@triton.jit
def no_loop(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=cols[None, :] < n, other=0.0)
    x = tl.where(cols[None, :] < n, x * 2.0, float("-inf"))
    tl.store(out_ptr + rows, tl.max(x, 1))
