"""`triton._C.libtriton.nvidia.cublas` under kiln.compat: the cuBLASLt binding Triton ships, which its
persistent-matmul tutorial uses as the library reference. kiln has no binding of its own to cuBLAS;
this one computes through PyTorch, which calls cuBLAS(Lt) for the same products.

    blas = CublasLt(workspace)     # workspace: a CUDA uint8 tensor (kept, as Triton's binding keeps it)
    blas.matmul(a, b, c)           # c = a @ b.T: a [M, K], b [N, K], c [M, N]; fp16, bf16, fp32 or fp8 e4m3/e5m2
"""
import types

import kiln


def _torch():
    try:
        import torch
    except ImportError:
        raise kiln.DeviceError("triton._C.libtriton.nvidia.cublas needs PyTorch with CUDA") from None
    if not torch.cuda.is_available():
        raise kiln.DeviceError("triton._C.libtriton.nvidia.cublas: no CUDA device")
    return torch


class CublasLt:
    """Triton's `CublasLt(workspace)`: `matmul(a, b, c)` writes `a @ b.T` into c."""

    def __init__(self, workspace):
        torch = _torch()
        if not isinstance(workspace, torch.Tensor) or not workspace.is_cuda or workspace.dtype != torch.uint8:
            raise kiln.ArgumentError("CublasLt(workspace): workspace must be a CUDA torch.uint8 tensor")
        self.workspace = workspace

    def matmul(self, a, b, c):
        torch = _torch()
        for name, t in (("a", a), ("b", b), ("c", c)):
            if not isinstance(t, torch.Tensor) or not t.is_cuda or t.dim() != 2:
                raise kiln.ArgumentError(f"CublasLt.matmul: {name} must be a 2-D CUDA tensor")
        (m, k), (n, k2) = a.shape, b.shape
        if k != k2 or tuple(c.shape) != (m, n):
            raise kiln.ArgumentError(f"CublasLt.matmul: shapes a {tuple(a.shape)}, b {tuple(b.shape)}, c "
                                     f"{tuple(c.shape)} do not make c = a @ b.T")
        if a.dtype != b.dtype:
            raise kiln.ArgumentError(f"CublasLt.matmul: a is {a.dtype} and b is {b.dtype}")
        if a.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            one = torch.ones((), device=a.device, dtype=torch.float32)
            c.copy_(torch._scaled_mm(a, b.T, scale_a=one, scale_b=one, out_dtype=c.dtype))
        elif a.dtype in (torch.float16, torch.bfloat16, torch.float32):
            torch.matmul(a, b.T, out=c)
        else:
            raise kiln.ArgumentError(f"CublasLt.matmul: {a.dtype} is not supported (fp16, bf16, fp32, fp8)")


cublas = types.ModuleType("triton._C.libtriton.nvidia.cublas")
cublas.CublasLt = CublasLt
nvidia = types.ModuleType("triton._C.libtriton.nvidia")
nvidia.cublas = cublas
libtriton = types.ModuleType("triton._C.libtriton")
libtriton.nvidia = nvidia
_C = types.ModuleType("triton._C")
_C.libtriton = libtriton
for _m in (_C, libtriton, nvidia, cublas):
    _m.__path__ = []
