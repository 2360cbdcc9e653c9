//===- FloatMinMaxPatterns.cpp - NaN-exact maximumf / minimumf ------------===//
//
// arith.maximumf and arith.minimumf return a NaN when an operand is one,
// but neither MLIR nor LLVM says which: x86 code passes one operand's NaN
// through, the simulator used to make a new one. Both executors follow one
// rule instead (docs/simulator.md, "NaN"): the first NaN operand, quieted.
// Each op becomes
//   isnan(a) ? a + a : isnan(b) ? b + b : maximumf(a, b) fastmath<nnan>
// (a + a quiets a NaN and keeps its sign and payload; the inner op sees no
// NaN in the lane it is selected for, and carries nnan so this pattern
// leaves it). O(1) ops per op.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;

namespace {

template <typename MinMaxOp>
struct PropagateFirstNaN : OpRewritePattern<MinMaxOp> {
  using OpRewritePattern<MinMaxOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(MinMaxOp op,
                                PatternRewriter &rewriter) const override {
    if (arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::nnan))
      return rewriter.notifyMatchFailure(op, "assumes no NaN operand");
    Location loc = op.getLoc();
    Value a = op.getLhs(), b = op.getRhs();
    auto isNaN = [&](Value x) {
      return rewriter.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x,
                                            x);
    };
    auto quiet = [&](Value x) {
      return rewriter.create<arith::AddFOp>(loc, x, x);
    };
    Value ordered = rewriter.create<MinMaxOp>(
        loc, a, b,
        arith::FastMathFlagsAttr::get(
            op.getContext(), op.getFastmath() | arith::FastMathFlags::nnan));
    Value fromB =
        rewriter.create<arith::SelectOp>(loc, isNaN(b), quiet(b), ordered);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNaN(a), quiet(a), fromB);
    return success();
  }
};

} // namespace

void npu::dev::populateFloatMinMaxPatterns(RewritePatternSet &patterns) {
  patterns.add<PropagateFirstNaN<arith::MaximumFOp>,
               PropagateFirstNaN<arith::MinimumFOp>>(patterns.getContext());
}
