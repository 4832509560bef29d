"""The autotuner's choices on disk (autotune(cache_results=True), KILN_CACHE_AUTOTUNING=1): one small
JSON file per kernel, key and device under `<kiln cache dir>/autotune/`, next to the cubins.

The file's name is a hash of everything the choice depends on: the kernel's text and the texts and
values of what it uses (kiln/_resolve.py), the key's values, the configs, the device (its name and
architecture, or the interpreter) and kiln's version; a change to any of them is a different file, so a
stale choice is never read. Files are written to a temporary name and renamed into place, so processes
tuning at the same time never read half a file (the last one's choice stays).
"""
import hashlib
import json
import os
import tempfile

from . import _kiln
from . import _resolve
from . import knobs


def _cache_dir():
    base = knobs.cache.dir
    return None if base is None else os.path.join(base, "autotune")


def kernel_fingerprint(jit):
    """A hash of a JITFunction's own text and of everything it uses (other @jit functions' texts, constants)."""
    h = hashlib.sha256()
    h.update(_resolve.unit_of(jit).definition.text.encode())
    h.update(repr(_resolve.imports_of(jit)).encode())
    return h.hexdigest()


def device_tag(device):
    """The device the timings were taken on (a CUDA ordinal, None for the interpreter): its name and
    architecture, so that a second GPU of the same kind reads the first one's choices."""
    if device is None:
        return "interpreter"
    props = _kiln.device_properties(device) or {}
    return f"{props.get('name', 'cuda')}:{props.get('arch', '?')}"


def _config_json(c):
    return {"kwargs": {k: repr(v) for k, v in c.kwargs.items()}, "num_warps": c.num_warps,
            "num_stages": c.num_stages, "num_ctas": c.num_ctas, "maxnreg": c.maxnreg,
            "warp_specialize": bool(getattr(c, "warp_specialize", None)),
            "persistent": bool(getattr(c, "persistent", None))}


def entry_path(fingerprint, key, configs, device):
    directory = _cache_dir()
    if directory is None:
        return None
    import kiln
    h = hashlib.sha256(json.dumps({"kernel": fingerprint, "key": [repr(k) for k in key],
                                   "configs": [_config_json(c) for c in configs], "device": device,
                                   "kiln": kiln.__version__}, sort_keys=True).encode())
    return os.path.join(directory, h.hexdigest() + ".json")


def load(path, configs):
    """(best config, {config: timings}) stored at path, or None when there is none (or it is unreadable)."""
    try:
        with open(path) as f:
            data = json.load(f)
        best = configs[data["best"]]
        timings = {configs[i]: t for i, t in data["timings"]}
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    return best, timings


def store(path, configs, best, timings):
    data = {"best": configs.index(best), "best_config": str(best),
            "timings": [[configs.index(c), t] for c, t in timings.items()]}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
