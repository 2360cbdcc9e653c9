//===- SizeCheckTest.cpp - run-time size checks in both executors ---------===//
//
// KernelBuilder::checkSizes guards kernels whose sizes are read at run time
// (issue #34): two sizes that must agree, and a size with a limit. Each
// case runs a function holding only the checks, built with KernelBuilder,
// in the simulator and through the JIT: sizes that hold run, and each
// broken rule fails with its message naming the size, the first broken
// rule in program order winning.
//
//===----------------------------------------------------------------------===//

#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostArray.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace npu;

namespace {

class SizeCheckTest : public ::testing::Test {
protected:
  SizeCheckTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// func @f(%x: memref<?xf32>, %y: memref<?xf32>) that checks that x has
  /// as many elements as y, then at most four.
  OwningOpRef<ModuleOp> buildChecks() {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto type = MemRefType::get(
        {ShapedType::kDynamic}, b.getF32Type(), MemRefLayoutAttrInterface(),
        dev::MemorySpaceAttr::get(&ctx, dev::MemorySpace::global));
    auto func =
        b.create<func::FuncOp>(loc, "f", b.getFunctionType({type, type}, {}));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    KernelBuilder k(b, loc);
    k.checkSizes({{entry->getArgument(0), 0, entry->getArgument(1), 0,
                   "x has {row} elements, y another number"},
                  {entry->getArgument(0), 0, nullptr, 0,
                   "x has {row} elements, more than 4", /*limit=*/4}});
    b.create<func::ReturnOp>(loc);
    return module;
  }

  /// The error of a run with x and y of these sizes ("" when it ran).
  std::string run(int64_t x, int64_t y, bool jit) {
    OwningOpRef<ModuleOp> module = buildChecks();
    std::vector<HostArray> args;
    for (int64_t n : {x, y})
      args.push_back(
          HostArray::fromValues(ElementKind::F32, std::vector<float>(n), {n}));
    std::string error;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      error += d.str();
      return success();
    });
    LogicalResult ran = failure();
    if (jit) {
      ran = jit::runJit(*module, "f", args);
    } else {
      DeviceModel device = llvm::cantFail(DeviceModel::load("mlu590"));
      sim::SimulationReport report;
      ran = sim::simulate(*module->getOps<func::FuncOp>().begin(), args, device,
                          {}, report);
    }
    EXPECT_EQ(succeeded(ran), error.empty()) << error;
    return error;
  }

  MLIRContext ctx;
};

TEST_F(SizeCheckTest, BothExecutorsNameTheSizeThatBreaksARule) {
  for (bool jit : {false, true}) {
    SCOPED_TRACE(jit ? "jit" : "simulator");
    EXPECT_EQ(run(4, 4, jit), "");
    EXPECT_EQ(run(0, 0, jit), "");
    EXPECT_NE(run(3, 4, jit).find("x has 3 elements, y another number"),
              std::string::npos);
    EXPECT_NE(run(5, 5, jit).find("x has 5 elements, more than 4"),
              std::string::npos);
    // Both broken: the first check in program order names its size.
    EXPECT_NE(run(6, 7, jit).find("x has 6 elements, y another number"),
              std::string::npos);
  }
}

} // namespace
