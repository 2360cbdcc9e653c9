//===- MathToLibmWherePossible.cpp - libm calls for what libm has ---------===//
//
// Upstream's math-to-libm patterns, applied greedily: a math op libm has a
// function for becomes a call of it (the function the simulator calls);
// the rest stay for math-to-llvm. math.fma is one of the rest: it is exact,
// so LLVM's fma (one instruction, which vectorizes) gives libm's bits, and
// the device's exp is made of it (include/npu/Support/DeviceExp.h). An f16
// or bf16 fma still runs in f32 and rounds once to its type, as upstream's
// promotion (removed with the other fma patterns) and the simulator do: a
// host with native f16 arithmetic would otherwise round once in f16. O(ops).
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace npu {
#define GEN_PASS_DEF_MATHTOLIBMWHEREPOSSIBLE
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;

namespace {

/// fma(a, b, c) in f16 or bf16 (scalar or vector) as truncf(fma(extf(a),
/// extf(b), extf(c))) in f32.
struct PromoteNarrowFma : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isF16() && !element.isBF16())
      return failure();
    Type wide = rewriter.getF32Type();
    if (auto vector = dyn_cast<VectorType>(type))
      wide = vector.clone(wide);
    Location loc = op.getLoc();
    SmallVector<Value, 3> operands =
        llvm::map_to_vector(op->getOperands(), [&](Value operand) -> Value {
          return rewriter.create<arith::ExtFOp>(loc, wide, operand);
        });
    Value fma = rewriter.create<math::FmaOp>(loc, operands[0], operands[1],
                                             operands[2]);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, fma);
    return success();
  }
};

struct MathToLibmWherePossiblePass
    : npu::impl::MathToLibmWherePossibleBase<MathToLibmWherePossiblePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathToLibmConversionPatterns(patterns);
    OperationName fma(math::FmaOp::getOperationName(), &getContext());
    llvm::erase_if(patterns.getNativePatterns(),
                   [&](const std::unique_ptr<RewritePattern> &pattern) {
                     return pattern->getRootKind() == fma;
                   });
    patterns.add<PromoteNarrowFma>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
