"""kiln.language.extra.libdevice (triton.language.extra.libdevice, also extra.cuda.libdevice).

Every name of Triton 3.6's CUDA libdevice is here, from the compiler's own table. The ones kiln's
language has are its tl.math builtins of the same name (abs, exp, exp2, log, log2, sin, cos, sqrt,
sqrt_rn, rsqrt, erf, floor, ceil, fma, fma_rn, div_rn), computed as those are; using any other in a
kernel is a CompilationError at its line ("libdevice.tanh is not supported by kiln"). Outside a
kernel each is a stub that says it runs only inside one.
"""
from ... import _kiln
from ..core import _stub

for _name in _kiln.builtin_names("libdevice"):
    globals()[_name] = _stub("libdevice", _name)
del _name
