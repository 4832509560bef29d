# Kernels for the ahead-of-time tests: scalars of several C types, a parameter named as a C++ keyword,
# a tuple parameter, and a kernel without parameters.
import triton
import triton.language as tl


@triton.jit
def scale(out_ptr, x_ptr, factor, flag, new, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if flag:
        x = x * factor
    tl.store(out_ptr + offs, x + new, mask=mask)


@triton.jit
def pair(t, BLOCK: tl.constexpr):
    tl.store(t[0] + tl.arange(0, BLOCK), tl.arange(0, BLOCK))


@triton.jit
def nothing():
    pass
