# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "NPU"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.npu_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%npu_src_root", config.npu_src_root))
config.substitutions.append(("%npu_install_dir", config.npu_install_dir))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%ccache", config.ccache or ""))
config.substitutions.append(("%llvm_bindir", config.llvm_tools_dir))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "CCACHE_DIR",
                                     "CCACHE_BASEDIR", "CCACHE_NOHASHDIR",
                                     "CCACHE_MAXSIZE"])
llvm_config.use_default_substitutions()

sys.path.insert(0, os.path.dirname(__file__))
import sanitizers  # noqa: E402
sanitizers.configure(config, config.npu_sanitizers)
# `not` and `count` at the start of a RUN line are found on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.npu_tools_dir, config.llvm_tools_dir]
tools = ["npu-opt", "npu-run", "npu-import-onnx"]
if config.npu_fuzzers:
    config.available_features.add("fuzzers")
    tools += ["npu-opt-fuzzer", "npu-input-fuzzer", "npu-onnx-fuzzer",
              "npu-data-fuzzer"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
