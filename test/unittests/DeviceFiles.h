//===- DeviceFiles.h - small device models for kernel tests -----*- C++ -*-===//
//
// Kernel tests shrink a preset (fewer cores, less on-chip memory) so that
// every tile loop, template and split runs several times at sizes the tests
// can afford. The lowering takes a device as a preset name or a JSON file.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TEST_UNITTESTS_DEVICEFILES_H
#define NPU_TEST_UNITTESTS_DEVICEFILES_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace npu::testing {

/// The path of a temporary file holding the device description `json`,
/// written once per description and process.
const std::string &getDeviceFile(llvm::StringRef json);

} // namespace npu::testing

#endif // NPU_TEST_UNITTESTS_DEVICEFILES_H
