# A file written for Triton, used unchanged through kiln.compat: `import triton` here is kiln.
import numpy as np

import triton
import triton.language as tl
import triton.testing
from triton import cdiv, next_power_of_2
from triton.language import constexpr

FACTOR: tl.constexpr = 3


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"])
@triton.jit
def tuned_scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)


def run(n=100):
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    scale_kernel[(cdiv(n, 64),)](x, out, n, BLOCK=next_power_of_2(64))
    triton.testing.assert_close(out, x * 3)
    out2 = np.zeros(n, dtype=np.float32)
    tuned_scale_kernel[lambda meta: (cdiv(n, meta["BLOCK"]),)](x, out2, n)
    triton.testing.assert_close(out2, x * 3)
    return out


if __name__ == "__main__":
    import os
    import sys
    run()
    # The package that `import triton` loaded: kiln's folder under kiln.compat.
    print("ran with", os.path.basename(os.path.dirname(triton.__file__)), sys.argv[1:])
