"""kiln.tools (triton.tools under kiln.compat): host-side helpers; tensor_descriptor.TensorDescriptor."""
from . import tensor_descriptor

__all__ = ["tensor_descriptor"]
