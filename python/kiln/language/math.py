"""kiln.language.math (tl.math): host-side stubs of the math builtins, from the compiler's table."""
from .. import _kiln
from .core import _stub

for _name in _kiln.builtin_names("math"):
    globals()[_name] = _stub("math", _name)
del _name
