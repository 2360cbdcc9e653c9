//===- DeviceFiles.cpp - small device models for kernel tests -------------===//

#include "DeviceFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

const std::string &npu::testing::getDeviceFile(llvm::StringRef json) {
  static llvm::StringMap<std::string> paths;
  std::string &path = paths[json];
  if (!path.empty())
    return path;
  llvm::SmallString<128> file;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("device", "json", file));
  std::error_code error;
  llvm::raw_fd_ostream(file, error) << json;
  EXPECT_FALSE(error);
  path = file.str().str();
  return path;
}
