# -*- Python -*-
# Runs every gtest executable named *Tests in this build directory.
import os
import sys

import lit.formats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import sanitizers  # noqa: E402

config.name = "NPU-Unit"
config.suffixes = []
config.test_exec_root = config.npu_unittests_dir
config.test_source_root = config.npu_unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
sanitizers.configure(config, config.npu_sanitizers)
