# Golden tests: IR text through kiln-opt, kernels through the kiln CLI, checked by FileCheck.
import os
import shutil

import lit.formats

config.name = "kiln"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tir", ".py", ".test"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.join(config.kiln_src_dir, "tests", "lit")
config.test_exec_root = os.path.join(config.kiln_bin_dir, "tests", "lit")
config.environment["PATH"] = os.pathsep.join(
    [config.kiln_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%examples", os.path.join(config.kiln_src_dir, "examples")))

# The CUDA toolkit's ptxas ($KILN_PTXAS, PATH, or /usr/local/cuda/bin): tests that assemble what they
# check use `%ptxas` and say `REQUIRES: ptxas`.
ptxas = os.environ.get("KILN_PTXAS") or shutil.which("ptxas")
if not ptxas and os.path.exists("/usr/local/cuda/bin/ptxas"):
    ptxas = "/usr/local/cuda/bin/ptxas"
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.insert(0, ("%ptxas", ptxas))
