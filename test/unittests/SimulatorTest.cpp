//===- SimulatorTest.cpp - the simulator's values and cost model ----------===//
//
// Results against plain C++ references, and the timing model against its
// own definition (docs/simulator.md): a DMA costs latency + bytes / bandwidth,
// an asynchronous DMA overlaps vector work and a synchronous one does not,
// two cores halve a perfectly parallel kernel.
//
//===----------------------------------------------------------------------===//

#include "npu/Simulator/Simulator.h"
#include "npu/InitAll.h"
#include "npu/Simulator/Execution.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;
using namespace npu;
using namespace npu::sim;

namespace {

class SimulatorTest : public ::testing::Test {
protected:
  SimulatorTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    device = cantFail(DeviceModel::getPreset("mlu590"));
  }

  /// Parses `source` and simulates its first function on `args`.
  SimulationReport run(StringRef source, MutableArrayRef<HostArray> args) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module);
    auto func = cast<func::FuncOp>(module->getBody()->front());
    SimulationReport report;
    EXPECT_TRUE(succeeded(simulate(func, args, device, {}, report)));
    return report;
  }

  static HostArray floats(const std::vector<float> &values,
                          llvm::ArrayRef<int64_t> shape) {
    return HostArray::fromValues(ElementKind::F32, values, shape);
  }

  MLIRContext ctx;
  DeviceModel device;
  OwningOpRef<ModuleOp> module;
};

/// y = exp(x) * 3 - x, then a running sum: against float math in C++.
TEST_F(SimulatorTest, VectorOpsMatchReference) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> x(4096), y;
  for (float &v : x)
    v = dist(rng);
  float running = 0;
  for (float v : x) {
    float r = std::exp(v) * 3.0f - v;
    running += r;
    y.push_back(running);
  }
  HostArray args[] = {floats(x, {4096}),
                      floats(std::vector<float>(4096), {4096})};
  run(R"mlir(
    !g = memref<4096xf32, #npudev.space<global>>
    !v = memref<4096xf32, #npudev.space<vector>>
    func.func @f(%x: !g, %y: !g) {
      %three = arith.constant 3.0 : f32
      npudev.launch tasks(1) {
        %a = npudev.alloc : !v
        %b = npudev.alloc : !v
        npudev.dma %x, %a : !g to !v
        npudev.vunary <exp> %a, %b : !v, !v
        npudev.vbinary_scalar <mul> %b, %three, %b : !v, f32, !v
        npudev.vbinary <sub> %b, %a, %b : !v, !v, !v
        npudev.vcumsum %b, %b : !v, !v
        npudev.dma %b, %y : !v to !g
      }
      return
    })mlir",
      args);
  EXPECT_EQ(args[1].getValues<float>(), y);
}

TEST_F(SimulatorTest, DmaCostsLatencyPlusBytesOverBandwidth) {
  HostArray args[] = {floats(std::vector<float>(65536), {65536})};
  SimulationReport report = run(R"mlir(
    !g = memref<65536xf32, #npudev.space<global>>
    func.func @f(%x: !g) {
      npudev.launch tasks(1) {
        %a = npudev.alloc : memref<65536xf32, #npudev.space<vector>>
        npudev.dma %x, %a : !g to memref<65536xf32, #npudev.space<vector>>
      }
      return
    })mlir",
                                args);
  // One core alone draws min(dma_gbps, global_gbps / 1).
  double expected =
      device.dmaLatencyCycles + 65536.0 * 4 * device.clockGHz /
                                    std::min(device.dmaGBps, device.globalGBps);
  EXPECT_DOUBLE_EQ(report.cycles, expected);
  EXPECT_EQ(report.globalBytes, 65536 * 4);
  EXPECT_NEAR(report.ioEfficiency,
              65536.0 * 4 / (device.globalGBps * 1e9) / report.seconds, 1e-12);
}

TEST_F(SimulatorTest, AsyncDmaOverlapsComputeAndSyncDoesNot) {
  const char *kernel = R"mlir(
    !g = memref<65536xf32, #npudev.space<global>>
    !v = memref<65536xf32, #npudev.space<vector>>
    func.func @f(%x: !g) {
      npudev.launch tasks(1) {
        %a = npudev.alloc : !v
        %b = npudev.alloc : !v
        BODY
      }
      return
    })mlir";
  auto withBody = [&](StringRef body) {
    std::string text(kernel);
    text.replace(text.find("BODY"), 4, body.str());
    HostArray args[] = {floats(std::vector<float>(65536), {65536})};
    return run(text, args);
  };
  // The vector work fills %b first: reading never-written memory is an
  // error.
  StringRef vector = "%zero = arith.constant 0.0 : f32\n"
                     "npudev.vfill %zero, %b : f32, !v\n"
                     "npudev.vunary <exp> %b, %b : !v, !v\n";
  SimulationReport dmaOnly = withBody("npudev.dma %x, %a : !g to !v");
  SimulationReport vectorOnly = withBody(vector);
  SimulationReport sync =
      withBody(("npudev.dma %x, %a : !g to !v\n" + vector).str());
  SimulationReport async = withBody(
      ("%t = npudev.dma_start %x, %a : !g to !v\n" + vector + "npudev.wait %t")
          .str());
  EXPECT_DOUBLE_EQ(sync.cycles, dmaOnly.cycles + vectorOnly.cycles);
  EXPECT_DOUBLE_EQ(async.cycles, std::max(dmaOnly.cycles, vectorOnly.cycles));
  EXPECT_LT(async.cycles, sync.cycles);
}

TEST_F(SimulatorTest, QueuedDmasOverlapTheirLatencies) {
  HostArray args[] = {floats(std::vector<float>(4096), {4096})};
  SimulationReport report = run(R"mlir(
    !g = memref<4096xf32, #npudev.space<global>>
    !w = memref<1024xf32, strided<[1], offset: ?>, #npudev.space<global>>
    func.func @f(%x: !g) {
      %c0 = arith.constant 0 : index
      %c1024 = arith.constant 1024 : index
      %c4096 = arith.constant 4096 : index
      npudev.launch tasks(1) {
        %a = npudev.alloc : memref<1024xf32, #npudev.space<vector>>
        scf.for %i = %c0 to %c4096 step %c1024 {
          %w = memref.subview %x[%i] [1024] [1] : !g to !w
          %t = npudev.dma_start %w, %a : !w to memref<1024xf32, #npudev.space<vector>>
        }
        npudev.wait_all
      }
      return
    })mlir",
                                args);
  // Four transfers back to back, one latency at the end; the loop's scalar
  // ops (4 iterations, 2 ops each) run while the engine is busy.
  double transfer = 1024.0 * 4 * device.clockGHz /
                    std::min(device.dmaGBps, device.globalGBps);
  EXPECT_NEAR(report.cycles, 4 * transfer + device.dmaLatencyCycles, 4.0);
}

TEST_F(SimulatorTest, TwoCoresHalveAParallelKernel) {
  const char *kernel = R"mlir(
    func.func @f(%x: memref<4xf32, #npudev.space<global>>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant ITERS : index
      npudev.launch tasks(TASKS) {
        %a = npudev.alloc : memref<8192xf32, #npudev.space<vector>>
        %zero = arith.constant 0.0 : f32
        scf.for %i = %c0 to %n step %c1 {
          npudev.vfill %zero, %a : f32, memref<8192xf32, #npudev.space<vector>>
          npudev.vunary <exp> %a, %a : memref<8192xf32, #npudev.space<vector>>, memref<8192xf32, #npudev.space<vector>>
        }
      }
      return
    })mlir";
  auto cycles = [&](int tasks, int iters) {
    std::string text(kernel);
    text.replace(text.find("ITERS"), 5, std::to_string(iters));
    text.replace(text.find("TASKS"), 5, std::to_string(tasks));
    HostArray args[] = {floats(std::vector<float>(4), {4})};
    return run(text, args).cycles;
  };
  EXPECT_DOUBLE_EQ(cycles(2, 8), cycles(1, 16) / 2);
}

/// The device comes from the module; simulating a kernel on another device
/// is an error naming both.
TEST_F(SimulatorTest, DeviceComesFromTheModule) {
  const char *kernel = R"mlir(
    module attributes {npudev.device = {name = "three", clusters = 3 : i64, cores_per_cluster = 1 : i64}} {
      func.func @f(%x: memref<4xf32, #npudev.space<global>>) {
        npudev.launch tasks(100) {
        }
        return
      }
    })mlir";
  module = parseSourceString<ModuleOp>(kernel, &ctx);
  ASSERT_TRUE(module);
  auto func = cast<func::FuncOp>(module->getBody()->front());
  HostArray args[] = {floats({1, 2, 3, 4}, {4})};
  SimulationReport report;
  ASSERT_TRUE(succeeded(simulate(func, args, {}, report)));
  EXPECT_EQ(report.coresUsed, 3u);

  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(simulate(func, args, device, {}, report)));
  EXPECT_EQ(message, "simulating on device 'mlu590' a kernel compiled for "
                     "device 'three' (they differ in 'name')");
}

} // namespace
