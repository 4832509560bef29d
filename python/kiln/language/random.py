"""kiln.language.random (tl.random): host-side stubs of the random-number builtins, from the compiler's table."""
from .. import _kiln
from .core import _stub

for _name in _kiln.builtin_names("random"):
    globals()[_name] = _stub("random", _name)
del _name
