# The compiler's warning for a 32-bit offset that can pass 2^31 (docs/semantics.md, "Integer overflow
# checks"): a program id times a runtime integer argument, computed in i32, reaching an address. The CLI
# prints it to stderr with the location and a caret; the exit status stays 0 and the IR is printed.
# RUN: kiln compile %s --kernel rows --signature "*fp32, i32, i32, 16" 2>&1 >/dev/null | FileCheck --strict-whitespace %s --check-prefix=ROWS
# RUN: kiln compile %s --kernel rows --signature "*fp32, i32, i32, 16" 2>/dev/null | FileCheck %s --check-prefix=IR
# IR: func @rows(
# 64-bit products, a constexpr block size, a stride specialized to 1 and a product that never reaches an
# address say nothing.
# RUN: kiln compile %s --kernel rows64 --signature "*fp32, i32, i32, 16" 2>&1 >/dev/null | FileCheck --allow-empty %s --check-prefix=QUIET
# RUN: kiln compile %s --kernel blocks --signature "*fp32, i32, 1024" 2>&1 >/dev/null | FileCheck --allow-empty %s --check-prefix=QUIET
# RUN: kiln compile %s --kernel rows --signature "*fp32, 1, i32, 16" 2>&1 >/dev/null | FileCheck --allow-empty %s --check-prefix=QUIET
# RUN: kiln compile %s --kernel masked_only --signature "*fp32, i32, i32, 16" 2>&1 >/dev/null | FileCheck --allow-empty %s --check-prefix=QUIET
# QUIET-NOT: {{.}}
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    ptrs = x_ptr + row * stride + offs
    # ROWS: {{^}}{{.*}}offset_overflow_warning.py:[[@LINE-1]]:20: warning: this i32 product of a program id and the runtime argument 'stride' is an offset that passes 2^31 - 1 once the tensor has 2^31 elements, and then wraps: compute it in 64 bits (.to(tl.int64) on an operand) if the tensor can be that large{{$}}
    # ROWS-NEXT: {{^}}      ptrs = x_ptr + row * stride + offs{{$}}
    # ROWS-NEXT: {{^}}                     ^{{$}}
    # ROWS-NOT: {{.}}
    tl.store(ptrs, tl.load(ptrs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def rows64(x_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    ptrs = x_ptr + row * stride + offs
    tl.store(ptrs, tl.load(ptrs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def blocks(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def masked_only(x_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    limit = tl.program_id(0) * stride
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < limit), mask=offs < n)
