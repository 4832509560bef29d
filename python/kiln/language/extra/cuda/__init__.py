"""kiln.language.extra.cuda (triton.language.extra.cuda): its libdevice, and Triton's other names of this
module: globaltimer, smid, num_threads, num_warps (compiled by kiln), convert_custom_float8_sm80/sm90
(named but not implemented: using one in a kernel is a CompilationError at its line)."""
from .... import _kiln
from .. import libdevice
from ...core import _stub

for _name in _kiln.builtin_names("cuda"):
    globals()[_name] = _stub("cuda", _name)
del _name
