"""KILN_TIME_PASSES=1: each kernel the launcher compiles prints the --time-passes table (docs/pipeline.md,
"Time per step") to stderr; without it nothing is printed."""
import re

import numpy as np

import kiln
import kiln.language as tl


def test_the_table_names_every_stage_once_per_compiled_variant(monkeypatch, capfd):
    monkeypatch.setenv("KILN_TIME_PASSES", "1")

    @kiln.jit
    def scaled_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

    x = np.arange(40, dtype=np.float32)
    y = np.zeros_like(x)
    scaled_copy[(3,)](x, y, 40, BLOCK=16)
    scaled_copy[(3,)](x, y, 40, BLOCK=16)  # the same variant: compiled once, one table
    assert (y == 2 * x).all()
    err = capfd.readouterr().err
    assert err.count("===== time per step: scaled_copy") == 1
    row = r"^ +\d+\.\d{3} +\d+\.\d{3}  "
    for stage in ("front end", "sema", "tile passes", "kernel facts", "total"):
        assert re.search(row + re.escape(stage) + "$", err, re.M), (stage, err)
    for step in ("parse", "specialize and lower", "canonicalize \\(2 runs\\)", "cse"):
        assert re.search(row + "  " + step + "$", err, re.M), (step, err)

    monkeypatch.setenv("KILN_TIME_PASSES", "0")
    scaled_copy[(3,)](x, y, 40, BLOCK=8)  # a new variant, compiled without the table
    assert "time per step" not in capfd.readouterr().err
