//===- MixedLaunchLowering.cpp - mixed launches, flags, async for the JIT -===//
//
// The tasks of an npudev.mixed_launch wait for each other, so they cannot
// be the iterations of one loop: each region becomes a function of its own,
// `@__npu_mixed_launch_<n>_cube(%task, captures...)` and `..._vector`, with
// task_id the argument and task_dim a constant; every value the two regions
// use from above (constants are cloned in instead) is passed to both. The
// launch becomes a call of `@__npu_mixed_launch_<n>(cube_tasks,
// vector_tasks, captures...)`, a declaration only: after the conversion to
// LLVM, the JIT packs the captures and hands the two functions to the
// runtime, which runs every task on a thread of its own (lib/JIT/
// MixedLaunchCalls.cpp). O(ops of the regions) per launch.
//
// set_flag and wait_flag become calls of the runtime; npudev.async runs its
// body in place (host code has nothing to overlap), so its waits go.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Runtime/RuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;
using namespace npu;

namespace {

/// Moves the body of `region` into a new function `name` taking the task
/// index and `captures`; task_id and task_dim become the index and `tasks`.
void outlineRegion(ModuleOp module, Region &region, StringRef name,
                   int64_t tasks, ArrayRef<Value> captures) {
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = region.getParentOp()->getLoc();
  SmallVector<Type> types{b.getIndexType()};
  for (Value v : captures)
    types.push_back(v.getType());
  auto func = b.create<func::FuncOp>(loc, name, b.getFunctionType(types, {}));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  Block &body = region.front();
  entry->getOperations().splice(entry->end(), body.getOperations(),
                                body.begin(), std::prev(body.end()));
  b.setInsertionPointToEnd(entry);
  b.create<func::ReturnOp>(loc);
  for (auto [value, arg] :
       llvm::zip(captures, entry->getArguments().drop_front()))
    replaceAllUsesInRegionWith(value, arg, func.getBody());
  b.setInsertionPointToStart(entry);
  Value dim = b.create<arith::ConstantIndexOp>(loc, tasks);
  func.walk([&](Operation *op) {
    if (isa<TaskIdOp>(op))
      op->getResult(0).replaceAllUsesWith(entry->getArgument(0));
    else if (isa<TaskDimOp>(op))
      op->getResult(0).replaceAllUsesWith(dim);
  });
}

void outlineMixedLaunch(ModuleOp module, MixedLaunchOp launch, unsigned n) {
  std::string name = "__npu_mixed_launch_" + std::to_string(n);
  sinkConstants(launch.getCube());
  sinkConstants(launch.getVector());
  SetVector<Value> captures;
  getUsedValuesDefinedAbove(launch->getRegions(), captures);
  outlineRegion(module, launch.getCube(), name + "_cube", launch.getCubeTasks(),
                captures.getArrayRef());
  outlineRegion(module, launch.getVector(), name + "_vector",
                launch.getVectorTasks(), captures.getArrayRef());

  OpBuilder b(launch);
  Location loc = launch.getLoc();
  SmallVector<Value> operands{
      b.create<arith::ConstantIndexOp>(loc, launch.getCubeTasks()),
      b.create<arith::ConstantIndexOp>(loc, launch.getVectorTasks())};
  llvm::append_range(operands, captures);
  OpBuilder top(module.getBodyRegion());
  auto marker = top.create<func::FuncOp>(
      loc, name, top.getFunctionType(ValueRange(operands).getTypes(), {}));
  marker.setPrivate();
  b.create<func::CallOp>(loc, marker, operands);
  launch.erase();
}

struct LowerSetFlag : OpRewritePattern<SetFlagOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SetFlagOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    func::FuncOp callee = getRuntimeFunction(
        rewriter, op, abi::kSetFlag, {i32, rewriter.getIndexType(), i32}, {});
    Value kind = rewriter.create<arith::ConstantIntOp>(
        loc, static_cast<int64_t>(op.getTo()), i32);
    Value flag = rewriter.create<arith::ConstantIntOp>(loc, op.getFlag(), i32);
    rewriter.replaceOpWithNewOp<func::CallOp>(
        op, callee, ValueRange{kind, op.getTask(), flag});
    return success();
  }
};

struct LowerWaitFlag : OpRewritePattern<WaitFlagOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WaitFlagOp op,
                                PatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    func::FuncOp callee =
        getRuntimeFunction(rewriter, op, abi::kWaitFlag, {i32}, {});
    Value flag =
        rewriter.create<arith::ConstantIntOp>(op.getLoc(), op.getFlag(), i32);
    rewriter.replaceOpWithNewOp<func::CallOp>(op, callee, ValueRange{flag});
    return success();
  }
};

/// The body runs where it stands, once its token is no longer used
/// (EraseWait).
struct InlineAsync : OpRewritePattern<AsyncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireUnusedToken(op, rewriter)))
      return failure();
    Block &body = op.getBody().front();
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, op);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void npu::dev::outlineMixedLaunches(ModuleOp module) {
  SmallVector<MixedLaunchOp> launches;
  module.walk([&](MixedLaunchOp op) { launches.push_back(op); });
  for (auto [n, launch] : llvm::enumerate(launches))
    outlineMixedLaunch(module, launch, n);
}

void npu::dev::populateMixedLaunchLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerSetFlag, LowerWaitFlag, InlineAsync>(patterns.getContext());
}
