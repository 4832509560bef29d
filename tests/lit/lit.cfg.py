# Golden tests: IR text through kiln-opt, kernels through the kiln CLI, checked by FileCheck.
import os
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
