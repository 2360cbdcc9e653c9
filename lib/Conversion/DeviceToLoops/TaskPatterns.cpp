//===- TaskPatterns.cpp - launches and tasks to loops ---------------------===//
//
// npudev.launch becomes an scf.parallel over task ids (so that it can run on
// host threads); task_id and task_dim become its induction variable and
// bound.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;

namespace {

struct LowerLaunch : OpRewritePattern<LaunchOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LaunchOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tasks = indexConst(rewriter, loc, op.getTasks());
    auto parallel = rewriter.create<scf::ParallelOp>(
        loc, ValueRange{indexConst(rewriter, loc, 0)}, ValueRange{tasks},
        ValueRange{indexConst(rewriter, loc, 1)});
    Block &body = op.getBody().front();
    Value taskId = parallel.getInductionVars().front();
    body.walk([&](Operation *inner) {
      if (isa<TaskIdOp>(inner))
        inner->getResult(0).replaceAllUsesWith(taskId);
      else if (isa<TaskDimOp>(inner))
        inner->getResult(0).replaceAllUsesWith(tasks);
    });
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, parallel.getBody()->getTerminator());
    rewriter.eraseOp(op);
    return success();
  }
};

template <typename TaskOp> struct EraseTaskQuery : OpRewritePattern<TaskOp> {
  using OpRewritePattern<TaskOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(TaskOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->use_empty())
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void npu::dev::populateTaskLoweringPatterns(RewritePatternSet &patterns) {
  patterns
      .add<LowerLaunch, EraseTaskQuery<TaskIdOp>, EraseTaskQuery<TaskDimOp>>(
          patterns.getContext());
}
