//===- SimulatorTest.cpp - the simulator's values and cost model ----------===//
//
// Results against plain C++ references, and the timing model against its
// own definition (docs/simulator.md): a DMA costs latency + bytes / bandwidth,
// the cores running one program share HBM, an asynchronous DMA overlaps vector
// work and a synchronous one does not, an indexed DMA pays a burst and a
// request per row, two cores halve a perfectly parallel kernel, and the
// roofline bounds a kernel by its slowest resource.
//
//===----------------------------------------------------------------------===//

#include "npu/Simulator/Simulator.h"
#include "npu/Dialect/NPUDev/Passes.h"
#include "npu/InitAll.h"
#include "npu/Simulator/Execution.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
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

/// One copy of 256 KiB from global memory into vector memory.
static const char *kCopyIn = R"mlir(
    !g = memref<65536xf32, #npudev.space<global>>
    func.func @f(%x: !g) {
      npudev.launch tasks(1) {
        %a = npudev.alloc : memref<65536xf32, #npudev.space<vector>>
        npudev.dma %x, %a : !g to memref<65536xf32, #npudev.space<vector>>
      }
      return
    })mlir";

TEST_F(SimulatorTest, DmaCostsLatencyPlusBytesOverBandwidth) {
  HostArray args[] = {floats(std::vector<float>(65536), {65536})};
  SimulationReport report = run(kCopyIn, args);
  // One core alone draws min(dma_gbps, global_gbps / 1).
  double expected =
      device.dmaLatencyCycles + 65536.0 * 4 * device.clockGHz /
                                    std::min(device.dmaGBps, device.globalGBps);
  EXPECT_DOUBLE_EQ(report.cycles, expected);
  EXPECT_EQ(report.globalBytes, 65536 * 4);
  EXPECT_NEAR(report.ioEfficiency,
              65536.0 * 4 / (device.globalGBps * 1e9) / report.seconds, 1e-12);
}

/// A mixed launch whose cube tasks each copy their own 128 KiB row in while
/// its vector tasks copy nothing: the cube tasks share HBM among
/// themselves, each at its engine's rate here, not at a share of it
/// counting the vector tasks (docs/simulator.md).
TEST_F(SimulatorTest, HbmIsSharedByTheCoresRunningTheSameProgram) {
  const char *kernel = R"mlir(
    !g = memref<24x32768xf32, #npudev.space<global>>
    module attributes {npudev.device = "ascend910b"} {
    func.func @f(%x: !g) {
      npudev.mixed_launch cube(24) {
        %t = npudev.task_id
        %a = npudev.alloc : memref<32768xf32, #npudev.space<cube>>
        %row = memref.subview %x[%t, 0] [1, 32768] [1, 1] : !g to memref<32768xf32, strided<[1], offset: ?>, #npudev.space<global>>
        npudev.dma %row, %a : memref<32768xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<32768xf32, #npudev.space<cube>>
      } vector(48) {
      }
      return
    }
    })mlir";
  device = cantFail(DeviceModel::getPreset("ascend910b"));
  HostArray args[] = {floats(std::vector<float>(24 * 32768), {24, 32768})};
  double cycles = run(kernel, args).cycles;
  double rowBytes = 32768.0 * 4;
  ASSERT_LT(24 * device.dmaGBps, device.globalGBps);
  // Each cube core at its engine's rate (the few scalar cycles before the
  // copy aside); a 72nd of HBM would take 2.6 times as long.
  EXPECT_NEAR(
      cycles,
      device.dmaLatencyCycles + rowBytes * device.clockGHz / device.dmaGBps, 8);
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

/// On a device with an engine for copies out (dma_out_engine), a store and
/// a load move at once; either way a wait on a copy covers every copy
/// queued before it, so the load's wait also waits for the larger store.
TEST_F(SimulatorTest, CopiesOutHaveTheirOwnEngineAndCompleteInOrder) {
  const char *kernel = R"mlir(
    !g = memref<65536xf32, #npudev.space<global>>
    !v = memref<65536xf32, #npudev.space<vector>>
    !q = memref<16384xf32, #npudev.space<vector>>
    func.func @f(%x: !g, %y: !g) {
      npudev.launch tasks(1) {
        %a = npudev.alloc : !q
        %b = npudev.alloc : !v
        %zero = arith.constant 0.0 : f32
        npudev.vfill %zero, %b : f32, !v
        STORE
        %w = memref.subview %x[0] [16384] [1] : !g to memref<16384xf32, strided<[1]>, #npudev.space<global>>
        %t = npudev.dma_start %w, %a : memref<16384xf32, strided<[1]>, #npudev.space<global>> to !q
        npudev.wait %t
        npudev.vunary <exp> %a, %a : !q, !q
      }
      return
    })mlir";
  auto withStore = [&](bool store) {
    std::string text(kernel);
    text.replace(text.find("STORE"), 5,
                 store ? "%s = npudev.dma_start %b, %y : !v to !g" : "");
    HostArray args[] = {floats(std::vector<float>(65536), {65536}),
                        floats(std::vector<float>(65536), {65536})};
    return run(text, args);
  };
  device.l2Bytes = 0;
  double store = 65536.0 * 4 * device.clockGHz /
                 std::min(device.dmaGBps, device.globalGBps);
  device.dmaOutEngine = 1;
  SimulationReport loadOnly = withStore(false);
  SimulationReport apart = withStore(true);
  // The load ends a quarter of the store's transfer after it starts; its
  // wait lasts until the store is done (less the scalar cycles that issue
  // the load after the store starts).
  EXPECT_NEAR(apart.cycles - loadOnly.cycles, 0.75 * store, 4);
  device.dmaOutEngine = 0;
  SimulationReport shared = withStore(true);
  // One engine: the load starts when the store has moved.
  EXPECT_NEAR(shared.cycles - apart.cycles, 0.25 * store, 1e-6);
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

/// A gather of `rows` rows of `columns` f32 from a global table, one core;
/// `indices` fills the index buffer (negative: a row not fetched).
static std::string gatherKernel(int64_t rows, int64_t columns,
                                StringRef indexOp) {
  std::string text = R"mlir(
    !t = memref<4096xCOLSxf32, #npudev.space<global>>
    !r = memref<ROWSxCOLSxf32, #npudev.space<vector>>
    func.func @f(%table: !t) {
      %c0 = arith.constant 0 : index
      npudev.launch tasks(1) {
        %idx = npudev.alloc : memref<ROWSxi32, #npudev.space<vector>>
        INDICES
        %rows = npudev.alloc : !r
        npudev.dma_gather %table[%idx], %rows : !t, memref<ROWSxi32, #npudev.space<vector>>, !r
      }
      return
    })mlir";
  auto replaceAll = [&](StringRef from, const std::string &to) {
    for (size_t at; (at = text.find(from.str())) != std::string::npos;)
      text.replace(at, from.size(), to);
  };
  replaceAll("INDICES", indexOp.str());
  replaceAll("ROWS", std::to_string(rows));
  replaceAll("COLS", std::to_string(columns));
  return text;
}

/// Each index is a request of whole bursts: 1024 rows of 4 bytes move 1024
/// bursts, and with at most dma_max_outstanding requests in flight they take
/// 1024 x latency / outstanding cycles, far above their bytes' transfer.
TEST_F(SimulatorTest, IndexedDmaPaysABurstAndARequestPerRow) {
  // Without an L2 every request waits for HBM (the L2's part is below).
  device.l2Bytes = 0;
  auto gather = [&](int64_t rows, int64_t columns, StringRef indexOp) {
    std::vector<float> table(4096 * columns, 1.0f);
    HostArray args[] = {floats(table, {4096, columns})};
    return run(gatherKernel(rows, columns, indexOp), args);
  };
  auto iota = [](int64_t rows) {
    return "npudev.iota %c0, %idx : memref<" + std::to_string(rows) +
           "xi32, #npudev.space<vector>>";
  };
  // The gather follows the vector op that fills the indices.
  auto gatherCycles = [](const SimulationReport &r) {
    return r.cycles - r.pipeBusyCycles[static_cast<unsigned>(Pipe::Vector)];
  };
  double gbps = std::min(device.dmaGBps, device.globalGBps);
  double issue =
      1024.0 * device.dmaLatencyCycles / double(device.dmaMaxOutstanding);

  SimulationReport narrow = gather(1024, 1, iota(1024));
  EXPECT_EQ(narrow.globalBytes, 1024 * device.dmaBurstBytes);
  double narrowBytes = 1024.0 * device.dmaBurstBytes * device.clockGHz / gbps;
  ASSERT_GT(issue, narrowBytes);
  EXPECT_DOUBLE_EQ(gatherCycles(narrow), issue + device.dmaLatencyCycles);

  // 128 rows of 500 f32 (2000 bytes, 32 bursts of 64) are bound by bytes.
  SimulationReport wide = gather(128, 500, iota(128));
  int64_t rowBytes = llvm::alignTo(500 * 4, device.dmaBurstBytes);
  EXPECT_EQ(wide.globalBytes, 128 * rowBytes);
  double wideBytes = 128.0 * rowBytes * device.clockGHz / gbps;
  ASSERT_GT(wideBytes, issue / 8);
  EXPECT_DOUBLE_EQ(gatherCycles(wide), wideBytes + device.dmaLatencyCycles);

  // Negative indices fetch nothing: no bytes, no requests, so no round
  // trip to wait for either.
  SimulationReport none =
      gather(1024, 1,
             "%m1 = arith.constant -1 : i32\n"
             "npudev.vfill %m1, %idx : i32, memref<1024xi32, "
             "#npudev.space<vector>>");
  EXPECT_EQ(none.globalBytes, 0);
  EXPECT_DOUBLE_EQ(gatherCycles(none), 0);

  // Twice the requests in flight halve a request-bound gather.
  device.dmaMaxOutstanding *= 2;
  SimulationReport twice = gather(1024, 1, iota(1024));
  EXPECT_DOUBLE_EQ(gatherCycles(twice), issue / 2 + device.dmaLatencyCycles);
}

/// A copy of 64 KiB from global memory, twice, and one back.
static const char *kReadTwiceWriteOnce = R"mlir(
    !g = memref<16384xf32, #npudev.space<global>>
    !v = memref<16384xf32, #npudev.space<vector>>
    func.func @f(%x: !g, %y: !g) {
      npudev.launch tasks(1) {
        %a = npudev.alloc : !v
        npudev.dma %x, %a : !g to !v
        npudev.dma %x, %a : !g to !v
        npudev.dma %a, %y : !v to !g
      }
      return
    })mlir";

/// Bytes read again come from the L2: no HBM traffic, the L2's latency.
/// Written bytes stay in the L2, dirty, until replaced.
TEST_F(SimulatorTest, TheL2ServesWhatItHolds) {
  auto readTwiceWriteOnce = [&] {
    HostArray args[] = {floats(std::vector<float>(16384), {16384}),
                        floats(std::vector<float>(16384), {16384})};
    return run(kReadTwiceWriteOnce, args);
  };
  const int64_t bytes = 16384 * 4;
  double transfer =
      bytes * device.clockGHz /
      std::min({device.dmaGBps, device.l2GBps, device.globalGBps});
  ASSERT_GE(device.l2Bytes, 2 * bytes);
  SimulationReport held = readTwiceWriteOnce();
  EXPECT_EQ(held.globalBytes, 3 * bytes);
  EXPECT_EQ(held.hbmBytes, bytes);
  EXPECT_EQ(held.l2Misses * device.l2LineBytes, 2 * bytes);
  EXPECT_EQ(held.l2Hits * device.l2LineBytes, bytes);
  EXPECT_EQ(held.l2DirtyBytes, bytes);
  EXPECT_DOUBLE_EQ(held.cycles, 3 * transfer + device.dmaLatencyCycles +
                                    2 * device.l2LatencyCycles);

  // An L2 of half the data: the second read misses every line (least
  // recently used goes first), and the write's second half replaces its
  // own dirty first half.
  device.l2Bytes = bytes / 2;
  SimulationReport small = readTwiceWriteOnce();
  EXPECT_EQ(small.l2Hits, 0);
  EXPECT_EQ(small.hbmBytes, 2 * bytes + bytes / 2);
  EXPECT_EQ(small.l2Writebacks * device.l2LineBytes, bytes / 2);
  EXPECT_EQ(small.l2DirtyBytes, bytes / 2);

  // No L2: every byte crosses HBM at its latency.
  device.l2Bytes = 0;
  SimulationReport none = readTwiceWriteOnce();
  EXPECT_EQ(none.hbmBytes, 3 * bytes);
  EXPECT_EQ(none.l2Hits + none.l2Misses, 0);
  EXPECT_DOUBLE_EQ(none.cycles, 3 * (transfer + device.dmaLatencyCycles));
}

/// A core's engine moves what the L2 serves at its own L2 rates, reading
/// and writing, what HBM serves at dma_gbps; the cores together move no
/// more than the L2's bandwidth, which bounds the launch as a whole.
TEST_F(SimulatorTest, TheL2ServesACoreAtItsOwnRates) {
  auto readTwiceWriteOnce = [&] {
    HostArray args[] = {floats(std::vector<float>(16384), {16384}),
                        floats(std::vector<float>(16384), {16384})};
    return run(kReadTwiceWriteOnce, args);
  };
  const int64_t bytes = 16384 * 4;
  device.dmaL2ReadGBps = 2 * device.dmaGBps;
  device.dmaL2WriteGBps = 1.5 * device.dmaGBps;
  ASSERT_LE(device.dmaGBps, device.globalGBps);
  auto cyclesAt = [&](double gbps) { return bytes * device.clockGHz / gbps; };
  // The first read misses (HBM), the second hits, the write lands in the
  // L2.
  SimulationReport rates = readTwiceWriteOnce();
  EXPECT_DOUBLE_EQ(rates.cycles,
                   cyclesAt(device.dmaGBps) + cyclesAt(device.dmaL2ReadGBps) +
                       cyclesAt(device.dmaL2WriteGBps) +
                       device.dmaLatencyCycles + 2 * device.l2LatencyCycles);

  // An L2 slower than the copies: the launch takes its bytes at the L2's
  // bandwidth.
  device.l2GBps = device.dmaGBps / 8;
  SimulationReport floor = readTwiceWriteOnce();
  EXPECT_DOUBLE_EQ(floor.cycles, 3 * cyclesAt(device.l2GBps));
}

/// Indexed rows that the L2 holds are requests at its latency.
TEST_F(SimulatorTest, IndexedRowsTheL2HoldsIssueAtItsLatency) {
  std::vector<float> table(4096, 1.0f);
  HostArray args[] = {floats(table, {4096, 1})};
  StringRef iota = "npudev.iota %c0, %idx : memref<1024xi32, "
                   "#npudev.space<vector>>";
  SimulationReport report = run(gatherKernel(1024, 1, iota), args);
  // 1024 rows of 4 bytes, one after another: each row's burst lies in a
  // 128-byte line that 32 rows share; the first of them misses.
  EXPECT_EQ(report.l2Misses, 1024 * 4 / device.l2LineBytes);
  EXPECT_EQ(report.l2Hits, 1024 - report.l2Misses);
  double issue = (report.l2Misses * device.dmaLatencyCycles +
                  report.l2Hits * device.l2LatencyCycles) /
                 double(device.dmaMaxOutstanding);
  EXPECT_DOUBLE_EQ(
      report.cycles -
          report.pipeBusyCycles[static_cast<unsigned>(Pipe::Vector)],
      issue + device.dmaLatencyCycles);
}

/// The roofline of a launch is its slowest resource at the device's peak:
/// a copy is bound by global bandwidth, a matmul by the cube, and neither
/// runs faster than its bound.
TEST_F(SimulatorTest, RooflineIsTheSlowestResourceAtPeak) {
  HostArray copyArgs[] = {floats(std::vector<float>(65536), {65536})};
  SimulationReport copy = run(kCopyIn, copyArgs);
  ASSERT_EQ(copy.steps.size(), 1u);
  EXPECT_EQ(copy.steps[0].name, "launch 1");
  EXPECT_EQ(copy.steps[0].getLimit(), "io");
  EXPECT_DOUBLE_EQ(copy.boundCycles,
                   65536.0 * 4 * device.clockGHz / device.globalGBps);
  EXPECT_DOUBLE_EQ(copy.rooflineRatio, copy.boundCycles / copy.cycles);
  EXPECT_LT(copy.rooflineRatio, 1.0);

  // Eight 128x128x128 f16 matmuls on one tile: the cube outweighs the
  // 32 KiB copy in.
  HostArray mmArgs[] = {HostArray::fromValues(
      ElementKind::F16, std::vector<uint16_t>(128 * 128), {128, 128})};
  SimulationReport matmul = run(R"mlir(
    !c = memref<128x128xf16, #npudev.space<cube>>
    !acc = memref<128x128xf32, #npudev.space<cube>>
    func.func @f(%x: memref<128x128xf16, #npudev.space<global>>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      npudev.launch tasks(1) {
        %a = npudev.alloc : !c
        %acc = npudev.alloc : !acc
        npudev.dma %x, %a : memref<128x128xf16, #npudev.space<global>> to !c
        scf.for %i = %c0 to %c8 step %c1 {
          npudev.matmul %a, %a, %acc : !c, !c, !acc
        }
      }
      npudev.launch tasks(1) {
      }
      return
    })mlir",
                                mmArgs);
  ASSERT_EQ(matmul.steps.size(), 2u);
  EXPECT_EQ(matmul.steps[1].name, "launch 2");
  const SimulationReport::Step &mm = matmul.steps[0];
  EXPECT_EQ(mm.getLimit(), "cube");
  EXPECT_DOUBLE_EQ(mm.cubeCycles, 8 * 128.0 * 128 * 128 /
                                      device.cubeMacsPerCycle /
                                      device.getNumCores(dev::CoreKind::cube));
  EXPECT_DOUBLE_EQ(matmul.boundCycles, mm.boundCycles);
  EXPECT_LE(matmul.boundCycles, matmul.cycles);
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

/// A plain tile loop (load, work, store) and the same loop after
/// npu-pipeline-dma-loops: the same bytes out, no race (the simulator
/// checks every access against the copies in flight), the same copies, and
/// less time, each tile's load now running under the previous tile's work.
TEST_F(SimulatorTest, PipelinedTileLoopOverlapsLoadsWithWork) {
  const char *source = R"mlir(
    !g = memref<65536xf32, #npudev.space<global>>
    !w = memref<4096xf32, strided<[1], offset: ?>, #npudev.space<global>>
    !v = memref<4096xf32, #npudev.space<vector>>
    func.func @f(%x: !g, %y: !g) {
      %c0 = arith.constant 0 : index
      %c4096 = arith.constant 4096 : index
      %n = arith.constant 65536 : index
      %three = arith.constant 3.0 : f32
      npudev.launch tasks(1) {
        %a = npudev.alloc : !v
        scf.for %i = %c0 to %n step %c4096 {
          %in = memref.subview %x[%i] [4096] [1] : !g to !w
          npudev.dma %in, %a : !w to !v
          npudev.vunary <exp> %a, %a : !v, !v
          npudev.vbinary_scalar <mul> %a, %three, %a : !v, f32, !v
          %out = memref.subview %y[%i] [4096] [1] : !g to !w
          npudev.dma %a, %out : !v to !w
        }
      }
      return
    })mlir";
  std::vector<float> x(65536);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 97) / 97.0f;
  auto simulateKernel = [&](bool pipelined, HostArray &y) {
    OwningOpRef<ModuleOp> kernel = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(kernel);
    if (pipelined) {
      PassManager pm(&ctx);
      pm.addNestedPass<func::FuncOp>(dev::createPipelineDmaLoops());
      EXPECT_TRUE(succeeded(pm.run(*kernel)));
    }
    HostArray args[] = {floats(x, {65536}),
                        floats(std::vector<float>(65536), {65536})};
    SimulationReport report;
    EXPECT_TRUE(
        succeeded(simulate(cast<func::FuncOp>(kernel->getBody()->front()), args,
                           device, {}, report)));
    y = args[1];
    return report;
  };
  HostArray plainY, pipelinedY;
  SimulationReport plain = simulateKernel(false, plainY);
  SimulationReport pipelined = simulateKernel(true, pipelinedY);
  EXPECT_EQ(plainY.data, pipelinedY.data);
  EXPECT_EQ(pipelined.globalBytes, plain.globalBytes);
  // Sixteen tiles: fifteen loads overlapped with a tile's vector work.
  double load = plain.pipeBusyCycles[static_cast<unsigned>(Pipe::DMA)] / 32;
  double work = plain.pipeBusyCycles[static_cast<unsigned>(Pipe::Vector)] / 16;
  EXPECT_LT(pipelined.cycles, plain.cycles - 15 * std::min(load, work) / 2);
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
