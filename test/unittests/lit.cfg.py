# -*- Python -*-
# Runs every gtest executable named *Tests in this build directory.
import lit.formats

config.name = "NPU-Unit"
config.suffixes = []
config.test_exec_root = config.npu_unittests_dir
config.test_source_root = config.npu_unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
