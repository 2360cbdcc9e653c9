//===- OutlineLaunches.cpp - each launch a function of its own -----------===//
//
// A network lowers to hundreds of launches in one function, and LLVM's
// optimizer and code generator grow faster than linearly with a function's
// size (dominator tree updates, scalar evolution, instruction scheduling):
// compiling ResNet-50's one function took most of the JIT's time. Each
// npudev.launch moves into a private function `__npu_launch_<n>` taking the
// values its body uses from above (constants are cloned in instead), marked
// `no_inline` so that LLVM keeps it apart, and a call takes its place.
// O(ops) overall.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace npu::dev;

void npu::dev::sinkConstants(Region &region) {
  SetVector<Value> used;
  getUsedValuesDefinedAbove(region, used);
  OpBuilder b(&region.front(), region.front().begin());
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>())
      continue;
    Value copy = b.clone(*def)->getResult(0);
    replaceAllUsesInRegionWith(v, copy, region);
  }
}

void npu::dev::outlineLaunches(ModuleOp module) {
  SmallVector<LaunchOp> launches;
  module.walk([&](LaunchOp op) { launches.push_back(op); });
  OpBuilder top(module.getBodyRegion());
  top.setInsertionPointToEnd(module.getBody());
  for (auto [n, launch] : llvm::enumerate(launches)) {
    sinkConstants(launch.getBody());
    SetVector<Value> captures;
    getUsedValuesDefinedAbove(launch.getBody(), captures);
    Location loc = launch.getLoc();
    auto func = top.create<func::FuncOp>(
        loc, "__npu_launch_" + std::to_string(n),
        top.getFunctionType(ValueRange(captures.getArrayRef()).getTypes(), {}));
    func.setPrivate();
    func->setAttr("no_inline", top.getUnitAttr());
    Block *entry = func.addEntryBlock();
    OpBuilder(launch).create<func::CallOp>(loc, func, captures.getArrayRef());
    launch->moveBefore(entry, entry->end());
    OpBuilder::atBlockEnd(entry).create<func::ReturnOp>(loc);
    for (auto [value, arg] : llvm::zip(captures, entry->getArguments()))
      replaceAllUsesInRegionWith(value, arg, func.getBody());
  }
}
