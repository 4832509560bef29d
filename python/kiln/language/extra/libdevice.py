"""kiln.language.extra.libdevice (triton.language.extra.libdevice, also extra.cuda.libdevice).

Every name of Triton 3.6's CUDA libdevice is here, from the compiler's own table. kiln compiles the
math functions (exp .. pow, the rounding functions, the predicates, copysign, fdim, the fast_* ones;
docs/language.md lists them); using any other in a kernel is a CompilationError at its line
("libdevice.rcp64h is not supported by kiln"). Outside a kernel each is a stub that says it runs only
inside one."""
from ... import _kiln
from ..core import _stub

for _name in _kiln.builtin_names("libdevice"):
    globals()[_name] = _stub("libdevice", _name)
del _name
