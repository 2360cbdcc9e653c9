//===- DeviceModelTest.cpp - presets and JSON descriptions ----------------===//

#include "npu/Device/DeviceModel.h"

#include "gtest/gtest.h"

using namespace npu;

namespace {

TEST(DeviceModelTest, Presets) {
  llvm::Expected<DeviceModel> mlu = DeviceModel::getPreset("mlu590");
  ASSERT_TRUE(!!mlu);
  EXPECT_EQ(mlu->getNumCores(), 48u);
  EXPECT_EQ(mlu->globalGBps, 2765);
  EXPECT_EQ(mlu->getCapacity(DeviceMemorySpace::Vector), 512 * 1024);
  EXPECT_EQ(mlu->getCapacity(DeviceMemorySpace::Global), -1);
  llvm::Expected<DeviceModel> ascend = DeviceModel::getPreset("ascend910b");
  ASSERT_TRUE(!!ascend);
  EXPECT_EQ(ascend->getCapacity(DeviceMemorySpace::Vector), 192 * 1024);

  llvm::Expected<DeviceModel> unknown = DeviceModel::getPreset("tpu");
  ASSERT_FALSE(!!unknown);
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown device preset 'tpu' (known: mlu590, ascend910b)");
}

TEST(DeviceModelTest, JsonOverridesItsBase) {
  llvm::Expected<DeviceModel> m = DeviceModel::parseJSON(R"({
    "name": "small", "base": "ascend910b", "clusters": 2,
    "cores_per_cluster": 1, "vector_bytes": 4096, "global_gbps": 100.5
  })");
  ASSERT_TRUE(!!m) << llvm::toString(m.takeError());
  EXPECT_EQ(m->name, "small");
  EXPECT_EQ(m->getNumCores(), 2u);
  EXPECT_EQ(m->vectorBytes, 4096);
  EXPECT_EQ(m->globalGBps, 100.5);
  // Untouched fields come from the base.
  EXPECT_EQ(m->cubeBytes, 512 * 1024);
  EXPECT_EQ(m->clockGHz, 1.8);
}

TEST(DeviceModelTest, JsonErrors) {
  auto message = [](llvm::StringRef text) {
    llvm::Expected<DeviceModel> m = DeviceModel::parseJSON(text);
    return m ? std::string("ok") : llvm::toString(m.takeError());
  };
  EXPECT_NE(message("{").find("Expected"), std::string::npos);
  EXPECT_EQ(message("[1]"), "device description must be an object");
  EXPECT_NE(
      message(R"({"clusters": "many"})").find("expected a non-negative number"),
      std::string::npos);
  EXPECT_NE(message(R"({"clusters": 0})").find("must be positive"),
            std::string::npos);
  EXPECT_NE(message(R"({"base": "gpu"})").find("unknown device preset"),
            std::string::npos);
}

} // namespace
