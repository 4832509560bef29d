# GELU activation kernels (exact erf form and the tanh approximation), autotuned over block sizes.
# Corpus file: Triton code in the style found in public repositories, compiled unmodified by
# tests/lit/corpus/corpus.test.
import math

import torch
import triton
import triton.language as tl

SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)  # sqrt(2 / pi)
M_SQRT1_2: tl.constexpr = 0.7071067811865476  # 1 / sqrt(2)


def _configs():
    return [
        triton.Config({"BLOCK_SIZE": 512}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
    ]


@triton.jit
def _tanh(x):
    # tanh(x) = 2 * sigmoid(2x) - 1, numerically fine for large |x|
    return 2 * tl.sigmoid(2 * x) - 1


@triton.autotune(configs=_configs(), key=["n_elements"])
@triton.jit
def gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * M_SQRT1_2))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.autotune(configs=_configs(), key=["n_elements"])
@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + _tanh(inner))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n_elements = x.numel()
    grid = lambda META: (triton.cdiv(n_elements, META["BLOCK_SIZE"]), )
    if approximate == "tanh":
        gelu_tanh_kernel[grid](x, y, n_elements)
    else:
        gelu_kernel[grid](x, y, n_elements)
    return y


class GELU(torch.nn.Module):

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return gelu(x, self.approximate)
