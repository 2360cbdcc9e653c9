//===- DeviceModelTest.cpp - presets and JSON descriptions ----------------===//

#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <thread>

#include <unistd.h>

using namespace npu;

namespace {

TEST(DeviceModelTest, Presets) {
  llvm::Expected<DeviceModel> mlu = DeviceModel::getPreset("mlu590");
  ASSERT_TRUE(!!mlu);
  EXPECT_EQ(mlu->getNumCores(), 48u);
  EXPECT_EQ(mlu->globalGBps, 2765);
  EXPECT_EQ(mlu->getCapacity(dev::MemorySpace::vector), 512 * 1024);
  EXPECT_EQ(mlu->getCapacity(dev::MemorySpace::global), -1);
  llvm::Expected<DeviceModel> ascend = DeviceModel::getPreset("ascend910b");
  ASSERT_TRUE(!!ascend);
  EXPECT_EQ(ascend->getCapacity(dev::MemorySpace::vector), 192 * 1024);
  // Core kinds: mlu590's cores have both units and run every launch;
  // ascend910b has 48 vector cores (AIV) and 24 cube cores (AIC) and no
  // core with both.
  EXPECT_FALSE(mlu->hasSplitCores());
  for (dev::CoreKind kind :
       {dev::CoreKind::unified, dev::CoreKind::vector, dev::CoreKind::cube})
    EXPECT_EQ(mlu->getNumCores(kind), 48u);
  EXPECT_TRUE(ascend->hasSplitCores());
  EXPECT_EQ(ascend->getNumCores(dev::CoreKind::vector), 48u);
  EXPECT_EQ(ascend->getNumCores(dev::CoreKind::cube), 24u);
  EXPECT_EQ(ascend->getNumCores(dev::CoreKind::unified), 0u);

  llvm::Expected<DeviceModel> unknown = DeviceModel::getPreset("tpu");
  ASSERT_FALSE(!!unknown);
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown device preset 'tpu' (known: mlu590, ascend910b, host)");
}

// "host" describes the machine the test runs on: read back here from the
// same sources (one core per hardware thread, on-chip memory from sysconf's
// L2 size), it keeps mlu590's timing and builds kernels that verify.
TEST(DeviceModelTest, HostPreset) {
  llvm::Expected<DeviceModel> host = DeviceModel::getPreset("host");
  ASSERT_TRUE(!!host) << llvm::toString(host.takeError());
  EXPECT_EQ(host->name, "host");
  EXPECT_EQ(host->getNumCores(),
            std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_FALSE(host->hasSplitCores());
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0) {
    EXPECT_EQ(host->vectorBytes, l2 / 4);
    EXPECT_EQ(host->cubeBytes, l2 / 4);
  }
  EXPECT_GT(host->vectorBytes, 0);
  const DeviceModel &mlu = DeviceModel::getDefault();
  EXPECT_EQ(host->clockGHz, mlu.clockGHz);
  EXPECT_EQ(host->vectorBytesPerCycle, mlu.vectorBytesPerCycle);
  // Its description round-trips like any other.
  llvm::Expected<DeviceModel> back = DeviceModel::fromJSON(host->toJSON());
  ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
  EXPECT_EQ(back->vectorBytes, host->vectorBytes);
  EXPECT_EQ(back->getNumCores(), host->getNumCores());
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

/// The error parseJSON gives for `text`, or "ok".
std::string jsonError(llvm::StringRef text) {
  llvm::Expected<DeviceModel> m = DeviceModel::parseJSON(text);
  return m ? std::string("ok") : llvm::toString(m.takeError());
}

TEST(DeviceModelTest, JsonErrors) {
  EXPECT_NE(jsonError("{").find("Expected"), std::string::npos);
  EXPECT_EQ(jsonError("[1]"), "device description must be an object");
  EXPECT_EQ(jsonError(R"({"base": "gpu"})"),
            "unknown device preset 'gpu' (known: mlu590, ascend910b, host)");
  EXPECT_EQ(jsonError(R"({"base": 3})"),
            "device description: field 'base' must be a preset name");
  EXPECT_EQ(jsonError(R"({"name": 3})"),
            "device description: field 'name' must be a string");
}

/// Each validation rule, with the message naming the field.
TEST(DeviceModelTest, JsonFieldRules) {
  // Unknown keys are rejected by name (the first in sorted order).
  EXPECT_EQ(jsonError(R"({"vectr_bytes": 4096, "clusterz": 1})"),
            "device description: unknown field 'clusterz'");
  // Numbers only.
  EXPECT_EQ(jsonError(R"({"clusters": "many"})"),
            "device description: field 'clusters' must be a number");
  // Integers where the model counts: 1.5 clusters is not 1.
  EXPECT_EQ(jsonError(R"({"clusters": 1.5})"),
            "device description: field 'clusters' must be an integer, got 1.5");
  EXPECT_EQ(jsonError(R"({"clusters": 2.0})"), "ok");
  // Positive where a zero breaks the model.
  EXPECT_EQ(jsonError(R"({"cores_per_cluster": 0})"),
            "device description: field 'cores_per_cluster' must be between 1 "
            "and 65536, got 0");
  EXPECT_EQ(jsonError(R"({"vector_bytes": 0})"),
            "device description: field 'vector_bytes' must be between 1 and "
            "1099511627776, got 0");
  EXPECT_EQ(jsonError(R"({"global_gbps": 0})"),
            "device description: field 'global_gbps' must be between 0.001 "
            "and 1000000, got 0");
  EXPECT_EQ(jsonError(R"({"global_bytes": 0})"),
            "device description: field 'global_bytes' must be between 1 and "
            "562949953421312, got 0");
  EXPECT_EQ(jsonError(R"({"global_bytes": 1.5e9})"), "ok");
  // An indexed copy divides by these.
  EXPECT_EQ(jsonError(R"({"dma_burst_bytes": 0})"),
            "device description: field 'dma_burst_bytes' must be between 1 "
            "and 1048576, got 0");
  EXPECT_EQ(jsonError(R"({"dma_max_outstanding": 0})"),
            "device description: field 'dma_max_outstanding' must be between "
            "1 and 1048576, got 0");
  // The L2 divides its capacity by these; a capacity of 0 is no L2.
  EXPECT_EQ(jsonError(R"({"l2_line_bytes": 0})"),
            "device description: field 'l2_line_bytes' must be between 1 and "
            "1048576, got 0");
  EXPECT_EQ(jsonError(R"({"l2_ways": 0})"),
            "device description: field 'l2_ways' must be between 1 and "
            "65536, got 0");
  EXPECT_EQ(jsonError(R"({"l2_bytes": 0})"), "ok");
  EXPECT_EQ(jsonError(R"({"global_load_cycles": -1})"),
            "device description: field 'global_load_cycles' must be between "
            "0 and 1000000000, got -1");
  EXPECT_EQ(jsonError(R"({"global_bytes": 1.5})"),
            "device description: field 'global_bytes' must be an integer, got "
            "1.5");
  // Zero where the model survives it.
  EXPECT_EQ(jsonError(R"({"shared_bytes": 0, "dma_latency_cycles": 0})"), "ok");
  // Ranges keep every product inside int64_t.
  EXPECT_EQ(jsonError(R"({"cube_bytes": 1e15})"),
            "device description: field 'cube_bytes' must be between 0 and "
            "1099511627776, got 1e+15");
  EXPECT_EQ(jsonError(R"({"clock_ghz": -1})"),
            "device description: field 'clock_ghz' must be between 0.001 and "
            "100, got -1");
  // 65536 x 65536 cores wrapped to 0 and divided by zero before.
  EXPECT_EQ(jsonError(R"({"clusters": 65536, "cores_per_cluster": 65536})"),
            "device description: clusters x (cores_per_cluster + "
            "cube_cores_per_cluster) is 4294967296 cores, more than 65536");
  // Cube cores count: 1000 x (60 + 6) > 65536 >= 1000 x 60.
  EXPECT_EQ(jsonError(R"({"clusters": 1000, "cores_per_cluster": 60,
                          "cube_cores_per_cluster": 6})"),
            "device description: clusters x (cores_per_cluster + "
            "cube_cores_per_cluster) is 66000 cores, more than 65536");
}

TEST(DeviceModelTest, JsonRoundTrip) {
  for (const DeviceModel &preset : DeviceModel::getPresets()) {
    llvm::Expected<DeviceModel> back = DeviceModel::fromJSON(preset.toJSON());
    ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
    EXPECT_EQ(*back, preset) << preset.name;
  }
  DeviceModel changed = cantFail(DeviceModel::getPreset("mlu590"));
  changed.dmaLatencyCycles += 1;
  EXPECT_EQ(changed.findDifference(*DeviceModel::getPreset("mlu590")),
            std::optional<std::string>("dma_latency_cycles"));
}

/// The module attribute prints, parses back and describes the same device.
TEST(DeviceModelTest, AttributeRoundTrip) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::Expected<DeviceModel> device = DeviceModel::parseJSON(R"({
    "name": "small", "base": "ascend910b", "clusters": 3,
    "vector_bytes": 4096, "clock_ghz": 1.25})");
  ASSERT_TRUE(!!device);
  std::string text;
  llvm::raw_string_ostream os(text);
  dev::getDeviceAttr(&ctx, *device).print(os);
  mlir::Attribute parsed = mlir::parseAttribute(text, &ctx);
  ASSERT_TRUE(parsed) << text;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  (*module)->setAttr(dev::NPUDevDialect::getDeviceAttrName(), parsed);
  mlir::FailureOr<DeviceModel> back = dev::lookupDevice(*module);
  ASSERT_TRUE(succeeded(back));
  EXPECT_EQ(*back, *device);
}

} // namespace
