"""kiln.language.extra (triton.language.extra): libdevice and cuda, as far as kiln's compiler has them."""
from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]
